#!/usr/bin/env bash
# coll_expect.sh - run a command and check how it ends.
#
#   coll_expect.sh [--exit N|nonzero] [--match ERE]... [--no-match ERE]... [--timeout S]
#                  [--env NAME=VALUE]... -- command [args...]
#
# --exit defaults to 0. Every --match must match the combined stdout+stderr (grep -E), no
# --no-match may. The output is echoed (CTest shows it when the test fails).
set -u
expect_exit=0
timeout_s=60
matches=()
no_matches=()
envs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --exit) expect_exit="$2"; shift 2 ;;
    --match) matches+=("$2"); shift 2 ;;
    --no-match) no_matches+=("$2"); shift 2 ;;
    --timeout) timeout_s="$2"; shift 2 ;;
    --env) envs+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "coll_expect.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "coll_expect.sh: no command" >&2; exit 2; }

out=$(mktemp) || exit 2
trap 'rm -f "$out"' EXIT
env ${envs[@]+"${envs[@]}"} timeout --kill-after=5 "$timeout_s" "$@" >"$out" 2>&1
status=$?
cat "$out"
failures=0
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
  echo "coll_expect.sh: FAIL: timed out after ${timeout_s}s"
  failures=$((failures + 1))
elif [ "$expect_exit" = nonzero ]; then
  [ "$status" -ne 0 ] || { echo "coll_expect.sh: FAIL: exit status 0, expected nonzero"; failures=$((failures + 1)); }
elif [ "$status" -ne "$expect_exit" ]; then
  echo "coll_expect.sh: FAIL: exit status $status, expected $expect_exit"
  failures=$((failures + 1))
fi
for re in ${matches[@]+"${matches[@]}"}; do
  grep -qE -- "$re" "$out" || { echo "coll_expect.sh: FAIL: output does not match /$re/"; failures=$((failures + 1)); }
done
for re in ${no_matches[@]+"${no_matches[@]}"}; do
  if grep -qE -- "$re" "$out"; then
    echo "coll_expect.sh: FAIL: output matches /$re/"
    failures=$((failures + 1))
  fi
done
[ "$failures" -eq 0 ] && echo "coll_expect.sh: OK (exit status $status)"
[ "$failures" -eq 0 ]
