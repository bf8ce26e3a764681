"""Run by every rank of torch_backend_jobs.py under torchrun: every collective of the "shmem"
backend against gloo's result for the same inputs (or, where gloo 1.13 lacks the operation or
the dtype, against a reference built from gloo's all_gather). Prints one "OK name" line per
check and "ALL OK" at the end; any mismatch raises (the job fails naming it)."""
import os
import sys

import torch
import torch.distributed as dist

import shmem.torch  # registers the backend

dist.init_process_group("shmem")
gloo = dist.new_group(backend="gloo")
me, n = dist.get_rank(), dist.get_world_size()
assert dist.get_backend() == "shmem", dist.get_backend()
torch.manual_seed(1234 + me)


def same(name, got, want):
    if isinstance(got, (list, tuple)):
        assert len(got) == len(want), name
        for g, w in zip(got, want):
            same(name, g, w)
        return
    if not (got.dtype == want.dtype and got.shape == want.shape and torch.equal(got, want)):
        raise AssertionError(f"rank {me}: {name}: shmem gave {got} but the reference is {want}")


def ok(name):
    print(f"OK {name}", flush=True)


def gathered(t):
    """Every rank's t, through gloo (float16/bfloat16 bits travel widened to int32: gloo 1.13
    gathers neither them nor int16)."""
    half = t.dtype in (torch.float16, torch.bfloat16)
    raw = t.contiguous().view(torch.int16).to(torch.int32) if half else t.contiguous()
    out = [torch.empty_like(raw) for _ in range(n)]
    dist.all_gather(out, raw, group=gloo)
    return [o.to(torch.int16).view(t.dtype) for o in out] if half else out


def sample(dtype, shape):
    """Values whose sums, products, minima and maxima are exact in every dtype (small integers)."""
    if dtype.is_floating_point:
        return torch.randint(-3, 4, shape).to(dtype)
    return torch.randint(0, 7, shape).to(dtype)


OPS = {"SUM": dist.ReduceOp.SUM, "PRODUCT": dist.ReduceOp.PRODUCT, "MIN": dist.ReduceOp.MIN,
       "MAX": dist.ReduceOp.MAX, "BAND": dist.ReduceOp.BAND, "BOR": dist.ReduceOp.BOR, "BXOR": dist.ReduceOp.BXOR}
TORCH_OPS = {"SUM": lambda a, b: a + b, "PRODUCT": lambda a, b: a * b, "MIN": torch.minimum, "MAX": torch.maximum,
             "BAND": torch.bitwise_and, "BOR": torch.bitwise_or, "BXOR": torch.bitwise_xor}

# ---- all_reduce: against gloo (float32/64, integers), halves against the float reference ----------
for dtype in (torch.float32, torch.float64, torch.int32, torch.int64, torch.int8, torch.uint8):
    for opname, op in OPS.items():
        if opname.startswith("B") and dtype.is_floating_point:
            continue
        for shape in ((7,), (3, 5), (100003,), ((3 << 18) + 7,)):  # the last: one host's direct path, 3+ steps
            x = sample(dtype, shape)
            a, b = x.clone(), x.clone()
            dist.all_reduce(a, op)
            dist.all_reduce(b, op, group=gloo)
            same(f"all_reduce {opname} {dtype} {shape}", a, b)
    ok(f"all_reduce {dtype}")
for dtype in (torch.float16, torch.bfloat16):
    for opname in ("SUM", "PRODUCT", "MIN", "MAX"):
        x = sample(dtype, (1000,))
        a = x.clone()
        dist.all_reduce(a, OPS[opname])
        parts = [p.float() for p in gathered(x)]
        want = parts[0]
        for p in parts[1:]:
            want = TORCH_OPS[opname](want, p)
        same(f"all_reduce {opname} {dtype}", a, want.to(dtype))
    ok(f"all_reduce {dtype}")
x = sample(torch.float32, (4, 6)).t()  # not contiguous
a, b = x.clone().t().contiguous().t(), x.clone().t().contiguous().t()
dist.all_reduce(a)
dist.all_reduce(b, group=gloo)
same("all_reduce non-contiguous", a, b)
x = sample(torch.float32, ((1 << 20) + 3,))  # AVG (gloo 1.13 has none): its SUM, divided
a, b = x.clone(), x.clone()
dist.all_reduce(a, dist.ReduceOp.AVG)
dist.all_reduce(b, group=gloo)
same("all_reduce AVG large", a, b / n)
ok("all_reduce non-contiguous")

# ---- broadcast, reduce, all_gather, gather, scatter ------------------------------------------------
for root in range(n):
    for dtype in (torch.float32, torch.int64, torch.bfloat16):
        for shape in ((5,), (2, 1000), (100003,), (3 << 20,)):
            x = sample(dtype, shape)
            a, b = x.clone(), x.clone()
            dist.broadcast(a, root)
            if dtype == torch.bfloat16:  # gloo 1.13 broadcasts no bfloat16: its bits, as int32
                wide = b.view(torch.int16).to(torch.int32)
                dist.broadcast(wide, root, group=gloo)
                b = wide.to(torch.int16).view(torch.bfloat16)
            else:
                dist.broadcast(b, root, group=gloo)
            same(f"broadcast root {root} {dtype} {shape}", a, b)
    x = sample(torch.int64, (9,))
    a, b = x.clone(), x.clone()
    dist.reduce(a, root, dist.ReduceOp.MAX)
    dist.reduce(b, root, dist.ReduceOp.MAX, group=gloo)
    if me == root:
        same(f"reduce root {root}", a, b)
    outs_a = [torch.zeros(4) for _ in range(n)] if me == root else None
    outs_b = [torch.zeros(4) for _ in range(n)] if me == root else None
    x = sample(torch.float32, (4,))
    dist.gather(x, outs_a, root)
    dist.gather(x, outs_b, root, group=gloo)
    if me == root:
        same(f"gather root {root}", outs_a, outs_b)
    ins = [sample(torch.float32, (3,)) for _ in range(n)] if me == root else None
    a, b = torch.zeros(3), torch.zeros(3)
    dist.scatter(a, ins, root)
    dist.scatter(b, ins, root, group=gloo)
    same(f"scatter root {root}", a, b)
ok("broadcast, reduce, gather, scatter at every root")

for dtype, numel in ((torch.float32, 6), (torch.int32, 6), (torch.float16, 6), (torch.float32, 70001),
                     (torch.int8, (5 << 20) + 3)):  # large: one host's direct path, in steps
    x = sample(dtype, (numel,))
    outs = [torch.zeros(numel, dtype=dtype) for _ in range(n)]
    dist.all_gather(outs, x)
    same(f"all_gather {dtype} {numel}", outs, gathered(x))
    flat = torch.zeros(n * numel, dtype=dtype)
    dist._all_gather_base(flat, x)
    same(f"_all_gather_base {dtype} {numel}", flat, torch.cat(gathered(x)))
ok("all_gather, _all_gather_base")

# ---- reduce_scatter (gloo 1.13 has none): the reference is gloo's all_reduce, sliced -----------------
for dtype in (torch.float32, torch.int64, torch.bfloat16):
    ins = [sample(dtype, (5,)) for _ in range(n)]
    out = torch.zeros(5, dtype=dtype)
    dist.reduce_scatter(out, ins)
    every = [torch.stack(gathered(t)).float().sum(0).to(dtype) for t in ins]
    same(f"reduce_scatter {dtype}", out, every[me])
    big = torch.cat(ins)
    out2 = torch.zeros(5, dtype=dtype)
    dist._reduce_scatter_base(out2, big)
    same(f"_reduce_scatter_base {dtype}", out2, every[me])
ok("reduce_scatter, _reduce_scatter_base")

# ---- all_to_all: against gloo's all_to_all_single (equal and uneven splits) -------------------------
x = sample(torch.float32, (n * 3, 2))
a, b = torch.zeros_like(x), torch.zeros_like(x)
dist.all_to_all_single(a, x)
dist.all_to_all_single(b, x, group=gloo)
same("all_to_all_single", a, b)
in_splits = [(me + j) % 3 + 1 for j in range(n)]          # rows rank me sends to rank j
out_splits = [(i + me) % 3 + 1 for i in range(n)]         # rows rank i sends to me
x = sample(torch.int64, (sum(in_splits), 4))
a = torch.zeros(sum(out_splits), 4, dtype=torch.int64)
b = torch.zeros_like(a)
dist.all_to_all_single(a, x, out_splits, in_splits)
dist.all_to_all_single(b, x, out_splits, in_splits, group=gloo)
same("all_to_all_single uneven", a, b)
ins = [sample(torch.float32, (in_splits[j],)) for j in range(n)]
outs = [torch.zeros(out_splits[i]) for i in range(n)]
dist.all_to_all(outs, ins)
flat_in = torch.cat(ins)
want = torch.zeros(sum(out_splits))
dist.all_to_all_single(want, flat_in, out_splits, in_splits, group=gloo)
same("all_to_all (list)", torch.cat(outs), want)
for rows in ((70000, 70000), (100000, 3)):  # blocks of 1 MiB: each rank puts them (the direct path)
    in_splits = [rows[(me + j) % 2] for j in range(n)]
    out_splits = [rows[(i + me) % 2] for i in range(n)]
    x = sample(torch.float32, (sum(in_splits), 4))
    a = torch.zeros(sum(out_splits), 4)
    b = torch.zeros_like(a)
    dist.all_to_all_single(a, x, out_splits, in_splits)
    dist.all_to_all_single(b, x, out_splits, in_splits, group=gloo)
    same(f"all_to_all_single {rows}", a, b)
x = sample(torch.float32, (n * 70000, 4))
a, b = torch.zeros_like(x), torch.zeros_like(x)
dist.all_to_all_single(a, x)
dist.all_to_all_single(b, x, group=gloo)
same("all_to_all_single large, even", a, b)
# The large-block path (alltoall.hpp): blocks of several 1 MiB chunks with a partial last one,
# next to empty blocks; back-to-back calls of different sizes (each may reuse a receiver's slot
# only after it copied the last block out); a non-contiguous input and outputs of the list form;
# an all_gather right after (its own staging).
for rows in ((0, 300001), (200003, 0), (70000, 150001), (300001, 300001)):  # rows of 4 floats
    in_splits = [rows[(me + j) % 2] for j in range(n)]
    out_splits = [rows[(i + me) % 2] for i in range(n)]
    for _ in range(2):
        x = sample(torch.float32, (sum(in_splits), 4))
        a = torch.zeros(sum(out_splits), 4)
        b = torch.zeros_like(a)
        dist.all_to_all_single(a, x, out_splits, in_splits)
        dist.all_to_all_single(b, x, out_splits, in_splits, group=gloo)
        same(f"all_to_all_single chunks {rows}", a, b)
x = sample(torch.float32, (4, n * 300001)).t()  # not contiguous
a, b = torch.zeros(n * 300001, 4), torch.zeros(n * 300001, 4)
dist.all_to_all_single(a, x)
dist.all_to_all_single(b, x.contiguous(), group=gloo)
same("all_to_all_single large, non-contiguous input", a, b)
ins = [sample(torch.float32, (4, 300001 + 7 * j)) for j in range(n)]  # rank j gets 300001 + 7j columns
outs = [torch.zeros(300001 + 7 * me, 4).t() for _ in range(n)]  # not contiguous
dist.all_to_all(outs, ins)
want = torch.zeros(n * 4 * (300001 + 7 * me))
dist.all_to_all_single(want, torch.cat([t.reshape(-1) for t in ins]), [4 * (300001 + 7 * me)] * n,
                       [4 * (300001 + 7 * j) for j in range(n)], group=gloo)
same("all_to_all (list) large, non-contiguous outputs", torch.cat([o.reshape(-1) for o in outs]), want)
x = sample(torch.float32, (n * 100000, 4))
a, b = torch.zeros_like(x), torch.zeros_like(x)
dist.all_to_all_single(a, x)
g = [torch.zeros(300000) for _ in range(n)]
dist.all_gather(g, torch.full((300000,), float(me)))
dist.all_to_all_single(b, x, group=gloo)
same("all_to_all_single, then all_gather", a, b)
# Across hosts the large blocks to other hosts take the backend's TCP connections (tcp_links.hpp);
# on one host none does. With the direct paths off they take the slots, and back on the sockets:
# each switch keeps the slots' credits (a block through the sockets still gives its sender one).
pg = dist.distributed_c10d._get_default_group()
across = int(os.environ.get("LOCAL_WORLD_SIZE", n)) < n
through = pg._alltoall_socket_blocks()
assert (through > 0) == across, f"rank {me}: {through} all_to_all blocks through sockets, across hosts: {across}"
for direct in (False, True, False, True):
    pg._set_direct_paths(direct)
    x = sample(torch.float32, (n * 200003, 2))
    a, b = torch.zeros_like(x), torch.zeros_like(x)
    dist.all_to_all_single(a, x)
    dist.all_to_all_single(b, x, group=gloo)
    same(f"all_to_all_single, direct paths {direct}", a, b)
now = pg._alltoall_socket_blocks()
assert now - through == (2 * (n - int(os.environ.get("LOCAL_WORLD_SIZE", n))) if across else 0), \
    f"rank {me}: {now - through} blocks through sockets in two calls with them on"
ok(f"all_to_all across hosts through {'sockets' if across else 'no sockets (one host)'}")
same("all_gather after all_to_all_single", g, [torch.full((300000,), float(r)) for r in range(n)])
ok("all_to_all_single, all_to_all")

# ---- send/recv around a ring (small and larger than one 256 KiB mailbox slot), barrier ---------------
for numel in (3, 200000):
    x = (torch.arange(numel) + 1000 * me).to(torch.float32)
    got = torch.zeros(numel)
    if me % 2 == 0:
        dist.send(x, (me + 1) % n)
        dist.recv(got, (me - 1) % n)
    else:
        dist.recv(got, (me - 1) % n)
        dist.send(x, (me + 1) % n)
    same(f"send/recv {numel}", got, (torch.arange(numel) + 1000 * ((me - 1) % n)).to(torch.float32))
req = dist.isend(torch.tensor([me]), (me + 1) % n)
got = torch.zeros(1, dtype=torch.int64)
dist.irecv(got, (me - 1) % n).wait()
req.wait()
same("isend/irecv", got, torch.tensor([(me - 1) % n]))
dist.barrier()
ok("send/recv, isend/irecv, barrier")

# ---- isend/irecv of any size, every rank sending before it receives (no deadlock) ---------------------
msgs = [(3 << 20) + 5, 7, 0, 600000]  # elements: several mailbox slots, small, empty, in between
peers = [(me + 1) % n, (me - 1) % n]
sends = [dist.isend((torch.arange(k) + 100 * me + i).to(torch.float32), p) for i, k in enumerate(msgs) for p in peers]
recvd = [(torch.zeros(k), p, i) for i, k in enumerate(msgs) for p in peers[::-1]]
recvs = [dist.irecv(t, p) for t, p, _ in recvd]
for w in recvs + sends:
    w.wait()
for t, p, i in recvd:
    same(f"isend/irecv {t.numel()} from {p}", t, (torch.arange(t.numel()) + 100 * p + i).to(torch.float32))
strided = torch.zeros(8, 2)[:, 0]  # a receive into a non-contiguous tensor
src = torch.arange(8, dtype=torch.float32) + me
w = dist.isend(src, (me + 1) % n)
dist.recv(strided, (me - 1) % n)
w.wait()
same("recv into a strided view", strided, torch.arange(8, dtype=torch.float32) + (me - 1) % n)
ok("isend/irecv of any size both ways")

# ---- ReduceOp.AVG (gloo 1.13 has none): the reference is gloo's gathered values, averaged ---------
for dtype in (torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64):
    x = sample(dtype, (1001,))
    a = x.clone()
    dist.all_reduce(a, dist.ReduceOp.AVG)
    total = torch.stack(gathered(x)).to(torch.float64 if dtype == torch.float64 else torch.float32).sum(0)
    want = total.div(n, rounding_mode="trunc").to(dtype) if dtype == torch.int64 else (total / n).to(dtype)
    same(f"all_reduce AVG {dtype}", a, want)
ok("all_reduce AVG")


# ---- groups: new_group of every rank, and of some ranks (members only), against gloo's groups ----------
def check_group(ranks, tag):
    """The collectives and send/recv of new_group(ranks) with the shmem backend against the gloo
    group of the same ranks (every rank creates both, as torch requires; members run them)."""
    sg = dist.new_group(ranks, backend="shmem")
    gg = dist.new_group(ranks, backend="gloo")
    if me not in ranks:
        return
    k, gme = len(ranks), ranks.index(me)
    for opname in ("SUM", "MAX", "PRODUCT"):
        x = sample(torch.float32, (3, 7))
        a, b = x.clone(), x.clone()
        dist.all_reduce(a, OPS[opname], group=sg)
        dist.all_reduce(b, OPS[opname], group=gg)
        same(f"{tag} all_reduce {opname}", a, b)
    x = sample(torch.int32, (100003,))
    a, b = x.clone(), x.clone()
    dist.all_reduce(a, dist.ReduceOp.BXOR, group=sg)
    dist.all_reduce(b, dist.ReduceOp.BXOR, group=gg)
    same(f"{tag} all_reduce BXOR int32", a, b)
    x = sample(torch.float32, (8,))
    a = x.clone()
    dist.all_reduce(a, dist.ReduceOp.AVG, group=sg)
    b = x.clone()
    dist.all_reduce(b, group=gg)
    same(f"{tag} all_reduce AVG", a, b / k)
    for root in (ranks[0], ranks[-1]):
        x = sample(torch.int64, (2, 300))
        a, b = x.clone(), x.clone()
        dist.broadcast(a, root, group=sg)
        dist.broadcast(b, root, group=gg)
        same(f"{tag} broadcast from {root}", a, b)
        x = sample(torch.int64, (9,))
        a, b = x.clone(), x.clone()
        dist.reduce(a, root, dist.ReduceOp.SUM, group=sg)
        dist.reduce(b, root, dist.ReduceOp.SUM, group=gg)
        if me == root:
            same(f"{tag} reduce to {root}", a, b)
        x = sample(torch.float32, (5,))
        outs_a = [torch.zeros(5) for _ in range(k)] if me == root else None
        outs_b = [torch.zeros(5) for _ in range(k)] if me == root else None
        dist.gather(x, outs_a, root, group=sg)
        dist.gather(x, outs_b, root, group=gg)
        if me == root:
            same(f"{tag} gather to {root}", outs_a, outs_b)
        ins = [sample(torch.float32, (3,)) for _ in range(k)] if me == root else None
        a, b = torch.zeros(3), torch.zeros(3)
        dist.scatter(a, ins, root, group=sg)
        dist.scatter(b, ins, root, group=gg)
        same(f"{tag} scatter from {root}", a, b)
    x = sample(torch.float32, (6,))
    outs_a, outs_b = [torch.zeros(6) for _ in range(k)], [torch.zeros(6) for _ in range(k)]
    dist.all_gather(outs_a, x, group=sg)
    dist.all_gather(outs_b, x, group=gg)
    same(f"{tag} all_gather", outs_a, outs_b)
    flat = torch.zeros(k * 6)
    dist._all_gather_base(flat, x, group=sg)
    same(f"{tag} _all_gather_base", flat, torch.cat(outs_b))
    ins = [sample(torch.int64, (4,)) for _ in range(k)]
    out = torch.zeros(4, dtype=torch.int64)
    dist.reduce_scatter(out, ins, group=sg)
    want = torch.cat(ins)
    dist.all_reduce(want, group=gg)
    same(f"{tag} reduce_scatter", out, want[4 * gme:4 * gme + 4])
    out2 = torch.zeros(4, dtype=torch.int64)
    dist._reduce_scatter_base(out2, torch.cat(ins), group=sg)
    same(f"{tag} _reduce_scatter_base", out2, want[4 * gme:4 * gme + 4])
    in_splits = [(gme + j) % 3 + 1 for j in range(k)]
    out_splits = [(i + gme) % 3 + 1 for i in range(k)]
    x = sample(torch.float32, (sum(in_splits), 2))
    a, b = torch.zeros(sum(out_splits), 2), torch.zeros(sum(out_splits), 2)
    dist.all_to_all_single(a, x, out_splits, in_splits, group=sg)
    dist.all_to_all_single(b, x, out_splits, in_splits, group=gg)
    same(f"{tag} all_to_all_single uneven", a, b)
    ins = [sample(torch.float32, (in_splits[j],)) for j in range(k)]
    outs_a = [torch.zeros(out_splits[i]) for i in range(k)]
    dist.all_to_all(outs_a, ins, group=sg)
    want = torch.zeros(sum(out_splits))
    dist.all_to_all_single(want, torch.cat(ins), out_splits, in_splits, group=gg)
    same(f"{tag} all_to_all (list)", torch.cat(outs_a), want)
    nxt, prv = ranks[(gme + 1) % k], ranks[(gme - 1) % k]
    got = torch.zeros(300000)
    w = dist.isend(torch.arange(300000, dtype=torch.float32) + me, nxt, group=sg)
    dist.recv(got, prv, group=sg)
    w.wait()
    same(f"{tag} send/recv", got, torch.arange(300000, dtype=torch.float32) + prv)
    dist.barrier(group=sg)


check_group(list(range(n)), "new_group(every rank)")
check_group(list(range(0, n, 2)), f"new_group({list(range(0, n, 2))})")
check_group(list(range(1, n)), f"new_group({list(range(1, n))})")
ok("groups of every rank and of some ranks")

# ---- async handles and futures (DDP's gradient hooks wait on the future) ------------------------------
a = torch.ones(3) * (me + 1)
work = dist.all_reduce(a, async_op=True)
fut = work.get_future()
work.wait()
same("async all_reduce future", fut.value()[0], torch.ones(3) * (n * (n + 1) // 2))
ok("async work and future")

# ---- errors name the backend and what is wrong ------------------------------------------------------
try:
    dist.all_reduce(torch.ones(2, dtype=torch.bool))
except RuntimeError as e:
    assert "shmem backend: allreduce: ReduceOp.SUM on Bool is not supported" in str(e), str(e)
else:
    raise AssertionError("all_reduce of bool tensors was accepted")
ok("errors")

dist.barrier(group=gloo)
# The last reference to the gloo group goes here, not at interpreter exit: its destructor joins
# gloo's worker threads. Left to Py_Finalize, a worker may still drop a finished op's tensors,
# whose Python objects need the GIL then: the thread is ended inside ~TensorImpl (noexcept) and
# the process aborts with "terminate called without an active exception" (seen with a core).
del gloo
dist.destroy_process_group()
print("ALL OK", flush=True)
sys.stdout.flush()
