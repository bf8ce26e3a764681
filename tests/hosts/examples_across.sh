#!/bin/bash
# Ascend SHMEM's examples across namespace hosts, under oshrun --hosts with the harness agent, at the
# small sizes their own tests use: matmul_allreduce (fused reduce-scatter + all-gather from
# kernels, and the on-stream sum reduction), allgather (a kernel with put + signal, and
# fcollect on a stream), kv_shuffle (put_signal_nbi from kernels, grid barriers), moe (the count
# alltoall on a stream, dispatch and combine kernels) and rdma_demo (put/get/signals from a
# kernel and from a stream). 2 hosts x 2 PEs and 2 hosts x 1 PE; each run must exit 0, print
# its VERIFIED line and no FAILED, and every PE must reach the other host over UCX on hnet0.
# EXAMPLES_DIR (from CTest): the build's examples directory.
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${EXAMPLES_DIR:?set by CTest}"
snapshot
harness_up 2

examples=(
  "matmul_allreduce/matmul_allreduce -M 67 -K 301 -N 300 -t 7 -g 2 -i 3"
  "allgather/allgather 3000 4 2"
  "kv_shuffle/kv_shuffle -b 24 -s 300 -i 3 -g 5"
  "moe/moe -t 24 -d 40 -e 3 -k 2 -i 3 -g 3"
  "rdma_demo/rdma_demo 10000"
)
for layout in 2,2 1,1; do
  per=${layout%%,*}
  for ex in "${examples[@]}"; do
    name=${ex%% *}
    name=${name##*/}
    t0=$(now_ms)
    run harness_exec h1 "exec $OSHRUN --rsh $HARNESS_AGENT --hosts h1:$per,h2:$per -x SHMEM_LOG_LEVEL=INFO $EXAMPLES_DIR/$ex"
    [ "$RC" != 124 ] || fail "$name on h1:$per,h2:$per: still running after $HARNESS_JOB_TIMEOUT s (hang guard)"
    if [ "$RC" != 0 ] || ! grep -q VERIFIED "$WORK/out" || grep -q FAILED "$WORK/out" "$WORK/err"; then
      tail -c 2000 "$WORK/out" >&2
      head -c 3000 "$WORK/err" >&2
      fail "$name on h1:$per,h2:$per: exit status $RC, or no VERIFIED line, or a FAILED one"
    fi
    n=$(grep -cE "PE [0-9]+ on host 'h[12]': $per node-local PEs? over shared memory, $per remote over ucx [0-9.]+: tcp/hnet0" \
      "$WORK/err" || true)
    [ "$n" = $((2 * per)) ] || fail "$name on h1:$per,h2:$per: $n of $((2 * per)) PEs report UCX over tcp/hnet0 for the other host"
    pass "$name across h1:$per,h2:$per: VERIFIED ($(($(now_ms) - t0)) ms)"
  done
done
[ -z "$(harness_pids)" ] || fail "processes left in the hosts: $(harness_pids)"
check_no_leftovers "examples_across"
