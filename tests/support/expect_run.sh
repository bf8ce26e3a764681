#!/usr/bin/env bash
# expect_run.sh - run a command (usually `oshrun -n N prog args`) and check how it ends: the one
# wrapper of every test that expects an exit status or messages (tests/support/shmem_tests.cmake).
#
#   expect_run.sh [options] -- command [args...]
#     --exit N|nonzero|0   expected exit status (default 0)
#     --match ERE          the combined output must match (grep -iE); repeatable, all must match
#     --case-sensitive     --match and --no-match compare case (grep -E)
#     --no-match ERE       the combined output must not match; repeatable
#     --max-seconds S      the command must end within S seconds (default: no limit)
#     --timeout S          hang guard: kill the command after S seconds (default 30)
#   TEST_TIME_SCALE (default 1) multiplies --max-seconds (the sanitizer pass of scripts/test.sh
#   sets 3: sanitized processes start and end slower, more so next to another test).
#     --env NAME=VALUE     set in the command's environment; repeatable
#     --no-leak-check      skip the /dev/shm, /tmp and leftover-process checks
#
# Leak check: the command runs with TMPDIR pointing at a fresh private directory that must be
# empty afterwards. New entries in /dev/shm (except glibc's sem.* and Open MPI / PMIx segments)
# and new entries in /tmp whose names look like ours (shmem, oshrun, osh, ucx) that are still
# there 2 s after the command ended are failures (other programs on this machine create and
# delete such files meanwhile). No process running the test program may be left once the
# launcher has returned (3 s grace).
set -u
. "$(dirname "$0")/clock.sh"

expect_exit=0
matches=()
no_matches=()
max_seconds=""
timeout_s=30
envs=()
leak_check=1
grep_case=-i
while [ $# -gt 0 ]; do
  case "$1" in
    --exit) expect_exit="$2"; shift 2 ;;
    --match) matches+=("$2"); shift 2 ;;
    --no-match) no_matches+=("$2"); shift 2 ;;
    --max-seconds) max_seconds="$2"; shift 2 ;;
    --timeout) timeout_s="$2"; shift 2 ;;
    --env) envs+=("$2"); shift 2 ;;
    --no-leak-check) leak_check=0; shift ;;
    --case-sensitive) grep_case=""; shift ;;
    --) shift; break ;;
    *) echo "expect_run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ $# -eq 0 ]; then
  echo "expect_run.sh: no command" >&2
  exit 2
fi
[ -z "$max_seconds" ] || max_seconds=$(awk -v m="$max_seconds" -v k="${TEST_TIME_SCALE:-1}" 'BEGIN { print m * k }')

work=$(mktemp -d "${PWD}/expect_run.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
mkdir "$work/tmp"
out="$work/output"
failures=0
fail() {
  echo "expect_run.sh: FAIL: $*"
  failures=$((failures + 1))
}

list_dir() { ls -A1 "$1" 2>/dev/null | sort; }
shm_before=$(list_dir /dev/shm)
tmp_before=$(list_dir /tmp)

# The program whose processes must not outlive the launcher: the last argument that is an
# executable file other than the launcher itself.
prog=""
for a in "$@"; do
  if [ -f "$a" ] && [ -x "$a" ] && [ "$a" != "$1" ]; then prog="$a"; fi
done

start=$(mono_ms)
env TMPDIR="$work/tmp" "${envs[@]}" timeout --kill-after=5 "$timeout_s" "$@" >"$out" 2>&1
status=$?
end=$(mono_ms)
elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", (b - a) / 1000 }')

echo "---- output of: $* (${envs[*]:-})"
cat "$out"
echo "---- exit status $status after ${elapsed}s"

if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
  fail "hung: killed by the ${timeout_s}s hang guard"
fi
case "$expect_exit" in
  nonzero) [ "$status" -ne 0 ] || fail "exit status 0, expected non-zero" ;;
  *) [ "$status" -eq "$expect_exit" ] || fail "exit status $status, expected $expect_exit" ;;
esac
if [ -n "$max_seconds" ]; then
  awk -v e="$elapsed" -v m="$max_seconds" 'BEGIN { exit !(e < m) }' ||
    fail "took ${elapsed}s, limit ${max_seconds}s"
fi
for re in "${matches[@]+"${matches[@]}"}"; do
  grep -q $grep_case -E -- "$re" "$out" || fail "output does not match /$re/"
done
for re in "${no_matches[@]+"${no_matches[@]}"}"; do
  if grep -q $grep_case -E -- "$re" "$out"; then fail "output matches /$re/ but must not"; fi
done

if [ "$leak_check" -eq 1 ]; then
  if [ -n "$(ls -A "$work/tmp")" ]; then
    fail "files left in TMPDIR: $(ls -A "$work/tmp" | tr '\n' ' ')"
  fi
  # Entries that appear and vanish again belong to other programs running at the same time
  # (compilers, other test suites): only what is still there after a grace period counts.
  new_entries() {  # $1 dir, $2 listing before, $3 filter ERE
    comm -13 <(echo "$2") <(list_dir "$1") | grep -iE -- "$3" || true
  }
  ours_re='shmem|oshrun|osh|ucx'
  # /dev/shm: anything new, except what glibc semaphores and Open MPI / PMIx jobs (run by
  # other people on this machine, e.g. the OSHMEM comparison benchmarks) create there.
  others_shm_re='^(sem\.|vader_segment|sm_segment|ompi|pmix|psm|shm_segment|cma)'
  new_shm=$(new_entries /dev/shm "$shm_before" '.' | grep -viE -- "$others_shm_re" || true)
  new_tmp=$(new_entries /tmp "$tmp_before" "$ours_re")
  for _ in $(seq 20); do
    [ -z "$new_shm$new_tmp" ] && break
    sleep 0.1
    new_shm=$(echo "$new_shm" | while read -r e; do [ -n "$e" ] && [ -e "/dev/shm/$e" ] && echo "$e"; done)
    new_tmp=$(echo "$new_tmp" | while read -r e; do [ -n "$e" ] && [ -e "/tmp/$e" ] && echo "$e"; done)
  done
  [ -z "$new_shm" ] || fail "new entries left in /dev/shm: $(echo $new_shm)"
  [ -z "$new_tmp" ] || fail "new entries left in /tmp: $(echo $new_tmp)"
  if [ -n "$prog" ]; then
    left=""
    for _ in $(seq 30); do
      left=$(pgrep -f -- "^${prog}( |$)" || true)
      [ -z "$left" ] && break
      sleep 0.1
    done
    [ -z "$left" ] || fail "processes of $prog still running after the launcher returned: $(echo $left)"
  fi
fi

if [ "$failures" -ne 0 ]; then
  echo "expect_run.sh: $failures check(s) failed"
  exit 1
fi
echo "expect_run.sh: PASS"
exit 0
