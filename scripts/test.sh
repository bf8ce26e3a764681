#!/usr/bin/env bash
# One command: set up a fresh Debian 12 machine, check the format of the changed lines, build
# (warnings are errors in the library), and run every test; then (CI) build the library with
# clang and run the unit tests, and build the AddressSanitizer + UndefinedBehaviorSanitizer
# configuration in build-asan and run the multi-PE and unit tests under it. Any sanitizer
# report fails the run.
#   scripts/test.sh [ctest args]      extra arguments go to the first ctest and skip the
#                                     clang and sanitizer passes; TEST_CLANG=0 and
#                                     TEST_SANITIZE=0 skip one of them
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# The library builds with -Werror here (SHMEM_WERROR), so a new warning fails CI.
SHMEM_SETUP_SLURM=1 SHMEM_CMAKE_ARGS=-DSHMEM_WERROR=ON scripts/setup.sh build  # + Slurm for hosts.slurm
scripts/check-format.sh  # the C/C++ lines of the last commit (and uncommitted ones) follow .clang-format
(cd build && ctest --output-on-failure -j2 "$@")
if [ $# -gt 0 ]; then exit 0; fi

# A second compiler: clang builds the library with -Werror and runs the unit tests (TEST_CLANG=0
# skips it). Only what the unit tests need is built, so the pass stays short.
if [ "${TEST_CLANG:-1}" != 0 ]; then
  start=$(date +%s)
  CC=clang CXX=clang++ cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHMEM_WERROR=ON \
    -DSHMEM_BUILD_BENCH=OFF -DSHMEM_BUILD_EXAMPLES=OFF >/dev/null
  cmake --build build-clang -j"$(nproc)" --target shmem unit_base unit_core >/dev/null
  (cd build-clang && ctest --output-on-failure -j2 -L "^unit$")
  echo "test.sh: clang pass: $(($(date +%s) - start)) s"
fi
if [ "${TEST_SANITIZE:-1}" = 0 ]; then exit 0; fi

start=$(date +%s)
echo "test.sh: sanitizer pass (SHMEM_SANITIZE=address,undefined in build-asan)"
# -O1: sanitizer builds compile and run in reasonable time; only what the pass runs is built.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS=-O1 -DCMAKE_CXX_FLAGS=-O1 \
  -DSHMEM_SANITIZE=address,undefined -DSHMEM_BUILD_BENCH=OFF >/dev/null
targets=$(cmake --build build-asan --target help | sed -n 's/^\.\.\. \([a-z_0-9]*\).*/\1/p' |
          grep -E '^(shmem|oshrun|unit_base|unit_core|store_attack|ring|pe_[a-z_0-9]+)$' | tr '\n' ' ')
# shellcheck disable=SC2086
cmake --build build-asan -j"$(nproc)" --target $targets >/dev/null
built=$(date +%s)
log="$root/build-asan/sanitizer-ctest.log"
# handle_segv/handle_abort=0: the crash-on-purpose tests crash as they would without ASan.
# Every test's output goes to the log (-V), which must hold no sanitizer report: a test that
# expects a failure would otherwise pass over one. pe_fail_crash_null stores through NULL on
# purpose, which UBSan rightly reports instead of letting the SIGSEGV happen: left out here.
export ASAN_OPTIONS="handle_segv=0:handle_abort=0:detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export TEST_TIME_SCALE=3  # sanitized processes start slower: the tests' time limits stretch
status=0
(cd build-asan && ctest -V -j2 -L "^(pe|unit)$" -LE "^mpi$" -E "^pe_fail_crash_null" >"$log" 2>&1) || status=$?
end=$(date +%s)
grep -E "^([0-9]+/[0-9]+ )?Test +#|tests passed|tests failed|\(Failed\)|\(Timeout\)" "$log" | grep -vE "Passed" || true
echo "test.sh: sanitizer pass: build $((built - start)) s, tests $((end - built)) s"
if grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: (Address|UndefinedBehavior|Leak)Sanitizer" "$log"; then
  echo "test.sh: sanitizer reports (from $log):"
  grep -nE -A20 "ERROR: (Address|Leak)Sanitizer|runtime error:" "$log" | head -200
  status=1
fi
((status == 0)) || echo "test.sh: the sanitizer pass failed (full output: $log)"
exit $status
