#!/usr/bin/env bash
# Without a launcher to end the job (torchrun-style variables; rank 0 hosts the store), a PE
# that fails must still end every other PE: each PE's job watcher sees the loss (or the global
# exit) on the store and exits with a message. Checks every rank's exit status and output.
#   torchrun_fail.sh <pe_fail-binary> N MODE [ARG]   MODE: crash | exit-code | global-exit
set -euo pipefail
prog=$1; n=$2; mode=$3; arg=${4:-}
source "$(dirname "$0")/torchrun_lib.sh"
torchrun_start "$n" 30 "$prog" "$mode" $arg
fail=0
victim=$((n - 1))
for ((r = 0; r < n; r++)); do
  rc=0; wait "${pids[$r]}" || rc=$?
  echo "rank $r exited with status $rc"
  if ((rc == 0 || rc == 124)); then echo "FAIL: rank $r should have been ended by the failure (status $rc)"; fail=1; fi
  if [ "$mode" = global-exit ] && ((rc != 7)); then echo "FAIL: rank $r: status $rc, expected 7 (shmem_global_exit(7))"; fail=1; fi
  if ((r != victim)) && ! grep -q "the job failed" "$out/rank$r.txt"; then
    echo "FAIL: rank $r did not say why it ended"; fail=1
  fi
done
cat "$out"/rank*.txt
exit $fail
