#!/bin/sh
# expect_count.sh EXIT REGEX COUNT [--skip-if-driver] -- command...
#   EXIT: 0 | nonzero; COUNT: how many output lines must match REGEX (grep -E), or "some".
#   --skip-if-driver: exit 77 (SKIPPED) when a CUDA driver (libcuda.so.1) is installed.
set -u
want_exit=$1 regex=$2 want=$3
shift 3
if [ "${1:-}" = "--skip-if-driver" ]; then
  shift
  if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    echo "expect_count.sh: a CUDA driver is installed here: SKIPPED"
    exit 77
  fi
fi
[ "${1:-}" = "--" ] && shift
out=$(timeout 60 "$@" 2>&1)
status=$?
printf '%s\n' "$out"
fail=0
if [ "$want_exit" = 0 ] && [ "$status" -ne 0 ]; then echo "expect_count.sh: FAIL: exit $status, expected 0"; fail=1; fi
if [ "$want_exit" = nonzero ] && { [ "$status" -eq 0 ] || [ "$status" -eq 124 ]; }; then
  echo "expect_count.sh: FAIL: exit $status, expected a failure (not a timeout)"; fail=1
fi
got=$(printf '%s\n' "$out" | grep -c -E -- "$regex")
if [ "$want" = some ]; then
  [ "$got" -ge 1 ] || { echo "expect_count.sh: FAIL: no line matches /$regex/"; fail=1; }
elif [ "$got" -ne "$want" ]; then
  echo "expect_count.sh: FAIL: $got lines match /$regex/, expected $want"; fail=1
fi
exit $fail
