#!/usr/bin/env bash
# mpi_run.sh - run a program under Open MPI's mpirun and check how it went.
#
#   mpi_run.sh --mpirun PATH [options] -- program args...
#     -n N                processes (default 2); more than the cores is allowed (--oversubscribe)
#     --match ERE         the combined output must match ERE (grep -E); repeatable
#     --no-match ERE      the combined output must not match ERE; repeatable
#     --expect-fail ERE   the job must fail (mpirun exits non-zero) and the output match ERE;
#                         repeatable
#     --timeout S         end the whole job after S seconds (default 50): a test never hangs
#     --unset VAR         start the processes without VAR in their environment; repeatable
#
# mpirun ends the whole job as soon as one process exits non-zero, so a failing PE never leaves
# the others waiting. Runs as root too (--allow-run-as-root). The output is printed afterwards.
set -u

mpirun=""
np=2
timeout_s=50
matches=()
no_matches=()
expects=()
unsets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --mpirun) mpirun="$2"; shift 2 ;;
    -n) np="$2"; shift 2 ;;
    --match) matches+=("$2"); shift 2 ;;
    --no-match) no_matches+=("$2"); shift 2 ;;
    --expect-fail) expects+=("$2"); shift 2 ;;
    --timeout) timeout_s="$2"; shift 2 ;;
    --unset) unsets+=(-u "$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "mpi_run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$mpirun" ] && [ $# -gt 0 ] || { echo "usage: mpi_run.sh --mpirun PATH [options] -- program args" >&2; exit 2; }

cmd=("$mpirun" --allow-run-as-root --oversubscribe -n "$np")
[ ${#unsets[@]} -gt 0 ] && cmd+=(env "${unsets[@]}")
cmd+=("$@")
echo "mpi_run.sh: ${cmd[*]}"
output=$(timeout -k 5 "$timeout_s" "${cmd[@]}" 2>&1 </dev/null)
rc=$?
printf '%s\n' "$output"
echo "mpi_run.sh: mpirun exited with $rc"

if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
  echo "mpi_run.sh: FAILED: the job was still running after ${timeout_s}s"
  exit 1
fi
for e in ${matches[@]+"${matches[@]}"}; do
  grep -qE -- "$e" <<<"$output" || { echo "mpi_run.sh: FAILED: the output does not match '$e'"; exit 1; }
done
for e in ${no_matches[@]+"${no_matches[@]}"}; do
  if grep -qE -- "$e" <<<"$output"; then echo "mpi_run.sh: FAILED: the output matches '$e'"; exit 1; fi
done
if [ ${#expects[@]} -eq 0 ]; then
  [ $rc -eq 0 ] || { echo "mpi_run.sh: FAILED"; exit 1; }
  echo "mpi_run.sh: passed"
  exit 0
fi
[ $rc -ne 0 ] || { echo "mpi_run.sh: FAILED: mpirun exited 0, but a failure was expected"; exit 1; }
for e in "${expects[@]}"; do
  grep -qE -- "$e" <<<"$output" || { echo "mpi_run.sh: FAILED: the output does not match '$e'"; exit 1; }
done
echo "mpi_run.sh: failed as expected"
exit 0
