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
# Counts, not times: deterministic whatever the load.
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${PE_RING:?set by CTest}"
: "${PE_FIRST_USE:?set by CTest}"
AG=$HARNESS_AGENT
harness_up 2

# ring K [all]: 2 hosts x K PEs; sets PER_PE (store bytes in + out per PE), MAX_EP and
# MAX_FETCH (transport addresses a PE fetched from the store).
ring() {
  local k=$1 mode=${2:-} n=$((2 * $1)) line c i o eps fetches
  run harness_exec h1 "exec env SHMEM_LOG_LEVEL=INFO SHMEM_SYMMETRIC_SIZE=1M $OSHRUN --rsh $AG --hosts h1:$k,h2:$k $PE_RING $mode"
  [ "$RC" = 0 ] || { tail -n 40 "$WORK/out" "$WORK/err"; fail "2 x $k PEs $mode: status $RC"; }
  if [ "$mode" = all ]; then
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
  echo "2 x $k PEs $mode: store $c connections, $i bytes in, $o bytes out ($PER_PE per PE); at most $MAX_EP UCX endpoints and $MAX_FETCH store address fetches per PE"
}

ring 4
small=$PER_PE
[ "$MAX_EP" -le 2 ] || fail "2 x 4 PEs: a PE made $MAX_EP UCX endpoints in a ring job (at most 2 expected)"
ring 16
big=$PER_PE
[ "$MAX_EP" -le 2 ] || fail "2 x 16 PEs: a PE made $MAX_EP UCX endpoints in a ring job (at most 2 expected)"
[ $((2 * big)) -le $((3 * small)) ] || fail "store bytes per PE grew from $small (8 PEs) to $big (32 PEs): more than 1.5x"
pass "store bytes per PE $small (8 PEs) -> $big (32 PEs); at most 2 UCX endpoints per PE in a ring job"

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

run harness_exec h1 "exec env SHMEM_LOG_LEVEL=INFO SHMEM_SYMMETRIC_SIZE=1M $OSHRUN --rsh $AG --hosts h1:4,h2:4 $PE_FIRST_USE"
[ "$RC" = 0 ] || { tail -n 40 "$WORK/out" "$WORK/err"; fail "pe_first_use on 2 x 4 PEs: status $RC"; }
expect_out "pe_first_use: 8 PEs, 4 threads of PE 0 reached every PE exactly" "pe_first_use on 2 x 4 PEs"
expect_err "PE 0: 4 UCX endpoints for 4 remote PEs" "pe_first_use on 2 x 4 PEs (PE 0: one endpoint per remote PE)"
pass "4 threads meeting new peers at once: every value exact, one endpoint per remote PE"
