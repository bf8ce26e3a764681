#!/usr/bin/env bash
# pinned_run.sh OSHRUN NPES PROGRAM [ARGS...] - runs `OSHRUN -n NPES PROGRAM` with every PE
# pinned to one CPU (the first this script may use), so that the PEs must share it: the
# setting where a wait that keeps its CPU starves the PE it waits for. Exit status: the run's.
set -euo pipefail
if (($# < 3)); then
  echo "usage: pinned_run.sh OSHRUN NPES PROGRAM [ARGS...]" >&2
  exit 2
fi
oshrun=$1 npes=$2
shift 2
list=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)
cpu=${list%%[-,]*}
if ! [[ $cpu =~ ^[0-9]+$ ]]; then
  echo "pinned_run.sh: cannot read this process's CPU list ('$list')" >&2
  exit 2
fi
exec taskset -c "$cpu" "$oshrun" -n "$npes" "$@"
