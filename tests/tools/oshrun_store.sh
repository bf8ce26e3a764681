#!/bin/bash
# oshrun with PEs that use its bootstrap store: authentication with the per-job secret,
# and the store-driven paths (missing finalize, lost connection, global exit).
. "$(dirname "$0")/common.sh"
: "${STORE_PROBE:?set by CTest}"

snapshot
for tls in 1 0; do
  run env SHMEM_BOOTSTRAP_TLS=$tls "$OSHRUN" -n 4 "$STORE_PROBE" ok
  expect_rc 0 "probe ok (TLS=$tls)"
  for pe in 0 1 2 3; do
    expect_out "^pe=$pe peer=$(( (pe + 1) % 4 * 10 ))\$" "probe ok (TLS=$tls)"
  done
  [ -s "$WORK/err" ] && fail "probe ok (TLS=$tls): unexpected stderr"
  pass "PEs authenticate and exchange keys (SHMEM_BOOTSTRAP_TLS=$tls)"
done

# Exit 0 after connecting but without goodbye = shmem_finalize was skipped.
t0=$(now_ms)
run "$OSHRUN" -n 2 "$STORE_PROBE" no-goodbye
t=$(( $(now_ms) - t0 ))
[ "$RC" != 0 ] || fail "no-goodbye: exit status 0"
expect_err '^oshrun: PE [01] \(pid [0-9]+\) lost before shmem_finalize' "no-goodbye"
[ "$(grep -c '^oshrun:' "$WORK/err")" = 1 ] || fail "no-goodbye: expected exactly one message"
[ "$t" -lt 5000 ] || fail "no-goodbye: took ${t} ms (hang guard)"
pass "exit without finalize reported (${t} ms)"

# A PE drops its store connection but keeps running: reported as lost, job ended.
t0=$(now_ms)
run "$OSHRUN" -n 3 "$STORE_PROBE" lost-alive
t=$(( $(now_ms) - t0 ))
expect_rc 1 "lost-alive"
expect_err '^oshrun: PE 1 \(pid [0-9]+\) lost before shmem_finalize: ' "lost-alive"
[ "$t" -lt 5000 ] || fail "lost-alive: took ${t} ms (hang guard)"
PE_PIDS=$(sed -n 's/^pid=//p' "$WORK/out")
# shellcheck disable=SC2086
wait_gone 2000 $PE_PIDS || fail "lost-alive: PEs still running"
pass "lost connection reported, PEs ended (${t} ms)"

# A PE killed while connected: the exit status names the signal (not just "lost").
run "$OSHRUN" -n 3 "$STORE_PROBE" crash
expect_rc 137 "crash"
expect_err '^oshrun: PE 1 \(pid [0-9]+\) killed by signal 9' "crash"
[ "$(grep -c '^oshrun:' "$WORK/err")" = 1 ] || fail "crash: expected exactly one message"
pass "PE killed while connected"

# shmem_global_exit(7): the job ends with 7 at once, without a failure report.
t0=$(now_ms)
run "$OSHRUN" -n 3 "$STORE_PROBE" global-exit
t=$(( $(now_ms) - t0 ))
expect_rc 7 "global-exit"
grep -qE 'exited with|killed by|lost before' "$WORK/err" && fail "global-exit: reported as a failure"
[ "$t" -lt 5000 ] || fail "global-exit: took ${t} ms (hang guard)"
PE_PIDS=$(sed -n 's/^pid=//p' "$WORK/out")
# shellcheck disable=SC2086
wait_gone 2000 $PE_PIDS || fail "global-exit: PEs still running"
pass "global exit ends the job with its status (${t} ms)"
check_no_leftovers "store"
