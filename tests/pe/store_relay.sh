#!/usr/bin/env bash
# One bootstrap-store connection per host without a launcher (issue 30, item 2;
# bootstrap/host_relay.hpp): the PEs of a torchrun-style job on one host reach the store through
# the first of them to start.
#   store_relay.sh <pe_rma> <pe_fail> CASE        (4 ranks)
#     conns              pe_rma with SHMEM_LOG_LEVEL=INFO: the store (in rank 0) had 1 connection
#                        open at its peak and says that 4 PEs came through their host's relay;
#                        with SHMEM_STORE_RELAY=0 it had 8 (each PE's and its job watcher's)
#     owner-crash        rank 3 starts first, so it holds the relay; the others join; once all are
#                        past init (pe_fail barrier-timeout: they wait in a barrier that rank 0
#                        never reaches), rank 3 is killed: every other rank ends within 10 s,
#                        non-zero, its message naming PE 3
#     owner-crash-forked as owner-crash, but rank 3 forked a child before (pe_fail
#                        PE_FAIL_FORK=3) that still runs when the others end: the child's copies
#                        of rank 3's relay and store sockets are /dev/null, so they do not keep
#                        the connections open (util/parent_only_fd.hpp)
#     owner-global-exit  pe_fail global-exit: rank 3, holding the relay, calls
#                        shmem_global_exit(7) while the others block: every rank ends with
#                        status 7 and the others say that the job failed (the store's word,
#                        through rank 3's relay, reaches them before rank 3's process ends)
# Against the library before the relay, conns fails (peak 8 with the relay on).
# TEST_TIME_SCALE (default 1) multiplies the time limit.
set -euo pipefail
pe_rma=$1; pe_fail=$2; case_=$3
source "$(dirname "$0")/../support/clock.sh"
n=4
limit_ms=$((10000 * ${TEST_TIME_SCALE:-1}))
out=$(mktemp -d "$PWD/store_relay.XXXXXX")
# Also any child a rank forked (forked.<rank> holds its pid).
trap 'kill $(jobs -p) $(cat "$out"/forked.* 2>/dev/null) 2>/dev/null || true; rm -rf "$out"' EXIT
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
secret=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
pids=()
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# start R PROG ARGS...: rank R in the background (pid in pids[R], output in $out/rankR.txt).
start() {
  local r=$1
  shift
  env -u SHMEM_PE -u SHMEM_NPES -u SHMEM_STORE_ADDR RANK=$r WORLD_SIZE=$n MASTER_ADDR=127.0.0.1 \
    MASTER_PORT=$port SHMEM_JOB_SECRET=$secret SHMEM_WAIT_TIMEOUT=60 PE_FAIL_READY=$out \
    timeout 60 "$@" >"$out/rank$r.txt" 2>&1 &
  pids[$r]=$!
}

# relay_listening PID: the process under `timeout` PID listens on a host-relay socket
# (an abstract "@shmem-relay-..." name in /proc/net/unix whose inode is one of its descriptors).
relay_listening() {
  local child inodes
  child=$(pgrep -P "$1" | head -n 1) || return 1
  inodes=$(find "/proc/$child/fd" -lname 'socket:*' -printf '%l\n' 2>/dev/null | sed -E 's/socket:\[([0-9]+)\]/\1/')
  [ -n "$inodes" ] || return 1
  awk -v list="$(echo $inodes)" 'BEGIN { split(list, a, " "); for (i in a) want[a[i]] = 1 }
    $8 ~ /^@shmem-relay-/ && ($7 in want) { found = 1 } END { exit !found }' /proc/net/unix
}

# Rank 3 first; the others once it listens (bounded), then wait until all are past init.
start_owner_first() {
  local limit
  start 3 "$@"
  limit=$(($(mono_ms) + 20000))
  until relay_listening "${pids[3]}"; do
    (($(mono_ms) < limit)) || { cat "$out/rank3.txt"; echo "FAIL: rank 3 did not open its host relay within 20 s"; exit 1; }
    sleep 0.02
  done
  for r in 0 1 2; do start "$r" "$@"; done
}
wait_ready() {
  local limit=$(($(mono_ms) + 30000))
  until [ "$(find "$out" -name 'ready.*' | wc -l)" -ge "$1" ]; do
    (($(mono_ms) < limit)) || { cat "$out"/rank*.txt; echo "FAIL: the ranks were not all past init within 30 s"; exit 1; }
    sleep 0.02
  done
}
# store_line FILE: "C P" from the store's traffic line.
store_line() {
  grep -E "INFO store: [0-9]+ connections \(peak [0-9]+ open\)" "$1" |
    sed -E 's/.*store: ([0-9]+) connections \(peak ([0-9]+) open\).*/\1 \2/'
}

case "$case_" in
  conns)
    for relay in 1 0; do
      rm -f "$out"/rank*.txt
      for ((r = 0; r < n; r++)); do SHMEM_LOG_LEVEL=INFO SHMEM_STORE_RELAY=$relay start "$r" "$pe_rma"; done
      for ((r = 0; r < n; r++)); do
        rc=0
        wait "${pids[$r]}" || rc=$?
        ((rc == 0)) || bad "SHMEM_STORE_RELAY=$relay: rank $r exited with status $rc"
      done
      grep -q "all forms OK" "$out/rank0.txt" || bad "SHMEM_STORE_RELAY=$relay: pe_rma did not report its results"
      read -r conns peak < <(store_line "$out/rank0.txt") || true
      echo "SHMEM_STORE_RELAY=$relay: the store had ${conns:-?} connections, ${peak:-?} open at its peak"
      if ((relay == 1)); then
        [ "${peak:-}" = 1 ] || bad "with the relay, the store had ${peak:-no} connections open at its peak (1 expected)"
        grep -q "INFO store: $n PEs reached it through their host's relay" "$out/rank0.txt" ||
          bad "the store does not say that $n PEs came through their host's relay"
      else
        [ "${peak:-}" = $((2 * n)) ] || bad "with SHMEM_STORE_RELAY=0, the store had ${peak:-no} connections open at its peak ($((2 * n)) expected)"
        grep -q "reached it through their host's relay" "$out/rank0.txt" && bad "SHMEM_STORE_RELAY=0 still relays"
      fi
    done
    ;;
  owner-crash | owner-crash-forked)
    [ "$case_" = owner-crash-forked ] && export PE_FAIL_FORK=3
    start_owner_first "$pe_fail" barrier-timeout
    wait_ready $n
    forked=""
    if [ "$case_" = owner-crash-forked ]; then
      forked=$(cat "$out/forked.3")
      kill -0 "$forked" || bad "rank 3's forked child $forked is not running"
    fi
    kill -KILL "$(pgrep -P "${pids[3]}" | head -n 1)"
    t0=$(mono_ms)
    for r in 0 1 2; do
      rc=0
      wait "${pids[$r]}" || rc=$?
      t=$(($(mono_ms) - t0))
      echo "rank $r exited with status $rc, ${t} ms after rank 3 was killed"
      ((rc != 0 && rc != 124)) || bad "rank $r: status $rc (ended by the loss expected)"
      ((t <= limit_ms)) || bad "rank $r ended ${t} ms after the loss (limit ${limit_ms} ms)"
      grep -qE "the job failed.*PE 3\b" "$out/rank$r.txt" || bad "rank $r does not name PE 3 in why it ended"
    done
    if [ -n "$forked" ]; then  # the test is void unless the child outlived the others' ending
      kill -0 "$forked" 2>/dev/null || bad "rank 3's forked child ended before the others did"
      kill "$forked"
    fi
    wait "${pids[3]}" || true
    ;;
  owner-global-exit)
    start_owner_first "$pe_fail" global-exit
    for ((r = 0; r < n; r++)); do
      rc=0
      wait "${pids[$r]}" || rc=$?
      ((rc == 7)) || bad "rank $r exited with status $rc (7 expected: shmem_global_exit(7))"
      ((r == 3)) || grep -q "the job failed" "$out/rank$r.txt" || bad "rank $r does not say why it ended"
    done
    ;;
  *)
    echo "unknown case $case_"
    exit 2
    ;;
esac
for f in "$out"/rank*.txt; do echo "---- $(basename "$f")"; cat "$f"; done
exit $fail
