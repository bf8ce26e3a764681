#!/bin/bash
# A host that disappears ends the whole job, with a message naming a lost PE and its host, and
# leaves nothing behind: every process of h2 killed with SIGKILL (the job ends within 5 s), and
# h2's link taken down for good (no reset ever arrives: keepalive must notice; the job ends
# within SHMEM_HOST_TIMEOUT, 3 s here, plus 5 s), under oshrun and torchrun-style.
# The PEs wait in a barrier (pe_fail barrier-timeout: PE 0 never arrives) with
# SHMEM_WAIT_TIMEOUT=60, so the end comes from the loss, not from the watchdog; once more with
# the PEs waiting in a sum reduction (pe_fail reduce-wait), link down under oshrun. Under oshrun
# h2's agent, which relays its PEs' store connections, says once for the host that the store's
# host stopped answering.
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${PE_FAIL:?set by CTest}"
AG=$HARNESS_AGENT
HOST_TIMEOUT=3
snapshot
harness_up 2
H1=$(harness_addr h1)
H2=$(harness_addr h2)

# start_job LAUNCH: 2 PEs on h1, 2 on h2, in the background; waits (bounded) until all four run.
start_job() {
  : >"$WORK/out"
  : >"$WORK/err"
  rm -rf "$WORK/ready" && mkdir "$WORK/ready"
  if [ "$1" = oshrun ]; then
    harness_exec h1 "exec env PE_FAIL_READY=$WORK/ready SHMEM_WAIT_TIMEOUT=60 SHMEM_HOST_TIMEOUT=$HOST_TIMEOUT $OSHRUN --rsh $AG --hosts h1:2,h2:2 $PE_FAIL $MODE" \
      >>"$WORK/out" 2>>"$WORK/err" &
    JOB=($!)
  else
    local port=$((20000 + RANDOM % 20000)) secret r
    secret=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    JOB=()
    for r in 0 1 2 3; do
      harness_exec "h$((r / 2 + 1))" "exec env PE_FAIL_READY=$WORK/ready SHMEM_WAIT_TIMEOUT=60 SHMEM_HOST_TIMEOUT=$HOST_TIMEOUT RANK=$r WORLD_SIZE=4 MASTER_ADDR=$H1 \
        MASTER_PORT=$port SHMEM_JOB_SECRET=$secret $PE_FAIL $MODE" >>"$WORK/out" 2>>"$WORK/err" &
      JOB+=($!)
    done
  fi
  # pe_fail creates ready.<pe> once every PE is past shmem_init (its first barrier).
  wait_until_up
}
wait_until_up() {
  local limit=$(( $(now_ms) + 20000 )) n
  while :; do
    n=$(find "$WORK/ready" -name 'ready.*' | wc -l)
    [ "$n" -ge 4 ] && return
    [ "$(now_ms)" -lt "$limit" ] || fail "the PEs were not all past shmem_init within 20 s ($n of 4)"
    sleep 0.05
  done
}
# wait_job WHAT T0 BOUND_S: every job process ends within BOUND_S s of T0; sets RC (the first
# non-zero status).
wait_job() {
  local what=$1 t0=$2 p limit=$(( $2 + $3 * 1000 ))
  while :; do
    local alive=0
    for p in "${JOB[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    [ "$(now_ms)" -lt "$limit" ] || fail "$what: the job still runs $3 s after the loss"
    sleep 0.02
  done
  T=$(( $(now_ms) - t0 ))
  RC=0
  for p in "${JOB[@]}"; do wait "$p" || { [ "$RC" != 0 ] || RC=$?; }; done
}
kill_h2() { ip netns pids "$(harness_ns h2)" | xargs -r kill -9; }
link_down_h2() { harness_link h2 down; }
link_up_h2() { harness_link h2 up; }

for launch in oshrun torchrun oshrun-reduce; do
  for loss in kill_h2 link_down_h2; do
    MODE=barrier-timeout
    if [ "$launch" = oshrun-reduce ]; then
      [ "$loss" = link_down_h2 ] || continue
      MODE=reduce-wait
    fi
    start_job "${launch%-reduce}"
    t0=$(now_ms)
    $loss
    bound=5
    [ "$loss" = link_down_h2 ] && bound=$((HOST_TIMEOUT + 5))
    wait_job "$launch, $loss" "$t0" "$bound"
    [ "$RC" != 0 ] || fail "$launch, $loss: the job reported success"
    grep -qE "PE [23]\b.*(h2|lost|gone)|h2.*PE [23]\b" "$WORK/err" ||
      { cat "$WORK/err" >&2; fail "$launch, $loss: no message names a PE of h2"; }
    grep -q "timed out after" "$WORK/err" && fail "$launch, $loss: ended by SHMEM_WAIT_TIMEOUT, not by the loss"
    # A silent link is named as such, on both sides of it.
    if [ "$loss" = link_down_h2 ]; then
      grep -q "no reply from its host ($H2:.*SHMEM_HOST_TIMEOUT\|no reply from $H2 for $HOST_TIMEOUT s" "$WORK/err" ||
        { cat "$WORK/err" >&2; fail "$launch: no message names the silent host and SHMEM_HOST_TIMEOUT"; }
      grep -q "no reply from the host of the bootstrap store" "$WORK/err" ||
        { cat "$WORK/err" >&2; fail "$launch: h2's PEs do not say that the store's host stopped answering"; }
      if [ "${launch%-reduce}" = oshrun ]; then
        # Under oshrun h2's agent relays its PEs' store connections: it says so once for the host.
        n=$(grep -c "^oshrun (host h2): no reply from the host of the bootstrap store" "$WORK/err")
        [ "$n" = 1 ] || { cat "$WORK/err" >&2; fail "$launch: h2's agent said $n times that the store's host stopped answering (once expected)"; }
      fi
    fi
    [ "$loss" = link_down_h2 ] && link_up_h2
    limit=$(( $(now_ms) + 5000 ))
    while [ -n "$(harness_pids)" ]; do
      [ "$(now_ms)" -lt "$limit" ] || fail "$launch, $loss: processes left in the hosts: $(harness_pids | tr '\n' ' ')"
      sleep 0.02
    done
    check_no_leftovers "$launch, $loss"
    pass "$launch, $loss: the job ended in $T ms (status $RC), naming the lost PEs' host; nothing left"
  done
done
