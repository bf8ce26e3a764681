"""PyTorch's SymmetricMemory one-shot allreduce, for bench/gpu_bench.sh's side-by-side table.

Run by torch's launcher on the GPU machine (2 ranks on one GPU: TORCH_SYMM_MEM_ALLOW_OVERLAPPING_DEVICES=1,
gloo for the rendezvous, as NCCL refuses two ranks on one device):
    python3 -m torch.distributed.run --nproc_per_node 2 bench/gpu_torch_symm.py [max_bytes]
Prints CSV rows "torch,allreduce_sum_float,bytes,npes,us,us" on rank 0: the median over 7 batches
of 20 allreduces, each batch timed with CUDA events (as gpu_bench.cu times ours)."""
import os
import statistics
import sys

import torch
import torch.distributed as dist
import torch.distributed._symmetric_memory as symm_mem


def main():
    max_bytes = int(sys.argv[1]) if len(sys.argv) > 1 else 256 << 20
    torch.cuda.set_device(0)
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    group = dist.group.WORLD.group_name
    sizes, b = [], 8
    while b <= max_bytes:
        sizes.append(b)
        b *= 8
    if sizes[-1] != max_bytes:
        sizes.append(max_bytes)
    for nbytes in sizes:
        n = max(1, nbytes // 4)
        try:
            t = symm_mem.empty(n, dtype=torch.float32, device="cuda")
            symm_mem.rendezvous(t, group)
            t.fill_(1.0)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            times = []
            for trial in range(8):
                dist.barrier()
                start.record()
                for _ in range(20):
                    out = torch.ops.symm_mem.one_shot_all_reduce(t, "sum", group)
                end.record()
                torch.cuda.synchronize()
                if trial:
                    times.append(start.elapsed_time(end) * 1e3 / 20)
            if rank == 0 and abs(out[0].item() - world) > 1e-3:
                print(f"torch one_shot_all_reduce: wrong sum {out[0].item()} at {nbytes} bytes", file=sys.stderr)
            if rank == 0:
                print(f"torch,allreduce_sum_float,{nbytes},{world},{statistics.median(times):.4f},us", flush=True)
            del t
        except Exception as e:  # a size the one-shot kernel refuses: report and stop
            if rank == 0:
                print(f"torch one_shot_all_reduce: {nbytes} bytes: {e}", file=sys.stderr, flush=True)
            break
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
