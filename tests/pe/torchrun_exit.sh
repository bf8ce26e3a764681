#!/usr/bin/env bash
# Without a launcher (torchrun-style variables; rank 0 hosts the store), a PE that leaves
# without shmem_finalize through the real exit paths ends every rank within a few seconds, each
# with a status and a message that name the PE; a job whose PEs all return without finalize
# succeeds.
#   torchrun_exit.sh <pe_exit-binary> N MODE [ARG]
#     MODE exit|return N: every rank exits N; the others say "PE <last> exited with status N"
#     MODE exit0-barrier: every rank fails; the others say "PE <last> returned from main"
#     MODE exit0-all: every rank exits 0
set -euo pipefail
prog=$1; n=$2; mode=$3; arg=${4:-}
source "$(dirname "$0")/torchrun_lib.sh"
source "$(dirname "$0")/../support/clock.sh"
start=$(mono_ms)
torchrun_start "$n" 30 "$prog" "$mode" $arg
fail=0
victim=${PE_EXIT_VICTIM:-$((n - 1))}
for ((r = 0; r < n; r++)); do
  rc=0; wait "${pids[$r]}" || rc=$?
  echo "rank $r exited with status $rc"
  case "$mode" in
    exit|return) want=$arg; msg="PE $victim exited with status $arg before shmem_finalize" ;;
    exit0-all) want=0; msg="" ;;
    *) want=1; msg="PE $victim returned from main .*without shmem_finalize while PEs? [0-9,]+ still run" ;;
  esac
  if ((rc != want)); then echo "FAIL: rank $r: status $rc, expected $want"; fail=1; fi
  if ((r != victim)) && [ -n "$msg" ] && ! grep -qE "$msg" "$out/rank$r.txt"; then
    echo "FAIL: rank $r did not say /$msg/"; fail=1
  fi
  if grep -q "NOT STOPPED" "$out/rank$r.txt"; then echo "FAIL: rank $r passed a collective"; fail=1; fi
done
elapsed_ms=$(($(mono_ms) - start))
echo "all ranks ended after ${elapsed_ms} ms"
# Start-up included; the exit itself must end the job within about 2 s.
limit_ms=$((8000 * ${TEST_TIME_SCALE:-1}))  # TEST_TIME_SCALE: see torchrun_misconfig.sh
if ((elapsed_ms > limit_ms)); then echo "FAIL: took ${elapsed_ms} ms (limit ${limit_ms} ms)"; fail=1; fi
cat "$out"/rank*.txt
exit $fail
