#!/bin/bash
# oshrun's open-file budget: 40 PEs on another host from an oshrun whose soft limit is 150
# (each remote PE costs oshrun about five descriptors: oshrun raises the soft limit up to the
# hard one before it starts the store). The job initialises, counts with an atomic, agrees
# through a reduction and finishes; a hard limit too low is named in a warning.
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${PE_LINK_SOAK:?set by CTest}"
AG=$HARNESS_AGENT
harness_up 2
NREMOTE=40
ENVS="SHMEM_SYMMETRIC_SIZE=8M SHMEM_PROGRESS_THREAD=off"
soak="$PE_LINK_SOAK $WORK/no-stop-file $WORK/progress 3"

run harness_exec h1 "ulimit -Sn 150; exec env $ENVS $OSHRUN --rsh $AG --hosts h1:1,h2:$NREMOTE $soak"
[ "$RC" = 0 ] || { cat "$WORK/out" "$WORK/err"; fail "1 + $NREMOTE PEs under a soft limit of 150: status $RC"; }
expect_out "3 rounds on $((NREMOTE + 1)) PEs, every block and the counter exact" "1 + $NREMOTE PEs"
pass "1 + $NREMOTE PEs from an oshrun under a soft limit of 150 open files"

# A hard limit below the need: oshrun says so, naming the limit (the job may still fit).
run harness_exec h1 "ulimit -n 120; exec env $ENVS $OSHRUN --rsh $AG --hosts h1:1,h2:20 $soak"
expect_err "oshrun needs about 169 open files" "hard limit 120"
expect_err "hard limit is 120 \\(ulimit -Hn\\)" "hard limit 120"
pass "a hard limit too low is named (status $RC)"
