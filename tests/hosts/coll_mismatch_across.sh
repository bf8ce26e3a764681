#!/bin/bash
# Mismatched collectives across namespace hosts (issue 32, item 2; core/coll_check.hpp): with
# PEs on h1 and h2 (2 x 2, and 1 x 1 where every peer is on the other host), the PE that waits
# reads the other host's PEs' call lines through the transport and the job ends naming each
# PE's call: different routines (after SHMEM_COLL_CHECK_AFTER=1), different counts and roots
# (SHMEM_DEBUG=1: across hosts these do not hang, they complete with wrong data), a root's
# broadcast against barrier_all and a barrier skipped before finalize; a late PE that makes the
# same calls is not reported. COLL_MISMATCH is set by CTest.
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${COLL_MISMATCH:?set by CTest}"
snapshot
harness_up 2

on_h1() {
  local line="exec env $1 $OSHRUN --rsh $HARNESS_AGENT --hosts ${HOSTS:-h1:2,h2:2} '$COLL_MISMATCH' $2"
  run harness_exec h1 "$line"
  [ "$RC" != 124 ] || fail "coll_mismatch $2: still running after $HARNESS_JOB_TIMEOUT s (hang guard)"
}

check_case() {  # ENV MODE ERE
  t0=$(now_ms)
  on_h1 "$1" "$2"
  [ "$RC" != 0 ] || fail "$2 across hosts: exit status 0, expected non-zero"
  expect_err "$3" "$2 across hosts"
  grep -q "NOT STOPPED" "$WORK/out" && fail "$2 across hosts: a PE went on"
  pass "$2 across hosts (${HOSTS:-h1:2,h2:2}): the job ends naming each call ($(( $(now_ms) - t0 )) ms)"
}

check_case SHMEM_COLL_CHECK_AFTER=1 routine \
  "PE [0-9]+ is in shmem_(long_sum_reduce\(team=WORLD, nreduce=4\)|barrier_all\(\)) while PE [0-9]+ is in shmem_(barrier_all|long_sum_reduce)"
HOSTS=h1:1,h2:1 check_case SHMEM_COLL_CHECK_AFTER=1 routine \
  "PE [0-9]+ is in shmem_(long_sum_reduce\(team=WORLD, nreduce=4\)|barrier_all\(\)) while PE [0-9]+ is in shmem_(barrier_all|long_sum_reduce)"
HOSTS=h1:1,h2:1 check_case SHMEM_DEBUG=1 count \
  "is in shmem_long_sum_reduce\(team=WORLD, nreduce=(4|8)\) while PE [0-9]+ is in shmem_long_sum_reduce\(team=WORLD, nreduce=(8|4)\)"
check_case SHMEM_DEBUG=1 count \
  "is in shmem_long_sum_reduce\(team=WORLD, nreduce=(4|8)\) while PE [0-9]+ is in shmem_long_sum_reduce\(team=WORLD, nreduce=(8|4)\)"
check_case SHMEM_DEBUG=1 root \
  "is in shmem_long_broadcast\(team=WORLD, nelems=4, PE_root=(0|1)\) while PE [0-9]+ is in shmem_long_broadcast\(team=WORLD, nelems=4, PE_root=(1|0)\)"

# A root's broadcast (it pushes and leaves) against barrier_all, and a barrier skipped before
# finalize: the waiting PE reads the other host's line through the transport.
HOSTS=h1:1,h2:1 check_case SHMEM_COLL_CHECK_AFTER=1 bcast_barrier \
  "PE 1 is in shmem_barrier_all\(\) while PE 0 made shmem_long_broadcast\(team=WORLD, nelems=4, PE_root=0\) in its place and left it"
HOSTS=h1:1,h2:1 check_case SHMEM_COLL_CHECK_AFTER=1 skip_finalize \
  "PE 1 is in shmem_barrier_all\(\) \(its call 2 on WORLD\), which PE 0 never made: PE 0 is in finalize"
check_case SHMEM_COLL_CHECK_AFTER=1 skip_finalize \
  "PE [1-3] is in shmem_barrier_all\(\) \(its call 2 on WORLD\), which PE 0 never made: PE 0 is in finalize"

on_h1 SHMEM_COLL_CHECK_AFTER=1 slow
expect_rc 0 "slow across hosts"
grep -q "mismatched collectives" "$WORK/err" && fail "slow across hosts: an agreeing late PE was reported"
pass "a late PE in agreeing calls across hosts is not reported"

# A split whose PEs pass different triplets fails at once on every PE (Team::and_words through
# the host leaders, then the arguments' allgather across hosts), and agreeing splits work after.
t0=$(now_ms)
on_h1 SHMEM_WAIT_TIMEOUT=20 split_args
expect_rc 0 "split_args across hosts"
expect_err "parent PE 0 \(world PE 0\) passed \(start=0, stride=1, size=4\), parent PE 1 \(world PE 1\) passed \(start=1, stride=1, size=3\)" "split_args across hosts"
pass "mismatched split arguments across hosts: refused on every PE, both named ($(( $(now_ms) - t0 )) ms)"

[ -z "$(harness_pids)" ] || fail "processes left in the hosts: $(harness_pids)"
check_no_leftovers "coll_mismatch_across"
