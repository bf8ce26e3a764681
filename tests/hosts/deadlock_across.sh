#!/bin/bash
# Deadlocks between waits across namespace hosts (core/deadlock.hpp): with PEs on h1 and h2
# (1 x 1, where every peer is on the other host, and 2 x 2), the checking PE reads the other
# host's PEs' lines through the transport, and each PE's beat follows a quiet of its operations:
# PE 0 in shmem_barrier_all while the others wait for a flag it sets after it, and PE 0 in
# finalize while the others wait for a signal, end the job naming where each PE waits; a PE that
# computes for 3.5 s (SHMEM_COLL_CHECK_AFTER=1) and then sets the others' flags across the hosts
# is not reported; with SHMEM_WAIT_TIMEOUT shorter than the check, the PE that times out says
# where the other host's PE waits. PE_DEADLOCK is set by CTest.
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${PE_DEADLOCK:?set by CTest}"
snapshot
harness_up 2

on_h1() {  # MODE
  local line="exec env SHMEM_COLL_CHECK_AFTER=1 ${EXTRA_ENV:-} $OSHRUN --rsh $HARNESS_AGENT --hosts ${HOSTS:-h1:2,h2:2} '$PE_DEADLOCK' $1"
  run harness_exec h1 "$line"
  [ "$RC" != 124 ] || fail "pe_deadlock $1: still running after $HARNESS_JOB_TIMEOUT s (hang guard)"
}

check_case() {  # MODE ERE
  t0=$(now_ms)
  on_h1 "$1"
  [ "$RC" != 0 ] || fail "$1 across hosts: exit status 0, expected non-zero"
  expect_err "deadlock: every PE is waiting and none of them can wake another" "$1 across hosts"
  expect_err "$2" "$1 across hosts"
  grep -q "NOT STOPPED" "$WORK/out" && fail "$1 across hosts: a PE went on"
  pass "$1 across hosts (${HOSTS:-h1:2,h2:2}): the job ends naming where each PE waits ($(( $(now_ms) - t0 )) ms)"
}

HOSTS=h1:1,h2:1 check_case barrier_flag \
  "PE 0 is in shmem_barrier_all\(\); PE 1 is in shmem_int_wait_until on static data \+0x[0-9a-f]+ for == 1, seeing 0"
check_case barrier_flag \
  "PE 0 is in shmem_barrier_all\(\); PEs 1-3 are in shmem_int_wait_until on static data \+0x[0-9a-f]+ for == 1, seeing 0"
HOSTS=h1:1,h2:1 check_case finalize \
  "PE 0 is in finalize; PE 1 is in shmem_signal_wait_until on static data \+0x[0-9a-f]+ for != 0, seeing 0"
check_case cycle "PEs 0-3 are in shmem_long_wait_until on static data \+0x[0-9a-f]+ for >= 1, seeing 0"

# SHMEM_WAIT_TIMEOUT before the check's verdict: the PE that times out says where the PE on the
# other host is, read through the transport (what it waits for, and for how long).
EXTRA_ENV=SHMEM_WAIT_TIMEOUT=2.2 HOSTS=h1:1,h2:1 on_h1 barrier_flag
[ "$RC" != 0 ] || fail "barrier_flag with SHMEM_WAIT_TIMEOUT across hosts: exit status 0"
expect_err "waited past SHMEM_WAIT_TIMEOUT=2.2; where the other PEs are: (PE 1 is in shmem_int_wait_until on static data \+0x[0-9a-f]+ for == 1, seeing 0|PE 0 is in shmem_barrier_all\(\)) \(for [12] s\)" \
  "barrier_flag with SHMEM_WAIT_TIMEOUT across hosts"
pass "a wait past SHMEM_WAIT_TIMEOUT says where the PE on the other host waits"

for hosts in h1:1,h2:1 h1:2,h2:2; do
  HOSTS=$hosts on_h1 late
  expect_rc 0 "late across hosts ($hosts)"
  grep -q "deadlock:" "$WORK/err" && fail "late across hosts ($hosts): a PE that computes was reported"
  pass "a PE that computes, then wakes the others across hosts, is not reported ($hosts)"
done

[ -z "$(harness_pids)" ] || fail "processes left in the hosts: $(harness_pids)"
check_no_leftovers "deadlock_across"
