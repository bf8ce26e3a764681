#!/bin/bash
# O(hosts) store connections (issue 30, item 2): a host agent relays its PEs' store connections
# on one connection of its own (bootstrap/store_relay.hpp), and each PE on oshrun's host has a
# socketpair to the store (StoreServer::adopt), so neither the store's open connections nor
# oshrun's descriptors grow with the PEs on other hosts. The same job
# (pe_link_soak, rounds until told to stop) on 2 hosts x 8 and 3 hosts x 8 PEs under oshrun:
# - the store's peak of open connections, from its INFO line ("store: C connections (peak P
#   open), ..."), is at most one per local PE, one per remote host, and a margin of 2; and the
#   third host's 8 PEs add at most one (its agent's);
# - oshrun's open descriptors while every PE runs its rounds (all connected: PE 0 writes the
#   progress file after a round that every PE took part in), from /proc/PID/fd: the third host
#   adds at most 6 (its agent's pipes and its relay's connection), not 2 per PE.
# Counts, not times: deterministic whatever the load.
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${PE_LINK_SOAK:?set by CTest}"
AG=$HARNESS_AGENT
snapshot
harness_up 3
ENVS="SHMEM_LOG_LEVEL=INFO SHMEM_SYMMETRIC_SIZE=1M SHMEM_PROGRESS_THREAD=off"
K=8

# The oshrun launcher (not a host agent) in h1's namespace.
oshrun_pid() {
  local p
  for p in $(ip netns pids "$(harness_ns h1)" 2>/dev/null); do
    [ "$(cat "/proc/$p/comm" 2>/dev/null)" = oshrun ] || continue
    tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- "--host-agent" && continue
    echo "$p"
    return
  done
}

# job H: H hosts x K PEs; sets PEAK (the store's peak of open connections) and FDS (oshrun's
# descriptors while every PE runs).
job() {
  local hosts=$1 list="" i line pid limit n=$(($1 * K))
  for i in $(seq 1 "$hosts"); do list="$list${list:+,}h$i:$K"; done
  rm -f "$WORK/stop" "$WORK/progress"
  : >"$WORK/out"
  : >"$WORK/err"
  harness_exec h1 "exec env $ENVS $OSHRUN --rsh $AG --hosts $list $PE_LINK_SOAK $WORK/stop $WORK/progress" \
    >>"$WORK/out" 2>>"$WORK/err" &
  local job_pid=$!
  limit=$(($(now_ms) + 60000))
  while [ "$(cat "$WORK/progress" 2>/dev/null || echo 0)" -lt 1 ]; do
    kill -0 "$job_pid" 2>/dev/null || { cat "$WORK/err" >&2; fail "$hosts x $K PEs: the job ended before its first round"; }
    [ "$(now_ms)" -lt "$limit" ] || fail "$hosts x $K PEs: no round within 60 s"
    sleep 0.05
  done
  pid=$(oshrun_pid)
  [ -n "$pid" ] || fail "$hosts x $K PEs: no oshrun process in h1"
  FDS=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
  touch "$WORK/stop"
  wait "$job_pid"
  local rc=$?
  [ "$rc" = 0 ] || { tail -n 40 "$WORK/out" "$WORK/err"; fail "$hosts x $K PEs: status $rc"; }
  grep -q "every block and the counter exact" "$WORK/out" ||
    { cat "$WORK/out" "$WORK/err" >&2; fail "$hosts x $K PEs: no exact-result line"; }
  line=$(grep -E "INFO store: [0-9]+ connections \(peak [0-9]+ open\), [0-9]+ bytes in, [0-9]+ bytes out$" "$WORK/err")
  [ "$(printf '%s\n' "$line" | grep -c .)" = 1 ] || fail "$hosts x $K PEs: expected one store traffic line, got: $line"
  PEAK=$(printf '%s\n' "$line" | sed -E 's/.*\(peak ([0-9]+) open\).*/\1/')
  CONNS=$(printf '%s\n' "$line" | sed -E 's/.*store: ([0-9]+) connections.*/\1/')
  echo "$hosts hosts x $K PEs ($n): store $CONNS connections, peak $PEAK open; oshrun $FDS open descriptors"
}

job 2
peak2=$PEAK fds2=$FDS
[ "$peak2" -le $((K + 1 + 2)) ] ||
  fail "2 x $K PEs: the store had $peak2 connections open at once (at most $((K + 1 + 2)): 1 per local PE, 1 per remote host, 2 more)"
job 3
peak3=$PEAK fds3=$FDS
[ "$peak3" -le $((K + 2 + 2)) ] ||
  fail "3 x $K PEs: the store had $peak3 connections open at once (at most $((K + 2 + 2)))"
[ "$peak3" -le $((peak2 + 1)) ] || fail "a third host's $K PEs took the store from $peak2 to $peak3 open connections"
[ "$fds3" -le $((fds2 + 6)) ] || fail "a third host's $K PEs took oshrun from $fds2 to $fds3 open descriptors"
check_no_leftovers "oshrun_store_conns"
pass "store peak open connections $peak2 (2 x $K PEs) -> $peak3 (3 x $K); oshrun descriptors $fds2 -> $fds3"
