#!/bin/bash
# A big host with TLS on: 1 PE on h1 (with oshrun and its store) and 200 on h2, every store
# connection TLS 1.3 (the default). 200 handshakes from one address at once used to exceed the
# store's admission limits and fail every PE with "the job secret did not match"; now the store
# makes them wait. The job initialises, counts with an atomic, reduces, checks the values and
# finishes; nothing is left behind.
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${PE_SCALE_CHECK:?set by CTest}"
AG=$HARNESS_AGENT
HARNESS_JOB_TIMEOUT=240
snapshot
harness_up 2
REMOTE=${BIG_HOST_PES:-200}
start=$(now_ms)
harness_exec h1 "exec env SHMEM_BOOTSTRAP_TLS=1 SHMEM_SYMMETRIC_SIZE=1M $OSHRUN --rsh $AG --hosts h1:1,h2:$REMOTE \
  $PE_SCALE_CHECK" >"$WORK/out" 2>"$WORK/err" || { cat "$WORK/out" "$WORK/err" >&2; fail "the job failed"; }
took=$(( $(now_ms) - start ))
n=$((REMOTE + 1))
grep -q "pe_scale_check: $n PEs, counter $n, sum $((n * (n - 1) / 2))" "$WORK/out" ||
  { cat "$WORK/out" "$WORK/err" >&2; fail "PE 0 did not report the expected values"; }
grep -qiE "secret|authentication|FAIL" "$WORK/err" && { cat "$WORK/err" >&2; fail "an error was reported"; }
check_no_leftovers "1 + $REMOTE PEs"
pass "1 + $REMOTE PEs with TLS: initialised, counted, reduced, finished in $took ms"
