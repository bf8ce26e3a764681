#!/usr/bin/env bash
# shmem_init under torchrun-style variables (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT), no
# oshrun: rank 0 hosts the bootstrap store. Runs the ring demo on N ranks and checks it.
#   torchrun_env.sh <ring-binary> N
set -euo pipefail
prog=$1; n=${2:-4}
out=$(mktemp -d "$PWD/torchrun.XXXXXX")  # in the build tree: nothing in /tmp
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$out"' EXIT
# A free loopback port (the kernel picks it; the tiny window before rank 0 binds is harmless).
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pids=()
for ((r = 0; r < n; r++)); do
  env -u SHMEM_PE -u SHMEM_NPES -u SHMEM_STORE_ADDR RANK=$r WORLD_SIZE=$n MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
    timeout 60 "$prog" > "$out/rank$r.txt" 2>&1 &
  pids+=($!)
done
fail=0
for ((r = 0; r < n; r++)); do
  wait "${pids[$r]}" || { echo "rank $r exited with $?"; fail=1; }
done
cat "$out"/rank*.txt
grep -q "ring: token passed through $n PEs" "$out/rank0.txt" || { echo "FAIL: rank 0 did not see $n PEs"; fail=1; }
grep -q "ring: VERIFIED" "$out/rank0.txt" || { echo "FAIL: ring not verified"; fail=1; }
exit $fail
