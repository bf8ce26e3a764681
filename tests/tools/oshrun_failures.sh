#!/bin/bash
# oshrun: exit status propagation, PEs killed by signals, bad usage, unrunnable programs.
. "$(dirname "$0")/common.sh"

snapshot
# One PE exits 3 while the others would sleep: the job ends at once with status 3.
t0=$(now_ms)
run "$OSHRUN" -n 3 sh -c 'if [ "$SHMEM_PE" = 1 ]; then exit 3; fi; exec sleep 30'
t=$(( $(now_ms) - t0 ))
expect_rc 3 "PE exits 3"
expect_err '^oshrun: PE 1 \(pid [0-9]+\) exited with status 3$' "PE exits 3"
[ "$(grep -c '^oshrun:' "$WORK/err")" = 1 ] || fail "PE exits 3: expected exactly one message"
[ "$t" -lt 5000 ] || fail "PE exits 3: took ${t} ms (hang guard)"
check_no_leftovers "PE exits 3"
pass "exit status 3 propagated (${t} ms)"

# A PE killed by a signal: named in the message, the others (sleep 30) ended quickly.
t0=$(now_ms)
# PE 2 crashes once every PE has reported its pid (ready files), so all pids are known.
mkdir "$WORK/ready"
run env READY="$WORK/ready" "$OSHRUN" -n 3 sh -c 'echo "pid=$$"; : >"$READY/$SHMEM_PE"
  if [ "$SHMEM_PE" = 2 ]; then
    while [ "$(ls "$READY" | wc -l)" -lt 3 ]; do sleep 0.01; done
    kill -SEGV $$
  fi
  exec sleep 30'
t=$(( $(now_ms) - t0 ))
[ "$RC" != 0 ] || fail "SIGSEGV: exit status 0"
expect_rc 139 "SIGSEGV"
expect_err '^oshrun: PE 2 \(pid [0-9]+\) killed by signal 11 \(Segmentation fault\)' "SIGSEGV"
[ "$t" -lt 5000 ] || fail "SIGSEGV: took ${t} ms (hang guard)"
PE_PIDS=$(sed -n 's/^pid=//p' "$WORK/out")
[ "$(echo $PE_PIDS | wc -w)" = 3 ] || fail "SIGSEGV: PEs did not all report"
# shellcheck disable=SC2086
wait_gone 2000 $PE_PIDS || fail "SIGSEGV: surviving PEs still running"
check_no_leftovers "SIGSEGV"
pass "PE killed by SIGSEGV, others ended (${t} ms)"

# A PE that ignores SIGTERM is killed after the grace period; still no hang.
t0=$(now_ms)
run "$OSHRUN" -n 2 sh -c 'if [ "$SHMEM_PE" = 0 ]; then exit 5; fi; trap "" TERM; while :; do sleep 0.05; done'
t=$(( $(now_ms) - t0 ))
expect_rc 5 "PE ignoring SIGTERM"
[ "$t" -lt 5000 ] || fail "PE ignoring SIGTERM: took ${t} ms (hang guard)"
pass "SIGKILL after the grace period (${t} ms)"

# Bad usage: exit 2 with a message naming the problem.
usage_case() {
  local pattern=$1
  shift
  run "$OSHRUN" "$@"
  expect_rc 2 "oshrun $*"
  expect_err "$pattern" "oshrun $*"
}
usage_case "missing -n" true
usage_case "'abc'" -n abc true
usage_case "'0'" -n 0 true
usage_case "'-3'" -n -3 true
usage_case "needs a value" -n
usage_case "'--frobnicate'" --frobnicate -n 2 true
usage_case "missing the program" -n 2
usage_case "missing the program" -n 2 --
pass "bad usage exits 2"

# Programs that cannot be executed: exit 127 naming the program; nothing is started.
run "$OSHRUN" -n 2 /no/such/program
expect_rc 127 "missing program"
expect_err "/no/such/program" "missing program"
run "$OSHRUN" -n 2 no-such-program-in-path-xyz
expect_rc 127 "missing program in PATH"
expect_err "no-such-program-in-path-xyz" "missing program in PATH"
printf '#!/bin/sh\necho hi\n' >"$WORK/noexec"
chmod 644 "$WORK/noexec"
run "$OSHRUN" -n 2 "$WORK/noexec"
expect_rc 127 "non-executable file"
expect_err "noexec" "non-executable file"
# Executable but exec fails in the child (bad interpreter): reported the same way.
printf '#!/no/such/interpreter\n' >"$WORK/badinterp"
chmod 755 "$WORK/badinterp"
run "$OSHRUN" -n 2 "$WORK/badinterp"
expect_rc 127 "bad interpreter"
expect_err "badinterp" "bad interpreter"
check_no_leftovers "unrunnable programs"
pass "unrunnable programs exit 127"
