#!/bin/bash
# oshrun's open-file budget. oshrun starts one agent per remote host, and the agent relays its
# PEs' store connections on one of its own, so a remote PE costs oshrun nothing; oshrun raises the soft
# limit to its need, up to the hard one, before it starts the store. Checked: 40 PEs on another
# host under a soft limit of 150; 100 PEs on 4 other hosts (25 each) from an oshrun under
# `ulimit -n 256` (soft and hard), with no warning from oshrun; each job initialises, counts
# with an atomic, agrees through a reduction and finishes. A hard limit too low is named in a
# warning, by oshrun and by the host agent.
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${PE_LINK_SOAK:?set by CTest}"
AG=$HARNESS_AGENT
harness_up 5
ENVS="SHMEM_SYMMETRIC_SIZE=8M SHMEM_PROGRESS_THREAD=off"
soak="$PE_LINK_SOAK $WORK/no-stop-file $WORK/progress 3"

NREMOTE=40
run harness_exec h1 "ulimit -Sn 150; exec env $ENVS $OSHRUN --rsh $AG --hosts h1:1,h2:$NREMOTE $soak"
[ "$RC" = 0 ] || { cat "$WORK/out" "$WORK/err"; fail "1 + $NREMOTE PEs under a soft limit of 150: status $RC"; }
expect_out "3 rounds on $((NREMOTE + 1)) PEs, every block and the counter exact" "1 + $NREMOTE PEs"
pass "1 + $NREMOTE PEs from an oshrun under a soft limit of 150 open files"

# 100 remote PEs under ulimit -n 256 (issue 30, item 7). oshrun needs 5 (its PE: pipes and its
# store socketpair) + 4 x 3 (the agents) + 4 (their store connections) + 32 = 53. The PEs inherit the limit here (the harness
# agent keeps it, where ssh would give the remote host's own), hence 25 PEs a host: each PE
# warns that UCX would like more for its remote peers, and fits.
HARNESS_JOB_TIMEOUT=150 run harness_exec h1 "ulimit -n 256; exec env $ENVS $OSHRUN --rsh $AG --hosts h1:1,h2:25,h3:25,h4:25,h5:25 $soak"
[ "$RC" = 0 ] || { cat "$WORK/out" "$WORK/err"; fail "1 + 100 PEs under ulimit -n 256: status $RC"; }
expect_out "3 rounds on 101 PEs, every block and the counter exact" "1 + 100 PEs under ulimit -n 256"
grep -q "oshrun.*needs about" "$WORK/err" && fail "1 + 100 PEs under ulimit -n 256: $(grep "oshrun.*needs about" "$WORK/err")"
pass "1 + 100 remote PEs (4 hosts x 25) from an oshrun under ulimit -n 256"

# A hard limit below the need: oshrun (5 + 3 + 1 + 32 = 41) and the agent on h2 (20 x 3 + 32 =
# 92: per PE its output pipes and its end of the store relay) say so, naming the limit.
run harness_exec h1 "ulimit -n 40; exec env $ENVS $OSHRUN --rsh $AG --hosts h1:1,h2:20 $soak"
expect_err "^oshrun: warning: oshrun needs about 41 open files" "hard limit 40"
expect_err "oshrun needs about 41 .*hard limit is 40 \\(ulimit -Hn\\)" "hard limit 40"
expect_err "^oshrun \\(host h2\\): warning: oshrun on host h2 needs about 92 open files .*hard limit is 40" "hard limit 40"
pass "a hard limit too low is named by oshrun and by the host agent (status $RC)"
