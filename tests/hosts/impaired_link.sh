#!/bin/bash
# A lossy, jittery link is survived with data exact: h2's frames (both ways) pass a userspace
# relay (impair_relay.c) that drops 5 % of them and delays each by 0-20 ms. 2 PEs on h1 and 2
# on h2 run pe_link_soak (64 KiB puts into the right neighbour, an atomic count on PE 0, a
# max-reduction; every value checked) for 40 rounds, under oshrun and torchrun-style (store
# connections cross the impaired link too). The job must finish, exact, with no message about
# a lost PE or host. The relay's own report must show it dropped frames (the impairment was
# real).
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${PE_LINK_SOAK:?set by CTest}"
: "${IMPAIR_RELAY:?set by CTest}"
AG=$HARNESS_AGENT
HARNESS_JOB_TIMEOUT=150
snapshot
harness_up 2
H1=$(harness_addr h1)
export HARNESS_RELAY_LOG=$WORK/relay.log
harness_impair h2 5 20 7
ENVS="SHMEM_HOST_TIMEOUT=30 SHMEM_WAIT_TIMEOUT=120"
ROUNDS=40

for launch in oshrun torchrun; do
  : >"$WORK/out"
  : >"$WORK/err"
  args="$PE_LINK_SOAK $WORK/never $WORK/progress $ROUNDS"
  start=$(now_ms)
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
  rc=0
  for p in "${JOB[@]}"; do wait "$p" || rc=$?; done
  took=$(( $(now_ms) - start ))
  [ "$rc" = 0 ] || { cat "$WORK/out" "$WORK/err" >&2; fail "$launch: the job failed over the impaired link (status $rc)"; }
  grep -q "every block and the counter exact" "$WORK/out" ||
    { cat "$WORK/out" "$WORK/err" >&2; fail "$launch: no exact-result line"; }
  grep -qE "FAIL|lost|no reply" "$WORK/err" && { cat "$WORK/err" >&2; fail "$launch: a check failed or a PE was reported lost"; }
  check_no_leftovers "$launch"
  pass "$launch: $ROUNDS rounds over 5 % loss and 0-20 ms jitter in $took ms, exact"
done
# The relay reports when it ends (harness_down stops it with SIGKILL, so ask it first).
pkill -TERM -f "impair_relay shxv${SHX_HARNESS_ID}x2" 2>/dev/null
for _ in $(seq 100); do grep -q "relayed" "$WORK/relay.log" && break; sleep 0.05; done
cat "$WORK/relay.log"
dropped=$(sed -n 's/.*dropped \([0-9]*\) (loss).*/\1/p' "$WORK/relay.log")
[ "${dropped:-0}" -gt 0 ] || fail "the relay dropped no frame: the link was not impaired"
pass "the relay dropped $dropped frames"
