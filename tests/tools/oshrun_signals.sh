#!/bin/bash
# oshrun: signals sent to the launcher reach every PE; kill -9 of the launcher takes the PEs.
. "$(dirname "$0")/common.sh"

# start_job N PROGRAM: runs oshrun in the background, waits until every PE printed its pid.
start_job() {
  local n=$1
  shift
  "$OSHRUN" -n "$n" sh -c "$*" >"$WORK/out" 2>"$WORK/err" </dev/null &
  LAUNCHER=$!
  BG_PIDS="$BG_PIDS $LAUNCHER"
  wait_lines "$WORK/out" '^pid=' "$n" 10000 || fail "PEs did not start"
  PE_PIDS=$(sed -n 's/^pid=//p' "$WORK/out")
}

# Job control on: background jobs of a script would otherwise start with SIGINT ignored,
# which oshrun (rightly) keeps ignoring.
set -m
snapshot
for sig in TERM INT HUP; do
  start_job 3 'echo "pid=$$"; exec sleep 30'
  t0=$(now_ms)
  kill -s $sig "$LAUNCHER"
  wait "$LAUNCHER"
  RC=$?
  t=$(( $(now_ms) - t0 ))
  expected=$(( 128 + $(kill -l $sig) ))
  expect_rc $expected "SIG$sig to oshrun"
  [ "$t" -lt 5000 ] || fail "SIG$sig: took ${t} ms (hang guard)"
  # shellcheck disable=SC2086
  wait_gone 2000 $PE_PIDS || fail "SIG$sig: PEs still running"
  pass "SIG$sig forwarded, exit $RC (${t} ms)"
done

# PEs that ignore the forwarded signal are killed after the grace period.
start_job 2 'trap "" TERM; echo "pid=$$"; while :; do sleep 0.05; done'
t0=$(now_ms)
kill -TERM "$LAUNCHER"
wait "$LAUNCHER"
RC=$?
t=$(( $(now_ms) - t0 ))
expect_rc 143 "SIGTERM, PEs ignoring it"
[ "$t" -lt 5000 ] || fail "SIGTERM ignored by PEs: took ${t} ms (hang guard)"
# shellcheck disable=SC2086
wait_gone 2000 $PE_PIDS || fail "SIGTERM ignored by PEs: PEs still running"
pass "PEs ignoring SIGTERM are killed (${t} ms)"

# kill -9 of the launcher: the PEs die with it (PR_SET_PDEATHSIG).
start_job 3 'echo "pid=$$"; exec sleep 30'
kill -KILL "$LAUNCHER"
wait "$LAUNCHER" 2>/dev/null
# shellcheck disable=SC2086
wait_gone 3000 $PE_PIDS || fail "kill -9 oshrun: PEs survived"
pass "kill -9 of oshrun takes the PEs"
check_no_leftovers "signals"
