#!/bin/bash
# A network outage shorter than SHMEM_HOST_TIMEOUT is survived with data exact: 2 PEs on h1 and
# 2 on h2 move 64 KiB blocks, atomics and reductions round after round (pe_link_soak) while
# h2's cable is pulled for 4 s and plugged back, under oshrun and torchrun-style. The job must
# carry on after the outage (its round count grows) and finish with every block and the
# counter exact. SHMEM_HOST_TIMEOUT=20 here; tests/hosts/host_loss.sh checks that a link that
# stays down ends the job after the timeout.
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${PE_LINK_SOAK:?set by CTest}"
AG=$HARNESS_AGENT
snapshot
harness_up 2
H1=$(harness_addr h1)
ENVS="SHMEM_HOST_TIMEOUT=20 SHMEM_WAIT_TIMEOUT=60"

progress() { cat "$WORK/progress" 2>/dev/null || echo 0; }
# wait_rounds N LIMIT_S WHAT: until PE 0 has finished N rounds, at most LIMIT_S seconds.
wait_rounds() {
  local limit=$(( $(now_ms) + $2 * 1000 ))
  while [ "$(progress)" -lt "$1" ]; do
    for p in "${JOB[@]}"; do kill -0 "$p" 2>/dev/null ||
      { cat "$WORK/err" >&2; fail "$3: a process of the job ended (round $(progress))"; }; done
    [ "$(now_ms)" -lt "$limit" ] || fail "$3: round $1 not reached within $2 s (at $(progress))"
    sleep 0.05
  done
}

for launch in oshrun torchrun; do
  rm -f "$WORK/stop" "$WORK/progress"
  : >"$WORK/out"
  : >"$WORK/err"
  args="$PE_LINK_SOAK $WORK/stop $WORK/progress"
  if [ "$launch" = oshrun ]; then
    harness_exec h1 "exec env $ENVS $OSHRUN --rsh $AG --hosts h1:2,h2:2 $args" >>"$WORK/out" 2>>"$WORK/err" &
    JOB=($!)
  else
    port=$((20000 + RANDOM % 20000))
    secret=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    JOB=()
    for r in 0 1 2 3; do
      harness_exec "h$((r / 2 + 1))" "exec env $ENVS RANK=$r WORLD_SIZE=4 MASTER_ADDR=$H1 MASTER_PORT=$port \
        SHMEM_JOB_SECRET=$secret $args" >>"$WORK/out" 2>>"$WORK/err" &
      JOB+=($!)
    done
  fi
  wait_rounds 5 30 "$launch, before the outage"
  harness_link h2 down
  before=$(progress)
  sleep 4  # the outage itself (fault injection, not synchronisation)
  harness_link h2 up
  at_up=$(progress)
  wait_rounds $((at_up + 20)) 40 "$launch, after the outage"
  touch "$WORK/stop"
  limit=$(( $(now_ms) + 20000 ))
  while :; do
    alive=0
    for p in "${JOB[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    [ "$(now_ms)" -lt "$limit" ] || fail "$launch: the job still runs 20 s after it was told to stop"
    sleep 0.05
  done
  rc=0
  for p in "${JOB[@]}"; do wait "$p" || rc=$?; done
  [ "$rc" = 0 ] || { cat "$WORK/out" "$WORK/err" >&2; fail "$launch: the job failed (status $rc)"; }
  grep -q "every block and the counter exact" "$WORK/out" ||
    { cat "$WORK/out" "$WORK/err" >&2; fail "$launch: no exact-result line"; }
  grep -q "FAIL" "$WORK/err" && { cat "$WORK/err" >&2; fail "$launch: a check failed"; }
  check_no_leftovers "$launch"
  pass "$launch: 4 s outage at round $before (round $at_up when it came back) survived; $(progress) rounds, exact"
done
