#!/bin/bash
# Init without a central O(N^2) (issue 30): the same ring job (pe_ring: each PE talks only to its
# neighbours) on 2 hosts x 4 and 2 hosts x 16 PEs under oshrun, with SHMEM_LOG_LEVEL=INFO.
# - The bootstrap store's traffic per PE, from the one line the store logs when it stops
#   ("store: C connections (peak P open), I bytes in, O bytes out"), must not grow with the job:
#   at 4x the PEs at most 1.5x the bytes per PE (the PEs of 8fd18fb, with three allgathers at
#   init, through this store: 2.6 KB -> 6.8 KB per PE, 2.6x; now 1.3 KB at both sizes).
# - UCX endpoints are made on first use: each PE logs how many it made when it finalizes
#   ("PE 3: 1 UCX endpoint for 16 remote PEs"). In a ring job that is the one made at init and
#   the right neighbour (the host leaders' barrier partner is among them): at most 2 per PE, at
#   both sizes.
# - Endpoints made by threads that meet a new peer at once (SHMEM_THREAD_MULTIPLE, pe_first_use:
#   4 threads of PE 0 put to every PE): exactly one per remote PE, 4 on 2 hosts x 4.
# - Every PE talking to every PE ("pe_ring all"): each takes its peers' transport addresses from
#   its host's table (core/addr_table.hpp), at most 2 from the store, and the store's bytes per
#   PE still do not grow with the job.
# - The collective area (cross-host channels and the address table, core/xhost_area.hpp) is
#   registered with UCX only on the PEs that lead a team or an active set across hosts: in the
#   ring job the host leaders alone; with "pe_ring lead 4" also the team's and the set's PEs.
# Counts, not times: deterministic whatever the load.
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${PE_RING:?set by CTest}"
: "${PE_FIRST_USE:?set by CTest}"
: "${PE_FAIL:?set by CTest}"
AG=$HARNESS_AGENT
harness_up 2

# ring K [all]: 2 hosts x K PEs; sets PER_PE (store bytes in + out per PE), MAX_EP and
# MAX_FETCH (transport addresses a PE fetched from the store).
ring() {
  local k=$1 mode=${2:-} n=$((2 * $1)) line c i o eps fetches args=${2:-}
  [ "$mode" = lead ] && args="lead $k"
  run harness_exec h1 "exec env SHMEM_LOG_LEVEL=INFO SHMEM_SYMMETRIC_SIZE=1M $OSHRUN --rsh $AG --hosts h1:$k,h2:$k $PE_RING $args"
  [ "$RC" = 0 ] || { tail -n 40 "$WORK/out" "$WORK/err"; fail "2 x $k PEs $mode: status $RC"; }
  if [ "$mode" = lead ]; then
    :  # the caller checks its line
  elif [ "$mode" = all ]; then
    expect_out "pe_ring all: $n PEs, each heard from every PE" "2 x $k PEs, all"
  else
    expect_out "pe_ring: $n PEs, each heard from its left neighbour" "2 x $k PEs"
  fi
  line=$(grep -E "INFO store: [0-9]+ connections \(peak [0-9]+ open\), [0-9]+ bytes in, [0-9]+ bytes out$" "$WORK/err")
  [ "$(printf '%s\n' "$line" | grep -c .)" = 1 ] || fail "2 x $k PEs: expected one store traffic line, got: $line"
  read -r c i o < <(printf '%s\n' "$line" | sed -E 's/.*store: ([0-9]+) connections.* ([0-9]+) bytes in, ([0-9]+) bytes out$/\1 \2 \3/')
  PER_PE=$(((i + o) / n))
  eps=$(grep -oE "PE [0-9]+: [0-9]+ UCX endpoints? for $k remote PEs" "$WORK/err" | awk '{print $3}')
  [ "$(printf '%s\n' "$eps" | grep -c .)" = "$n" ] || fail "2 x $k PEs: expected $n endpoint counts, got $(printf '%s\n' "$eps" | grep -c .)"
  MAX_EP=$(printf '%s\n' "$eps" | sort -n | tail -n 1)
  fetches=$(grep -oE "PE [0-9]+: [0-9]+ transport address(es)? fetched from the bootstrap store" "$WORK/err" | awk '{print $3}')
  [ "$(printf '%s\n' "$fetches" | grep -c .)" = "$n" ] || fail "2 x $k PEs $mode: expected $n address fetch counts"
  MAX_FETCH=$(printf '%s\n' "$fetches" | sort -n | tail -n 1)
  registered
  echo "2 x $k PEs $mode: store $c connections, $i bytes in, $o bytes out ($PER_PE per PE); at most $MAX_EP UCX endpoints and $MAX_FETCH store address fetches per PE"
}

# Sets REGISTERED: the PEs that said they registered their collective area, sorted, on one line;
# every PE must say one or the other.
registered() {
  local said
  said=$(grep -cE "PE [0-9]+: collective area (registered|not registered) with UCX" "$WORK/err")
  [ "$said" = "$n" ] || fail "2 x $k PEs $mode: $said of $n PEs said whether they registered their collective area"
  REGISTERED=$(grep -oE "PE [0-9]+: collective area registered with UCX" "$WORK/err" | awk '{print $2}' | tr -d : | sort -n | tr '\n' ' ')
}

ring 4
[ "$REGISTERED" = "0 4 " ] || fail "2 x 4 PEs: collective areas registered on PEs $REGISTERED (the host leaders 0 and 4 expected)"
small=$PER_PE
[ "$MAX_EP" -le 2 ] || fail "2 x 4 PEs: a PE made $MAX_EP UCX endpoints in a ring job (at most 2 expected)"
ring 16
big=$PER_PE
[ "$MAX_EP" -le 2 ] || fail "2 x 16 PEs: a PE made $MAX_EP UCX endpoints in a ring job (at most 2 expected)"
[ $((2 * big)) -le $((3 * small)) ] || fail "store bytes per PE grew from $small (8 PEs) to $big (32 PEs): more than 1.5x"
[ "$REGISTERED" = "0 16 " ] || fail "2 x 16 PEs: collective areas registered on PEs $REGISTERED (the host leaders 0 and 16 expected)"
pass "store bytes per PE $small (8 PEs) -> $big (32 PEs); at most 2 UCX endpoints per PE in a ring job"
pass "collective areas registered on the host leaders only (2 of 8, 2 of 32 PEs)"

ring 4 lead
expect_out "pe_ring lead: 8 PEs, a team and an active set of one PE per host exact" "2 x 4 PEs, lead"
[ "$REGISTERED" = "0 1 2 4 5 6 " ] ||
  fail "2 x 4 PEs, lead: collective areas registered on PEs $REGISTERED (0 1 2 4 5 6 expected: the host leaders, the team's and the set's PEs)"
pass "a team and an active set across hosts: their PEs register their collective areas, the others (3, 7) do not"

# Every PE talks to every PE: each makes an endpoint to every remote PE, but takes their
# addresses from its host's table, not from the store: at most 2 store fetches per PE (the
# endpoint made at init; a host leader's ring neighbour), and the store's bytes per PE do not
# grow with the job (before the table: 2.0 -> 4.0 KB per PE, from a fetch per pair).
ring 4 all
small=$PER_PE
[ "$MAX_EP" = 4 ] || fail "2 x 4 PEs, all: expected 4 UCX endpoints per PE at most, got $MAX_EP"
[ "$MAX_FETCH" -le 2 ] || fail "2 x 4 PEs, all: a PE fetched $MAX_FETCH transport addresses from the store (at most 2 expected)"
ring 16 all
big=$PER_PE
[ "$MAX_EP" = 16 ] || fail "2 x 16 PEs, all: expected 16 UCX endpoints per PE at most, got $MAX_EP"
[ "$MAX_FETCH" -le 2 ] || fail "2 x 16 PEs, all: a PE fetched $MAX_FETCH transport addresses from the store (at most 2 expected)"
[ $((2 * big)) -le $((3 * small)) ] || fail "all-to-all: store bytes per PE grew from $small (8 PEs) to $big (32 PEs): more than 1.5x"
pass "all-to-all: store bytes per PE $small (8 PEs) -> $big (32 PEs); at most 2 store address fetches per PE"

# A set's leader on a host that never enters the collective: the other host's leader waits for
# it to register its collective area, and SHMEM_WAIT_TIMEOUT ends the job naming it (no hang).
run harness_exec h1 "exec env SHMEM_WAIT_TIMEOUT=2 $OSHRUN --rsh $AG --hosts h1:2,h2:2 $PE_FAIL set-absent"
[ "$RC" != 0 ] && [ "$RC" != 124 ] || fail "set-absent: status $RC (a failure expected, not a hang)"
expect_err "timed out after 2 s \(SHMEM_WAIT_TIMEOUT\) waiting for PE 1 \(host 'h1'\) to enter it" "set-absent"
pass "an active set's leader that never arrives: the job ends after SHMEM_WAIT_TIMEOUT naming it"

run harness_exec h1 "exec env SHMEM_LOG_LEVEL=INFO SHMEM_SYMMETRIC_SIZE=1M $OSHRUN --rsh $AG --hosts h1:4,h2:4 $PE_FIRST_USE"
[ "$RC" = 0 ] || { tail -n 40 "$WORK/out" "$WORK/err"; fail "pe_first_use on 2 x 4 PEs: status $RC"; }
expect_out "pe_first_use: 8 PEs, 4 threads of PE 0 reached every PE exactly" "pe_first_use on 2 x 4 PEs"
expect_err "PE 0: 4 UCX endpoints for 4 remote PEs" "pe_first_use on 2 x 4 PEs (PE 0: one endpoint per remote PE)"
pass "4 threads meeting new peers at once: every value exact, one endpoint per remote PE"

# Without oshrun (torchrun-style variables on every process; rank 0 hosts the store on h1): the
# PEs of a host reach the store through the first of them (bootstrap/host_relay.hpp), so the
# store holds one connection per host: 2 open at its peak at 2 x 4 and 2 x 8 PEs (16 and 32
# before: each PE's own and its job watcher's), and it says every PE came through a relay.
H1=$(harness_addr h1)
launcherless_ring() {
  local k=$1 n=$((2 * $1)) port=$((20000 + RANDOM % 20000)) secret r pids=() rc=0 line peak
  secret=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  : >"$WORK/out"
  : >"$WORK/err"
  for r in $(seq 0 $((n - 1))); do
    harness_exec "h$((r / k + 1))" "exec env SHMEM_LOG_LEVEL=INFO SHMEM_SYMMETRIC_SIZE=1M RANK=$r WORLD_SIZE=$n \
      MASTER_ADDR=$H1 MASTER_PORT=$port SHMEM_JOB_SECRET=$secret $PE_RING" >>"$WORK/out" 2>>"$WORK/err" &
    pids+=($!)
  done
  for r in "${pids[@]}"; do wait "$r" || rc=$?; done
  [ "$rc" = 0 ] || { tail -n 40 "$WORK/out" "$WORK/err"; fail "launcher-less 2 x $k PEs: status $rc"; }
  expect_out "pe_ring: $n PEs, each heard from its left neighbour" "launcher-less 2 x $k PEs"
  line=$(grep -E "INFO store: [0-9]+ connections \(peak [0-9]+ open\)" "$WORK/err")
  peak=$(printf '%s\n' "$line" | sed -E 's/.*\(peak ([0-9]+) open\).*/\1/')
  [ "$peak" = 2 ] || fail "launcher-less 2 x $k PEs: the store had ${peak:-no} connections open at its peak (2 expected: one per host)"
  expect_err "INFO store: $n PEs reached it through their host's relay" "launcher-less 2 x $k PEs"
}
launcherless_ring 4
launcherless_ring 8
pass "launcher-less 2 x 4 and 2 x 8 PEs: the store held 2 connections at its peak, one per host"
