#!/bin/bash
# The real torchrun (Debian's python3-torch 1.13) across namespace hosts, started as
# docs/python.md tells a user: `python3 -m torch.distributed.run --redirects 1 --tee 1 --nnodes 2
# --node_rank R --master_addr H1 --master_port P --nproc_per_node 2 script.py` on h1 and h2
# (static rendezvous: h1's agent hosts torch's store). Every worker initialises shmem through
# that store (rank 0's bootstrap store on h1's hnet0, on a port of its own), next to gloo;
# then the "shmem" torch.distributed backend runs every collective against gloo at 2 x 2; then a
# rank dies between all_to_alls that cross the hosts through the backend's TCP connections; then
# the ranks cannot reach each other's connections and all_to_all keeps the library's transport.
# CTest sets SHX_PYTHON, SHX_PY_DIR (build/python), SHX_PY_TESTS (python/tests).
export HARNESS_JOB_TIMEOUT=${HARNESS_JOB_TIMEOUT:-240}
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${SHX_PYTHON:?set by CTest}" "${SHX_PY_DIR:?set by CTest}" "${SHX_PY_TESTS:?set by CTest}"

snapshot
harness_up 2
H1=$(harness_addr h1)

cat >"$WORK/job.py" <<'PYEOF'
import os, socket
import torch, torch.distributed as dist
import shmem
me, npes = shmem.my_pe(), shmem.n_pes()
dist.init_process_group("gloo")
src, dst = shmem.full(1, me + 1, dtype="i8"), shmem.zeros(1, dtype="i8")
shmem.sum_reduce(dst, src)
t = torch.tensor([me + 1])
dist.all_reduce(t)
print(f"RESULT rank={os.environ['RANK']} pe={me} npes={npes} host={socket.gethostname()} shmem={int(dst[0])} "
      f"gloo={int(t)}", flush=True)
shmem.free(src)
shmem.free(dst)
PYEOF

# torchrun_job SCRIPT: one agent per host, node ranks 0 (h1) and 1 (h2); status in RC1/RC2,
# output of both in $WORK/out and $WORK/err (h1's, then h2's). GLOO_SOCKET_IFNAME: gloo's own setting (the
# harness hosts' names do not resolve, so gloo would fall back to loopback).
torchrun_job() {
  local script=$1 extra=${2:-} h pids=() port=$((29500 + RANDOM % 1000))
  for h in 1 2; do
    harness_exec "h$h" "cd '$WORK' && exec env PYTHONPATH='$SHX_PY_DIR' PYTHONDONTWRITEBYTECODE=1 \
      SHMEM_WAIT_TIMEOUT=60 $extra OMP_NUM_THREADS=1 GLOO_SOCKET_IFNAME=hnet0 '$SHX_PYTHON' -m torch.distributed.run --redirects 1 --tee 1 \
      --log_dir '$WORK/logs$h' --nnodes 2 --node_rank $((h - 1)) --master_addr $H1 --master_port $port \
      --nproc_per_node 2 '$script'" >"$WORK/out$h" 2>"$WORK/err$h" &
    pids+=($!)
  done
  wait "${pids[0]}"; RC1=$?
  wait "${pids[1]}"; RC2=$?
  # One file per host, joined after: the two agents' lines never interleave.
  cat "$WORK/out1" "$WORK/out2" >"$WORK/out"
  cat "$WORK/err1" "$WORK/err2" >"$WORK/err"
}

t0=$(now_ms)
torchrun_job "$WORK/job.py"
[ "$RC1" = 0 ] && [ "$RC2" = 0 ] || { cat "$WORK/out" "$WORK/err" >&2; fail "job.py: agents exited $RC1 (h1), $RC2 (h2)"; }
for r in 0 1 2 3; do
  h=$((r / 2 + 1))
  expect_out "^\[default$((r % 2))\]:RESULT rank=$r pe=$r npes=4 host=h$h shmem=10 gloo=10$" "job.py, rank $r"
done
grep -q "Address already in use" "$WORK/err" && fail "job.py: a port clash"
pass "torchrun --nnodes 2 x --nproc_per_node 2 (static rendezvous on h1): every rank initialises shmem through torch's store next to gloo, PE = RANK, sums agree ($(( $(now_ms) - t0 )) ms)"

t0=$(now_ms)
torchrun_job "$SHX_PY_TESTS/torch_backend_check.py"
[ "$RC1" = 0 ] && [ "$RC2" = 0 ] || { cat "$WORK/out" "$WORK/err" >&2; fail "torch_backend_check.py: agents exited $RC1 (h1), $RC2 (h2)"; }
n=$(grep -c "\]:ALL OK$" "$WORK/out" || true)
[ "$n" = 4 ] || fail "torch_backend_check.py: $n of 4 ranks printed ALL OK"
pass "the 'shmem' backend across 2 hosts x 2 ranks: every collective equals gloo's result ($(( $(now_ms) - t0 )) ms)"

# A rank that dies between two all_to_alls whose blocks to the other host take the backend's
# TCP connections (1 MiB blocks): every rank ends, naming it, none waits on its socket.
cat >"$WORK/die.py" <<'PYEOF'
import os
import torch, torch.distributed as dist
import shmem.torch
dist.init_process_group("shmem")
me, n = dist.get_rank(), dist.get_world_size()
x = torch.full((n * 262144,), float(me))
y = torch.empty_like(x)
dist.all_to_all_single(y, x)
good = bool(torch.equal(y.view(n, -1)[:, 0], torch.arange(n, dtype=torch.float)))
print(f"FIRST rank={me} good={good} sockets={dist.distributed_c10d._get_default_group()._alltoall_socket_blocks()}",
      flush=True)
for i in range(1000):
    if me == 3 and i == 2:
        os._exit(3)
    dist.all_to_all_single(y, x)
print("NOT STOPPED", flush=True)
PYEOF
t0=$(now_ms)
torchrun_job "$WORK/die.py"
[ "$RC1" != 0 ] && [ "$RC2" != 0 ] || { cat "$WORK/out" "$WORK/err" >&2; fail "die.py: agents exited $RC1 (h1), $RC2 (h2)"; }
for r in 0 1 2 3; do
  expect_out "^\[default$((r % 2))\]:FIRST rank=$r good=True sockets=2$" "die.py, rank $r's first all_to_all"
done
grep -q "NOT STOPPED" "$WORK/out" && fail "die.py: a rank went on after rank 3 died"
named=$(grep -ohE "PE 3 lost[^)]*|(from|to) rank 3 failed \([^)]*\)" "$WORK/out" "$WORK/err" | sort | uniq -c | tr -s ' ' | paste -sd';')
[ -n "$named" ] || { cat "$WORK/out" "$WORK/err" >&2; fail "die.py: no rank named rank 3"; }
pass "rank 3 dies between all_to_alls through the backend's sockets: both agents end ($RC1, $RC2), rank 3 named:$named ($(( $(now_ms) - t0 )) ms)"

# SHMEM_BOOTSTRAP_IFACE names an interface of each host on a subnet the other host has no route
# to (a veth pair inside each namespace; SHMEM_BOOTSTRAP_ADDR keeps the store on hnet0): the
# ranks of h2 cannot connect, say so, every rank learns it at once, and all_to_all takes the
# slots with the same results as gloo.
for h in 1 2; do
  ns=$(harness_ns "h$h")
  ip -n "$ns" link add shxfb0 type veth peer name shxfb1 && ip -n "$ns" addr add "10.250.$h.1/24" dev shxfb0 &&
    ip -n "$ns" link set shxfb0 up && ip -n "$ns" link set shxfb1 up || fail "cannot add an interface to h$h"
done
cat >"$WORK/fallback.py" <<'PYEOF'
import torch, torch.distributed as dist
import shmem.torch
dist.init_process_group("shmem")
gloo = dist.new_group(backend="gloo")
me, n = dist.get_rank(), dist.get_world_size()
x = torch.arange(n * 262144, dtype=torch.float32) + 1e6 * me
a, b = torch.empty_like(x), torch.empty_like(x)
dist.all_to_all_single(a, x)
dist.all_to_all_single(b, x, group=gloo)
sockets = dist.distributed_c10d._get_default_group()._alltoall_socket_blocks()
print(f"FALLBACK rank={me} same={torch.equal(a, b)} sockets={sockets}", flush=True)
del gloo
dist.destroy_process_group()
PYEOF
t0=$(now_ms)
torchrun_job "$WORK/fallback.py" "SHMEM_BOOTSTRAP_IFACE=shxfb0 SHMEM_BOOTSTRAP_ADDR=$H1"
[ "$RC1" = 0 ] && [ "$RC2" = 0 ] || { cat "$WORK/out" "$WORK/err" >&2; fail "fallback.py: agents exited $RC1 (h1), $RC2 (h2)"; }
for r in 0 1 2 3; do
  expect_out "^\[default$((r % 2))\]:FALLBACK rank=$r same=True sockets=0$" "fallback.py, rank $r"
done
for r in 2 3; do
  grep -qE "all_to_all: rank $r: could not connect to rank 0 \(10\.250\.1\.1:[0-9]+: " "$WORK/out" "$WORK/err" ||
    { cat "$WORK/out" "$WORK/err" >&2; fail "fallback.py: rank $r did not say it could not connect"; }
done
pass "all_to_all where the ranks cannot reach each other's connections: ranks 2 and 3 warn, every rank keeps the library's transport, results equal gloo's ($(( $(now_ms) - t0 )) ms)"

[ -z "$(harness_pids)" ] || fail "processes left in the hosts: $(harness_pids)"
check_no_leftovers "torchrun_across"
