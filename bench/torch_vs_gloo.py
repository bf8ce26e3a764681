"""The torch.distributed backend "shmem" side by side with gloo (PyTorch's CPU backend), in one
run: all_reduce (sum, float32), all_gather, all_to_all_single and broadcast from 8 B to 64 MiB
per rank. Every size alternates the two backends over the same tensors, several rounds, and
reports the median time per call of each and their ratio (gloo / shmem: above 1, shmem is
faster). Rank 0 prints the table.

    python3 -m torch.distributed.run --redirects 1 --tee 1 --nproc_per_node=2 bench/torch_vs_gloo.py
    python3 -m torch.distributed.run --redirects 1 --tee 1 --nproc_per_node=4 bench/torch_vs_gloo.py --max 1M

Options: --min BYTES (8), --max BYTES (64M), --ops (all_reduce,all_gather,all_to_all,broadcast),
--rounds N (5), --stat median|min (of the rounds; min is steadier on a loaded machine), --budget SECONDS (target time per size and backend per round, 0.05), --ab (a third
column, interleaved too: a second "shmem" group with the direct paths of python/torch_backend/
local_coll.hpp and pipe_broadcast.hpp off, i.e. the library's collectives on staged tensors).
"""
import argparse
import statistics
import time

import torch
import torch.distributed as dist

import shmem.torch  # noqa: F401 (registers the backend)


def size_arg(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1].upper()] if text[-1].upper() in units else int(text)


parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--min", type=size_arg, default=8)
parser.add_argument("--max", type=size_arg, default=64 << 20)
parser.add_argument("--ops", default="all_reduce,all_gather,all_to_all,broadcast")
parser.add_argument("--rounds", type=int, default=5)
parser.add_argument("--budget", type=float, default=0.05)
parser.add_argument("--ab", action="store_true")
parser.add_argument("--stat", choices=("median", "min"), default="median")
args = parser.parse_args()

dist.init_process_group("shmem")
gloo = dist.new_group(backend="gloo")
me, n = dist.get_rank(), dist.get_world_size()
staged = None
if args.ab:  # called directly (torch 1.13's dist.* take registered groups only)
    staged = shmem.torch._c10d.ProcessGroupShmem(me, n)
    staged._set_direct_paths(False)
    bcast_opts = dist.BroadcastOptions()
    bcast_opts.rootRank, bcast_opts.rootTensor = 0, 0


def ops(nbytes):
    count = max(nbytes // 4, 1)
    x = torch.ones(count)
    gathered = [torch.empty(count) for _ in range(n)]  # the list form: gloo 1.13 has no _allgather_base
    per_peer = max(count // n, 1)
    a2a_in, a2a_out = torch.ones(per_peer * n), torch.empty(per_peer * n)
    plain = plain_ops(x, gathered, a2a_out, a2a_in)
    if args.ab:
        direct = {
            "all_reduce": lambda: staged.allreduce([x]).wait(),
            "all_gather": lambda: staged.allgather([gathered], [x]).wait(),
            "all_to_all": lambda: staged.alltoall_base(a2a_out, a2a_in, [], []).wait(),
            "broadcast": lambda: staged.broadcast([x], bcast_opts).wait(),
        }
        return {k: (lambda g, f=f, p=plain[k]: f() if g is staged else p(g)) for k, f in direct.items()}
    return plain


def plain_ops(x, gathered, a2a_out, a2a_in):
    return {
        "all_reduce": lambda g: dist.all_reduce(x, group=g),
        "all_gather": lambda g: dist.all_gather(gathered, x, group=g),
        "all_to_all": lambda g: dist.all_to_all_single(a2a_out, a2a_in, group=g),
        "broadcast": lambda g: dist.broadcast(x, 0, group=g),
    }


def timed(call, group, iters):
    dist.barrier(group=gloo)
    t0 = time.perf_counter()
    for _ in range(iters):
        call(group)
    t = torch.tensor([time.perf_counter() - t0])
    dist.all_reduce(t, dist.ReduceOp.MAX, group=gloo)  # the slowest rank's time
    return t.item() / iters


def iterations(call, group):
    """Enough calls to fill the budget, agreed by every rank."""
    once = timed(call, group, 1)
    k = torch.tensor([max(1, min(10000, int(args.budget / max(once, 1e-7))))])
    dist.all_reduce(k, dist.ReduceOp.MIN, group=gloo)
    return int(k)


sizes = []
s = 8
while s <= args.max:
    if s < args.min:
        s *= 4 if s < (1 << 20) else 2
        continue
    sizes.append(s)
    s *= 4 if s < (1 << 20) else 2
rows = []
for name in args.ops.split(","):
    for nbytes in sizes:
        call = ops(nbytes)[name]
        call(None)
        call(gloo)  # warm both
        if args.ab:
            call(staged)
        k = iterations(call, None)
        shm, glo, stg = [], [], []
        for _ in range(args.rounds):
            shm.append(timed(call, None, k))
            glo.append(timed(call, gloo, k))
            if args.ab:
                stg.append(timed(call, staged, k))
        pick = min if args.stat == "min" else statistics.median
        rows.append((name, nbytes, pick(shm), pick(glo), pick(stg or [0])))
if me == 0:
    print(f"{n} ranks, {args.stat} of {args.rounds} rounds, time per call (slowest rank)")
    ab = " shmem staged us | staged/shmem |" if args.ab else ""
    print(f"| op | bytes per rank | shmem us | gloo us | gloo/shmem |{ab}")
    print("|---|---:|---:|---:|---:|" + ("---:|---:|" if args.ab else ""))
    for name, nbytes, t_s, t_g, t_b in rows:
        extra = f" {t_b * 1e6:.1f} | {t_b / t_s:.2f} |" if args.ab else ""
        print(f"| {name} | {nbytes} | {t_s * 1e6:.1f} | {t_g * 1e6:.1f} | {t_g / t_s:.2f} |{extra}")
# Drop the groups first: a gloo group still referenced at interpreter exit is destroyed during
# Py_Finalize, where its worker threads, releasing tensors, are ended mid-destructor
# ("terminate called without an active exception"; docs/python.md).
del gloo, staged
dist.destroy_process_group()
