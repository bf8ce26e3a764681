#!/usr/bin/env bash
# The GPU check, run ON the lent GPU machine (one prepared call, see docs/cuda.md):
#   here:   scripts/gpu-deps.sh            (once: OpenSSL headers and GoogleTest sources to carry)
#   device: run(command="scripts/gpu-check.sh", carry=[".gpu-deps"], timeout_s=540)
# Starts MPS (kernels of several processes on one GPU run concurrently only under MPS), builds
# with the CUDA backend, runs the CUDA test label (2, 4 and 8 PEs on one GPU), compute-sanitizer
# memcheck on one multi-PE test, and the GPU benchmark; quits MPS at the end, whatever happens.
# Everything it prints also goes to $OUT/gpu-check.log; the summary to $OUT/summary.txt, the
# benchmark's CSV to $OUT/gpu_bench.csv. Meant to finish in under 8 minutes.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-check-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/gpu-check.log") 2>&1
t0=$(date +%s)
summary() { echo "$*" | tee -a "$OUT/summary.txt"; }
step() { echo "=== $(($(date +%s) - t0)) s: $*"; }

step "machine"
nvidia-smi -L || summary "no nvidia-smi"
nvcc --version | tail -1; cmake --version | head -1; g++ --version | head -1
py=$(command -v python3)
nvshmem_dir=$("$py" -c 'import nvidia.nvshmem as m; print(list(m.__path__)[0])' 2>/dev/null || true)
echo "python3: $py; nvshmem: ${nvshmem_dir:-none}"

step "MPS"
export CUDA_MPS_PIPE_DIRECTORY=/tmp/shmem-mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/shmem-mps-log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
if nvidia-cuda-mps-control -d; then
  trap 'echo quit | nvidia-cuda-mps-control; step "MPS stopped"' EXIT
  summary "MPS: started"
else
  summary "MPS: could not start (kernels of different PEs are time-sliced: slow, but correct)"
fi

step "configure"
cfg=(-G Ninja -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSHMEM_WITH_CUDA=ON -DSHMEM_BUILD_PYTHON=OFF)
if [ ! -e /usr/include/openssl/ssl.h ] && [ -d .gpu-deps/openssl/include ]; then
  lib=$(ls /usr/lib/x86_64-linux-gnu/libssl.so.3 2>/dev/null || ldconfig -p | awk '/libssl.so.3 /{print $NF; exit}')
  clib=${lib/libssl/libcrypto}
  cfg+=(-DOPENSSL_INCLUDE_DIR="$PWD/.gpu-deps/openssl/include" -DOPENSSL_SSL_LIBRARY="$lib" -DOPENSSL_CRYPTO_LIBRARY="$clib")
  echo "OpenSSL: carried headers, libraries $lib $clib"
fi
[ -d .gpu-deps/googletest ] && cfg+=(-DSHMEM_GTEST_SOURCE_DIR="$PWD/.gpu-deps/googletest")
[ -n "$nvshmem_dir" ] && cfg+=(-DSHMEM_NVSHMEM_DIR="$nvshmem_dir")
command -v ninja >/dev/null || cfg=("${cfg[@]:2}")
if ! cmake "${cfg[@]}" >"$OUT/configure.log" 2>&1; then
  tail -40 "$OUT/configure.log"; summary "configure: FAILED (configure.log)"; exit 1
fi
grep -E "shmem .*(CUDA|NVSHMEM|UCX)" "$OUT/configure.log"

step "build"
# Only what the check runs: the library, its plugins, the launcher, the CUDA tests, examples, bench.
targets=$(cmake --build build-gpu --target help | grep -oE '^(\.\.\. )?[A-Za-z_0-9]+' | sed 's/^\.\.\. //' |
          grep -E '^(shmem|shmem_cuda|oshrun|cuda_.*|bench_gpu_.*)$' | tr '\n' ' ')
# shellcheck disable=SC2086
if ! timeout 300 cmake --build build-gpu -j"$(nproc)" --target $targets >"$OUT/build.log" 2>&1; then
  grep -E "error|Error" "$OUT/build.log" | head -40; summary "build: FAILED (build.log)"; exit 1
fi
summary "build: ok ($(($(date +%s) - t0)) s since start)"

step "CUDA tests (ctest -L '^cuda$')"
# 2-PE runs first, so that a systematic failure shows before the larger runs time out.
(cd build-gpu && timeout 150 ctest -L '^cuda$' -R '_np2$' --output-on-failure &&
  timeout 150 ctest -L '^cuda$' -E '_np2$' --output-on-failure) 2>&1 | tee "$OUT/ctest-cuda.log"
summary "ctest -L cuda: $(grep -E 'tests passed|tests failed' "$OUT/ctest-cuda.log" | tail -1)"
grep -E "Not Run|Skipped|\*\*\*" "$OUT/ctest-cuda.log" | head -20

step "compute-sanitizer memcheck (2 PEs)"
if command -v compute-sanitizer >/dev/null; then
  # The device API's kernels, then the stream operations' kernels (stream_ops.cu).
  for t in cuda_device_pe:100 cuda_stream_pe:60; do
    SHMEM_CUDA_HEAP_SIZE=256M SHMEM_WAIT_TIMEOUT=60 timeout "${t#*:}" build-gpu/bin/oshrun -n 2 \
      compute-sanitizer --tool memcheck --error-exitcode 3 "build-gpu/bin/${t%:*}" >"$OUT/memcheck-${t%:*}.log" 2>&1
    rc=$?
    tail -15 "$OUT/memcheck-${t%:*}.log"
    summary "memcheck ${t%:*} np2: rc=$rc ($(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/memcheck-${t%:*}.log") PEs with 0 errors)"
  done
else
  summary "memcheck: compute-sanitizer not found"
fi

step "benchmark"
if [ -x build-gpu/bench/gpu_bench ]; then
  timeout 150 bash bench/gpu_bench.sh build-gpu "$OUT/gpu_bench.csv" | tee "$OUT/bench.log"
  summary "benchmark: rc=$? (gpu_bench.csv, bench.log)"
fi
step "done"
summary "total: $(($(date +%s) - t0)) s"
