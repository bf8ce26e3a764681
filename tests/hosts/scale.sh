#!/bin/bash
# Jobs of many PEs across hosts (issue 30): 257 PEs on one host and 1 on another (past the old
# limit of 256 PEs per host in a team that spans hosts), 1 + 200 (200 TLS handshakes from one
# address at once, which the store used to turn into "the job secret did not match"), and 16
# hosts x 4 PEs. Each initialises, counts with an atomic, agrees through collectives on the
# world team, a split team and an active set (pe_scale), and finishes. TLS on (the default);
# small heaps; oshrun raises the open-file limits.
#   scale.sh 257-1 | 1-200 | 16x4
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${PE_SCALE:?set by CTest}"
AG=$HARNESS_AGENT
ENVS="SHMEM_SYMMETRIC_SIZE=1M SHMEM_PROGRESS_THREAD=off ${SCALE_ENV:-}"
case "$1" in
  257-1) harness_up 2; HOSTS=h1:257,h2:1; NPES=258 ;;
  1-200) harness_up 2; HOSTS=h1:1,h2:200; NPES=201 ;;
  16x4)
    harness_up 16
    HOSTS=$(for i in $(seq 1 16); do printf 'h%d:4,' "$i"; done)
    HOSTS=${HOSTS%,}
    NPES=64
    ;;
  *) fail "usage: scale.sh 257-1|1-200|16x4" ;;
esac
HARNESS_JOB_TIMEOUT=${SCALE_JOB_TIMEOUT:-240}
t0=$(now_ms)
run harness_exec h1 "ulimit -Sn \$(ulimit -Hn); exec env $ENVS $OSHRUN --rsh $AG --hosts $HOSTS $PE_SCALE"
ms=$(($(now_ms) - t0))
[ "$RC" = 0 ] || { tail -n 40 "$WORK/out" "$WORK/err"; fail "$NPES PEs on $HOSTS: status $RC after $ms ms"; }
expect_out "pe_scale: $NPES PEs, the counter and every collective exact" "$NPES PEs on $HOSTS"
pass "$NPES PEs on $HOSTS: initialised, counted and collected exactly, finished ($ms ms)"
