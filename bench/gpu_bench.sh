#!/usr/bin/env bash
# bench/gpu_bench.sh BUILD_DIR [CSV]: the GPU benchmark side by side (ours: gpu_bench; NVSHMEM:
# gpu_nvshmem, when built against the nvidia-nvshmem-cu13 wheel), at 2 PEs (and the barrier at
# 4), on one GPU under MPS (scripts/gpu-check.sh starts it). Prints the CSV and a table of
# medians and ratios (NVSHMEM / ours: > 1 means ours is faster for times, slower for bandwidth).
set -uo pipefail
build=${1:?usage: bench/gpu_bench.sh BUILD_DIR [CSV]}
csv=${2:-gpu_bench.csv}
oshrun=$build/bin/oshrun
export SHMEM_CUDA_HEAP_SIZE=${SHMEM_CUDA_HEAP_SIZE:-4G} SHMEM_WAIT_TIMEOUT=${SHMEM_WAIT_TIMEOUT:-60}
echo "lib,metric,bytes,npes,value,unit" >"$csv"
run() { timeout 90 "$oshrun" -n "$1" "${@:2}" | grep -E '^(shmem|nvshmem),' >>"$csv" || echo "gpu_bench.sh: '${*:2}' at $1 PEs failed (rc $?)"; }
run 2 "$build/bench/gpu_bench" all $((1 << 30))
run 4 "$build/bench/gpu_bench" barrier
run 4 "$build/bench/gpu_bench" stream $((256 << 20))
if [ -x "$build/bench/gpu_nvshmem" ]; then
  run 2 "$build/bench/gpu_nvshmem" all $((1 << 30))
  run 4 "$build/bench/gpu_nvshmem" barrier
  run 4 "$build/bench/gpu_nvshmem" stream $((256 << 20))
fi
# PyTorch's SymmetricMemory one-shot allreduce (2 ranks on the one GPU), where torch is there.
if python3 -c 'import torch.distributed._symmetric_memory' 2>/dev/null; then
  TORCH_SYMM_MEM_ALLOW_OVERLAPPING_DEVICES=1 timeout 120 python3 -m torch.distributed.run --nproc_per_node 2 \
    "$(dirname "$0")/gpu_torch_symm.py" $((256 << 20)) 2>"${csv%.csv}-torch.err" | grep -E '^torch,' >>"$csv" ||
    echo "gpu_bench.sh: torch SymmetricMemory failed (${csv%.csv}-torch.err)"
fi
cat "$csv"
python3 - "$csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
key = lambda r: (r["metric"], r["bytes"], r["npes"])
ours = {key(r): float(r["value"]) for r in rows if r["lib"] == "shmem"}
theirs = {key(r): float(r["value"]) for r in rows if r["lib"] == "nvshmem"}
torch = {key(r): float(r["value"]) for r in rows if r["lib"] == "torch"}
copy = {(k[1], k[2]): v for k, v in ours.items() if k[0] == "copy_limit"}
print("| metric | bytes | PEs | shmem | NVSHMEM | NVSHMEM/shmem | PyTorch | PyTorch/shmem | shmem/copy limit |\n"
      "|---|---|---|---|---|---|---|---|---|")
for k, v in sorted(ours.items()):
    if k[0] == "copy_limit":
        continue
    t, p = theirs.get(k), torch.get(k)
    lim = copy.get((k[1], k[2])) if k[0].startswith("put_bw") else None
    cell = lambda x: '' if x is None else f'{x:.3f}'
    ratio = lambda x: '' if x is None else f'{x / v:.2f}'
    print(f"| {k[0]} | {k[1]} | {k[2]} | {v:.3f} | {cell(t)} | {ratio(t)} | {cell(p)} | {ratio(p)} | "
          f"{'' if lim is None else f'{v / lim:.2f}'} |")
PY
