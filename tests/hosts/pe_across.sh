#!/bin/bash
# The host-agnostic multi-PE programs of tests/pe (every RMA/AMO/signal/wait/lock family and
# type, ordering, heap and static data, shmem_ptr and SHMEM_TEAM_SHARED per host, a PE busy
# computing) across namespace hosts, over UCX's TCP transport.
#   pe_across.sh LAUNCH LAYOUT
#     LAUNCH  oshrun    oshrun on h1 with --hosts and the harness agent
#             torchrun  every PE started by the agent with RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT
#     LAYOUT  PEs per host, e.g. 2,2 (2 hosts x 2 PEs), 1,1,1,1 (4 hosts x 1 PE) or 1,2,1
# PE_PROGRAMS (from CTest) lists the programs; ACROSS_PROGRAMS, when set, replaces it (the
# collectives, teams and contexts programs of tests/coll) and ACROSS_ENV (VAR=VALUE ...) is
# added to every job's environment (e.g. SHMEM_COLL_XHOST_ALGO=ring). Each run must exit 0 (the programs check their
# values), and one run per layout must report UCX over the hosts' interface for its remote
# peers and the right number of node-local PEs.
# Every job runs under a hang guard of 120 s (pe_lock and pe_order took up to ~35 s across 4
# hosts on a loaded 2-core machine before the remote lock and fence work; 2-3 s now).
export HARNESS_JOB_TIMEOUT=${HARNESS_JOB_TIMEOUT:-120}
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${PE_PROGRAMS:?set by CTest}"
programs=${ACROSS_PROGRAMS:-$PE_PROGRAMS}
read -ra across_env <<<"${ACROSS_ENV:-}"
launch=${1:?launch mode}
IFS=, read -ra per <<<"${2:?layout}"
nhosts=${#per[@]}
npes=0
hostlist=""
for i in "${!per[@]}"; do
  npes=$((npes + per[i]))
  hostlist+="${hostlist:+,}h$((i + 1)):${per[i]}"
done
snapshot
harness_up "$nhosts"
H1=$(harness_addr h1)

# run_job [VAR=VALUE...] -- PROGRAM: the whole job; status in $RC, output in $WORK/out, $WORK/err.
run_job() {
  local envs="" w e
  for e in "${across_env[@]}"; do envs+=" '$e'"; done
  while [ "$1" != -- ]; do envs+=" '$1'"; shift; done
  shift
  if [ "$launch" = oshrun ]; then
    run harness_exec h1 "exec env$envs $OSHRUN --rsh $HARNESS_AGENT --hosts $hostlist $*"
  else
    local port=$((20000 + RANDOM % 20000)) secret pids=() r=0 h k
    secret=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    : >"$WORK/out"
    : >"$WORK/err"
    for h in "${!per[@]}"; do
      for ((k = 0; k < per[h]; k++)); do
        harness_exec "h$((h + 1))" "exec env$envs RANK=$r WORLD_SIZE=$npes MASTER_ADDR=$H1 MASTER_PORT=$port \
          SHMEM_JOB_SECRET=$secret $*" >>"$WORK/out" 2>>"$WORK/err" &
        pids+=($!)
        r=$((r + 1))
      done
    done
    RC=0
    for w in "${pids[@]}"; do wait "$w" || RC=$?; done
  fi
  [ "$RC" != 124 ] || fail "$*: still running after $HARNESS_JOB_TIMEOUT s (hang guard)"
}

# The transport each PE reports: every PE of host hI has per[I-1] node-local PEs and the rest
# over UCX's TCP transport on hnet0.
first=${programs%% *}
run_job SHMEM_LOG_LEVEL=INFO -- "$first"
expect_rc 0 "$(basename "$first") on $hostlist ($launch)"
for i in "${!per[@]}"; do
  want="PE [0-9]+ on host 'h$((i + 1))': ${per[i]} node-local PEs? over shared memory, $((npes - per[i])) remote over ucx [0-9.]+: tcp/hnet0"
  n=$(grep -cE "$want" "$WORK/err" || true)
  [ "$n" = "${per[i]}" ] || fail "$hostlist ($launch): expected ${per[i]} PE(s) on h$((i + 1)) to report /$want/, saw $n"
done
pass "$hostlist ($launch${ACROSS_ENV:+, $ACROSS_ENV}): every PE reports its node-local PEs and UCX over tcp/hnet0 for the others"

for prog in $programs; do
  t0=$(now_ms)
  run_job -- "$prog"
  if [ "$RC" != 0 ]; then
    head -c 3000 "$WORK/err" >&2
    fail "$(basename "$prog") on $hostlist ($launch): exit status $RC"
  fi
  pass "$(basename "$prog") on $hostlist ($launch) ($(( $(now_ms) - t0 )) ms)"
done

# Without the progress thread, programs that wait and poll through the library still work
# (their waits drive the transport).
for prog in $programs; do
  case "$(basename "$prog")" in pe_wait | pe_lock | pe_signal | coll_team_coll) ;; *) continue ;; esac
  run_job SHMEM_PROGRESS_THREAD=off -- "$prog"
  expect_rc 0 "$(basename "$prog") on $hostlist ($launch) with SHMEM_PROGRESS_THREAD=off"
  pass "$(basename "$prog") on $hostlist ($launch) with SHMEM_PROGRESS_THREAD=off"
done
[ -z "$(harness_pids)" ] || fail "processes left in the hosts: $(harness_pids)"
check_no_leftovers "pe_across $launch $hostlist"
