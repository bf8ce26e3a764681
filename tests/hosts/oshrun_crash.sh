#!/bin/bash
# Failures on remote namespace hosts end the job with a clear message and leave nothing behind
# (no process in any host, nothing in /dev/shm or /tmp): a shmem PE crashing on a remote host
# (pe_fail crash segv), a plain PE crashing on a remote host while others run on h1, an
# unreachable host, and kill -9 of the launcher with every PE on another host.
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${PE_FAIL:?set by CTest}"
AG=$HARNESS_AGENT
snapshot
harness_up 2

on_h1() {
  local line="exec $OSHRUN --rsh $AG" w
  for w in "$@"; do line+=" '$w'"; done
  run harness_exec h1 "$line"
  [ "$RC" != 124 ] || fail "oshrun $*: still running after $HARNESS_JOB_TIMEOUT s (hang guard)"
}
no_processes_left() {
  local limit=$(( $(now_ms) + 3000 ))
  while [ -n "$(harness_pids)" ]; do
    [ "$(now_ms)" -ge "$limit" ] && fail "$1: processes left in the hosts: $(harness_pids | tr '\n' ' ')"
    sleep 0.02
  done
}

# A shmem PE segfaults on h2 while the other waits in a barrier (oshrun on h1).
t0=$(now_ms)
on_h1 --hosts h2:2 "$PE_FAIL" crash segv
t=$(( $(now_ms) - t0 ))
expect_rc 139 "shmem PE crash on h2"
expect_err "^oshrun: PE 1 \(host h2\) killed by signal 11 \(Segmentation fault\)$" "shmem PE crash on h2"
grep -q "NOT STOPPED" "$WORK/out" "$WORK/err" && fail "shmem PE crash on h2: a PE went on"
[ "$t" -lt 10000 ] || fail "shmem PE crash on h2: took ${t} ms (hang guard)"
no_processes_left "shmem PE crash on h2"
check_no_leftovers "shmem PE crash on h2"
pass "a shmem PE crashing on a remote host ends the job (${t} ms), nothing left"

# shmem_global_exit(7) from a PE on h2 ends every PE there with status 7, and no failure report.
t0=$(now_ms)
on_h1 --hosts h2:2 "$PE_FAIL" global-exit
t=$(( $(now_ms) - t0 ))
expect_rc 7 "global exit on h2"
grep -q "NOT STOPPED" "$WORK/out" "$WORK/err" && fail "global exit on h2: a PE went on"
grep -q "^oshrun:" "$WORK/err" && fail "global exit on h2: unexpected report: $(grep '^oshrun:' "$WORK/err")"
[ "$t" -lt 10000 ] || fail "global exit on h2: took ${t} ms (hang guard)"
no_processes_left "global exit on h2"
pass "shmem_global_exit(7) on a remote host ends the job with 7 (${t} ms)"

# A plain PE on h2 crashes while PEs on h1 and h2 run.
t0=$(now_ms)
on_h1 --hosts h1:2,h2:2 sh -c '[ "$SHMEM_PE" = 2 ] && kill -SEGV $$; exec sleep 30'
t=$(( $(now_ms) - t0 ))
expect_rc 139 "plain PE crash on h2"
expect_err "^oshrun: PE 2 \(host h2\) killed by signal 11 \(Segmentation fault\)$" "plain PE crash on h2"
[ "$t" -lt 8000 ] || fail "plain PE crash on h2: took ${t} ms (hang guard)"
no_processes_left "plain PE crash on h2"
check_no_leftovers "plain PE crash on h2"
pass "a PE crashing on a remote host ends PEs on every host (${t} ms)"

# A host that is not there: the agent fails (255) and the job ends, naming the host.
t0=$(now_ms)
on_h1 --hosts h1,h2,h7 sh -c 'exec sleep 30'
t=$(( $(now_ms) - t0 ))
expect_rc 255 "unreachable host"
expect_err "harness-agent: h7: no such host" "unreachable host"
expect_err "^oshrun: PE 2 \(host h7\) lost: the agent exited with status 255" "unreachable host"
[ "$t" -lt 8000 ] || fail "unreachable host: took ${t} ms (hang guard)"
no_processes_left "unreachable host"
pass "an unreachable host ends the job naming it (${t} ms)"

# kill -9 of oshrun (on h1) while its PEs run on h2: their stubs see stdin close and end them.
"$AG" h1 "exec $OSHRUN --rsh $AG --hosts h2:2 sh -c 'echo pid=\$\$; exec sleep 30'" \
  >"$WORK/out" 2>"$WORK/err" </dev/null &
LAUNCHER=$!
BG_PIDS="$BG_PIDS $LAUNCHER"
wait_lines "$WORK/out" '^pid=' 2 10000 || fail "kill -9: PEs did not start"
PE_PIDS=$(sed -n 's/^pid=//p' "$WORK/out")
kill -KILL "$LAUNCHER"
wait "$LAUNCHER" 2>/dev/null
# shellcheck disable=SC2086
wait_gone 5000 $PE_PIDS || fail "kill -9 of oshrun: PEs on h2 survived"
no_processes_left "kill -9 of oshrun"
check_no_leftovers "kill -9 of oshrun"
pass "kill -9 of oshrun ends its PEs on the other host"
