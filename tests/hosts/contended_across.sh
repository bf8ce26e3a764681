#!/bin/bash
# Waits across hosts while other processes hold the CPUs: 2 hosts x 1 PE on a machine whose
# two CPUs each run a busy process. A yield there hands the CPU to the busy process
# for a time slice, so the UCX transport's waits sleep on its event descriptor instead
# (src/transport/ucx/yield_cost.hpp) and are woken by the network. Every program must still
# give its right answers (they check their values), and the transport must report that it
# switched. The busy processes are started here, bounded in time, and killed on exit.
export HARNESS_JOB_TIMEOUT=${HARNESS_JOB_TIMEOUT:-120}
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${CONTENDED_PROGRAMS:?set by CTest}"
read -r cpu_a cpu_b < <(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | while IFS=- read -r lo hi; do
  seq "$lo" "${hi:-$lo}"; done | head -2 | tr '\n' ' ')
[ -n "${cpu_b:-}" ] || { echo "ok - skipped: needs 2 CPUs, this process may run on one only"; exit 0; }
snapshot
harness_up 2
H1=$(harness_addr h1)
# One busy process pinned to each CPU (the loop bounds itself: 300 s at most; its pid is the
# loop's own, which cleanup kills). The PEs are not pinned: a PE's affinity mask of one CPU
# would count as PEs outnumbering CPUs, where waits always yield.
for c in "$cpu_a" "$cpu_b"; do
  taskset -c "$c" bash -c 'end=$((SECONDS + 300)); while [ "$SECONDS" -lt "$end" ]; do :; done' &
  BG_PIDS+=" $!"
done

# run_job PROGRAM: one PE on h1 and one on h2, started by the agent with
# RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT; status in $RC, stderr of both in $WORK/err.
run_job() {
  local port=$((20000 + RANDOM % 20000)) secret p1 p2 r1=0 r2=0
  secret=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  local common="RANK=%d WORLD_SIZE=2 MASTER_ADDR=$H1 MASTER_PORT=$port SHMEM_JOB_SECRET=$secret SHMEM_LOG_LEVEL=INFO"
  # shellcheck disable=SC2059
  harness_exec h1 "exec env $(printf "$common" 0) $1" >"$WORK/out" 2>"$WORK/err" &
  p1=$!
  # shellcheck disable=SC2059
  harness_exec h2 "exec env $(printf "$common" 1) $1" >>"$WORK/out" 2>>"$WORK/err.2" &
  p2=$!
  wait "$p1" || r1=$?
  wait "$p2" || r2=$?
  cat "$WORK/err.2" >>"$WORK/err" && rm -f "$WORK/err.2"
  RC=$((r1 != 0 ? r1 : r2))
  [ "$RC" != 124 ] || fail "$(basename "$1"): still running after $HARNESS_JOB_TIMEOUT s (hang guard)"
}

switched=0
for prog in $CONTENDED_PROGRAMS; do
  t0=$(now_ms)
  run_job "$prog"
  [ "$RC" = 0 ] || fail "$(basename "$prog") on h1,h2 with a busy process on each CPU: exit status $RC"
  n=$(grep -c "waits for other hosts now sleep on UCX's event descriptor" "$WORK/err" || true)
  switched=$((switched + n))
  pass "$(basename "$prog") on h1,h2, a busy process on each CPU ($(( $(now_ms) - t0 )) ms; $n PE(s) switched to sleeping on the network)"
done
[ "$switched" -gt 0 ] || fail "no PE reported that its waits sleep on UCX's event descriptor with a busy process on each CPU"
pass "the transport noticed the busy processes ($switched PE reports)"
for p in $BG_PIDS; do kill "$p" 2>/dev/null; done
[ -z "$(harness_pids)" ] || fail "processes left in the hosts: $(harness_pids)"
check_no_leftovers "contended_across"
