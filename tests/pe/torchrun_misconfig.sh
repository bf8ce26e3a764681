#!/usr/bin/env bash
# A launcher-less (torchrun-style) job with one misconfigured rank fails fast: every rank ends
# within 5 s (not after SHMEM_BOOTSTRAP_TIMEOUT), non-zero, and every rank's message names the
# cause and the rank; no rank is reported lost or blamed for it.
#   torchrun_misconfig.sh <program> CASE     (3 ranks; rank 2 is the misconfigured one)
#     secret          rank 2 has another SHMEM_JOB_SECRET       -> "rank 2 failed authentication"
#     no-secret       rank 2 has none (derives one)             -> "rank 2 failed authentication"
#     world-size      rank 2 says WORLD_SIZE=4                  -> "WORLD_SIZE differs between ranks"
#     rank-twice      rank 2 says RANK=1                        -> "RANK 1 claimed twice"
#     rank0-twice     rank 2 says RANK=0 (it cannot host the store either) -> "RANK 0 claimed twice"
#     rank-outside    rank 2 says RANK=3                        -> "RANK 3 is outside the job"
# Against the store before the event loop (3802851) every case fails: the ranks wait until the
# 30 s guard below and no message names the cause.
# TEST_TIME_SCALE (default 1) multiplies the time limit (the sanitizer pass of scripts/test.sh
# runs with 3: sanitized processes start several times slower).
set -euo pipefail
source "$(dirname "$0")/../support/clock.sh"
prog=$1; case_=$2
limit_ms=$((5000 * ${TEST_TIME_SCALE:-1}))
n=3
out=$(mktemp -d "$PWD/torchrun_misconfig.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$out"' EXIT
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
case "$case_" in
  secret) bad=(SHMEM_JOB_SECRET=another-secret); want="rank 2 failed authentication.*SHMEM_JOB_SECRET" ;;
  no-secret) bad=(SHMEM_JOB_SECRET=); want="rank 2 failed authentication.*SHMEM_JOB_SECRET" ;;
  world-size) bad=(WORLD_SIZE=4); want="WORLD_SIZE differs between ranks: rank [0-9] has [34], rank [0-9] has [34]" ;;
  rank-twice) bad=(RANK=1); want="RANK 1 claimed twice" ;;
  rank0-twice) bad=(RANK=0); want="RANK 0 claimed twice" ;;
  rank-outside) bad=(RANK=3); want="RANK 3 is outside the job" ;;
  *) echo "unknown case $case_"; exit 2 ;;
esac
start=$(mono_ms)
pids=()
for ((r = 0; r < n; r++)); do
  extra=()
  ((r == 2)) && extra=("${bad[@]}")
  env -u SHMEM_PE -u SHMEM_NPES -u SHMEM_STORE_ADDR SHMEM_JOB_SECRET=the-job-secret RANK=$r WORLD_SIZE=$n \
    MASTER_ADDR=127.0.0.1 MASTER_PORT=$port SHMEM_BOOTSTRAP_TIMEOUT=60 "${extra[@]}" \
    timeout 30 "$prog" exit0-all > "$out/rank$r.txt" 2>&1 &
  pids+=($!)
done
fail=0
for ((r = 0; r < n; r++)); do
  rc=0; wait "${pids[$r]}" || rc=$?
  t=$(($(mono_ms) - start))
  echo "rank $r exited with status $rc after ${t} ms"
  ((rc != 0 && rc != 124)) || { echo "FAIL: rank $r: status $rc"; fail=1; }
  ((t <= limit_ms)) || { echo "FAIL: rank $r took ${t} ms (limit ${limit_ms} ms)"; fail=1; }
  grep -qE "$want" "$out/rank$r.txt" || { echo "FAIL: rank $r does not say /$want/"; fail=1; }
  if grep -qiE "PE [0-9]+ lost|exited with status" "$out/rank$r.txt"; then echo "FAIL: rank $r blames a PE"; fail=1; fi
done
for ((r = 0; r < n; r++)); do echo "---- rank $r"; cat "$out/rank$r.txt"; done
exit $fail
