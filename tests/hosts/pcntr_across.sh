#!/bin/bash
# shmemx_pcntr_* across namespace hosts (one PE on h1, one on h2): the puts and non-fetching AMOs
# to the other host complete at quiet (tests/api/api_pcntr.c checks issued and completed after
# it), and with SHMEM_PCNTR_TARGET=1 the target count arrives as an atomic add through the
# transport. API_PCNTR is set by CTest.
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${API_PCNTR:?set by CTest}"
snapshot
harness_up 2

for mode in plain target; do
  envs=""
  [ "$mode" = target ] && envs="SHMEM_PCNTR_TARGET=1"
  run harness_exec h1 "exec env $envs $OSHRUN --rsh $HARNESS_AGENT --hosts h1:1,h2:1 '$API_PCNTR' $mode"
  expect_rc 0 "api_pcntr $mode across hosts"
  expect_out "api_pcntr( target)?: OK" "api_pcntr $mode across hosts"
  pass "pcntr counts across hosts ($mode)"
done

[ -z "$(harness_pids)" ] || fail "processes left in the hosts: $(harness_pids)"
check_no_leftovers "pcntr_across"
