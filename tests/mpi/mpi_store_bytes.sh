#!/usr/bin/env bash
# mpi_store_bytes.sh - under mpirun init's data goes through PMIx, not the bootstrap store.
#
#   mpi_store_bytes.sh --mpirun PATH --max-per-pe B -- program args...
#
# Runs the program under mpirun at 2 and 8 processes (--oversubscribe) with SHMEM_LOG_LEVEL=INFO
# and reads the line the store logs when it stops ("store: C connections (peak P open), I bytes
# in, O bytes out"). Under a PMIx launcher the store carries only each PE's two hellos (its
# client and its job watcher), the watcher's wait and finalize's rendezvous: about 400 bytes per
# PE whatever the job's size, about 700 through the host's relay (bootstrap/host_relay.hpp),
# which puts a 16-byte channel header on each of these small requests and replies and opens two
# channels per PE (SHMEM_STORE_RELAY=0: 409 and 385 at 2 and 8 PEs; relayed 761 and 704).
# Through the store, init's exchanges (host keys, host table, barriers) doubled the direct
# figure (4059 + 2509 bytes at 8 PEs before they moved to PMIx, 821 per PE, without a relay).
# Fails when (I + O) / N exceeds B at either size, or grows by more than 1/8 from 2 to 8 PEs.
# Byte counts, not times: the same whatever the load.
set -u

mpirun=""
max=0
while [ $# -gt 0 ]; do
  case "$1" in
    --mpirun) mpirun="$2"; shift 2 ;;
    --max-per-pe) max="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "mpi_store_bytes.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$mpirun" ] && [ "$max" -gt 0 ] && [ $# -gt 0 ] ||
  { echo "usage: mpi_store_bytes.sh --mpirun PATH --max-per-pe B -- program args" >&2; exit 2; }

per_pe=()
for np in 2 8; do
  output=$(SHMEM_LOG_LEVEL=INFO timeout -k 5 50 "$mpirun" --allow-run-as-root --oversubscribe -n "$np" "$@" 2>&1 </dev/null)
  rc=$?
  [ $rc -eq 0 ] || { printf '%s\n' "$output"; echo "mpi_store_bytes.sh: FAILED: mpirun -n $np exited with $rc"; exit 1; }
  line=$(grep -E "INFO store: [0-9]+ connections \(peak [0-9]+ open\), [0-9]+ bytes in, [0-9]+ bytes out$" <<<"$output")
  [ "$(grep -c . <<<"$line")" = 1 ] ||
    { printf '%s\n' "$output"; echo "mpi_store_bytes.sh: FAILED: -n $np: expected one store traffic line"; exit 1; }
  read -r in out < <(sed -E 's/.* ([0-9]+) bytes in, ([0-9]+) bytes out$/\1 \2/' <<<"$line")
  pp=$(((in + out) / np))
  echo "mpi_store_bytes.sh: $np PEs: store $in bytes in, $out bytes out: $pp per PE (at most $max)"
  [ "$pp" -le "$max" ] ||
    { echo "mpi_store_bytes.sh: FAILED: $pp store bytes per PE at $np PEs: init's data went through the store?"; exit 1; }
  per_pe+=("$pp")
done
[ $((8 * per_pe[1])) -le $((9 * per_pe[0])) ] ||
  { echo "mpi_store_bytes.sh: FAILED: store bytes per PE grew from ${per_pe[0]} (2 PEs) to ${per_pe[1]} (8 PEs)"; exit 1; }
echo "mpi_store_bytes.sh: passed"
