#!/usr/bin/env bash
# A launcher-less job (torchrun-style; rank 0 hosts the store) starts, runs and finishes
# correctly while a hostile client floods its store with idle connections, trickles a handshake
# one byte at a time and sends garbage and resets: the job's result is checked, its time is
# bounded, and the trickler must have been dropped by the store's handshake deadline (10 s);
# the idle flood is capped (at most 512 left open) and the warnings are aggregated (< 100 lines).
#   torchrun_hostile.sh <pe_busy-binary> <store_attack-binary> N   (the job works for 12 s)
# Against the thread-per-connection store before the event loop (3802851) the job still
# finished, but this test fails (two runs): the trickler was never dropped, 8,500-10,100 idle
# connections stayed open, rank 0 logged 9,800-11,900 warning lines, some naming "unknown peer".
set -euo pipefail
prog=$1; attack=$2; n=${3:-4}
source "$(dirname "$0")/torchrun_lib.sh"
source "$(dirname "$0")/../support/clock.sh"
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# The attack starts first (it waits for the store to listen) and lasts past the job's end.
"$attack" 127.0.0.1 "$port" 11 > "$out/attack.txt" 2>&1 &
attack_pid=$!
start=$(mono_ms)
pids=()
for ((r = 0; r < n; r++)); do
  env -u SHMEM_PE -u SHMEM_NPES -u SHMEM_STORE_ADDR RANK=$r WORLD_SIZE=$n MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
    SHMEM_JOB_SECRET=hostile-test-secret timeout 60 "$prog" 12 > "$out/rank$r.txt" 2>&1 &
  pids+=($!)
done
fail=0
for ((r = 0; r < n; r++)); do
  rc=0; wait "${pids[$r]}" || rc=$?
  ((rc == 0)) || { echo "FAIL: rank $r exited with $rc"; fail=1; }
done
elapsed_ms=$(($(mono_ms) - start))
wait $attack_pid || true
cat "$out/attack.txt"
cat "$out"/rank*.txt | grep -v "WARN store" | sed -n 1,20p
grep -q "still open at the end" "$out/attack.txt" || { echo "FAIL: the attack did not run"; fail=1; }
echo "warnings logged by rank 0 (the store's host): $(grep -c 'WARN store' "$out/rank0.txt" || true)"
grep "WARN store" "$out/rank0.txt" | sed -n 1,8p
echo "job took ${elapsed_ms} ms under attack"
grep -q "pe_busy: VERIFIED" "$out/rank0.txt" || { echo "FAIL: the job's result is not verified"; fail=1; }
((elapsed_ms < 25000 * ${TEST_TIME_SCALE:-1})) || { echo "FAIL: the job took ${elapsed_ms} ms"; fail=1; }
grep -qE "trickler was dropped after ([0-9]{1,4}|1[01][0-9]{3}) ms" "$out/attack.txt" ||
  { echo "FAIL: the trickler was not dropped within the handshake deadline"; fail=1; }
grep -q "unknown peer" "$out/rank0.txt" && { echo "FAIL: a warning names no peer"; fail=1; }
# Unauthenticated connections are capped (128 per source, 512 in all): the flood keeps no more.
open_end=$(sed -n 's/.*(\([0-9]*\) still open at the end).*/\1/p' "$out/attack.txt")
((${open_end:-99999} <= 512)) || { echo "FAIL: the store kept ${open_end:-?} idle connections open (cap 512)"; fail=1; }
# Warnings about bad clients are rate-limited and summed up, not one line per connection.
nwarn=$(grep -c "WARN store" "$out/rank0.txt" || true)
((nwarn < 100)) || { echo "FAIL: ${nwarn} warning lines about bad clients (not aggregated)"; fail=1; }
exit $fail
