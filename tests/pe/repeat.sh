#!/usr/bin/env bash
# repeat.sh N [BUILD_DIR] [ctest args...] - run the whole "pe" label N times (default build
# dir: ./build), stopping at the first failing round. Not run by CTest; for hunting flaky tests.
set -u
n="${1:-10}"
build="${2:-build}"
shift $(( $# >= 2 ? 2 : $# ))
if [ ! -f "$build/CTestTestfile.cmake" ]; then
  echo "repeat.sh: $build is not a configured build directory" >&2
  exit 2
fi
for i in $(seq 1 "$n"); do
  echo "=== round $i of $n"
  if ! ctest --test-dir "$build" -L pe --output-on-failure "$@"; then
    echo "repeat.sh: round $i failed"
    exit 1
  fi
done
echo "repeat.sh: all $n rounds passed"
