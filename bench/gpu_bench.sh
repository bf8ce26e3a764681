#!/usr/bin/env bash
# bench/gpu_bench.sh BUILD_DIR [CSV]: the GPU benchmark side by side (ours: gpu_bench; NVSHMEM:
# gpu_nvshmem, when built against the nvidia-nvshmem-cu13 wheel), at 2 PEs (and the barrier at
# 4), on one GPU under MPS (scripts/gpu-check.sh starts it). Prints the CSV and a table of
# medians and ratios (NVSHMEM / ours: > 1 means ours is faster for times, slower for bandwidth).
set -uo pipefail
build=${1:?usage: bench/gpu_bench.sh BUILD_DIR [CSV]}
csv=${2:-gpu_bench.csv}
oshrun=$build/bin/oshrun
export SHMEM_CUDA_HEAP_SIZE=${SHMEM_CUDA_HEAP_SIZE:-4G} SHMEM_WAIT_TIMEOUT=${SHMEM_WAIT_TIMEOUT:-60}
echo "lib,metric,bytes,npes,value,unit" >"$csv"
run() { timeout 90 "$oshrun" -n "$1" "${@:2}" | grep -E '^(shmem|nvshmem),' >>"$csv" || echo "gpu_bench.sh: '${*:2}' at $1 PEs failed (rc $?)"; }
run 2 "$build/bench/gpu_bench" all $((1 << 30))
run 4 "$build/bench/gpu_bench" barrier
if [ -x "$build/bench/gpu_nvshmem" ]; then
  run 2 "$build/bench/gpu_nvshmem" all $((1 << 30))
  run 4 "$build/bench/gpu_nvshmem" barrier
fi
cat "$csv"
python3 - "$csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
key = lambda r: (r["metric"], r["bytes"], r["npes"])
ours = {key(r): float(r["value"]) for r in rows if r["lib"] == "shmem"}
theirs = {key(r): float(r["value"]) for r in rows if r["lib"] == "nvshmem"}
copy = {(k[1], k[2]): v for k, v in ours.items() if k[0] == "copy_limit"}
print(f"| metric | bytes | PEs | shmem | NVSHMEM | NVSHMEM/shmem | shmem/copy limit |\n|---|---|---|---|---|---|---|")
for k, v in sorted(ours.items()):
    if k[0] == "copy_limit":
        continue
    t = theirs.get(k)
    lim = copy.get((k[1], k[2])) if k[0] == "put_bw" else None
    print(f"| {k[0]} | {k[1]} | {k[2]} | {v:.3f} | {'' if t is None else f'{t:.3f}'} | "
          f"{'' if t is None else f'{t / v:.2f}'} | {'' if lim is None else f'{v / lim:.2f}'} |")
PY
