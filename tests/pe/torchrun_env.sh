#!/usr/bin/env bash
# shmem_init under torchrun-style variables (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT), no
# oshrun: rank 0 hosts the bootstrap store. Runs the ring demo on N ranks and checks it.
#   torchrun_env.sh <ring-binary> N
set -euo pipefail
prog=$1; n=${2:-4}
source "$(dirname "$0")/torchrun_lib.sh"
torchrun_start "$n" 60 "$prog"
fail=0
for ((r = 0; r < n; r++)); do
  wait "${pids[$r]}" || { echo "rank $r exited with $?"; fail=1; }
done
cat "$out"/rank*.txt
grep -q "ring: token passed through $n PEs" "$out/rank0.txt" || { echo "FAIL: rank 0 did not see $n PEs"; fail=1; }
grep -q "ring: VERIFIED" "$out/rank0.txt" || { echo "FAIL: ring not verified"; fail=1; }
exit $fail
