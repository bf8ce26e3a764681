#!/usr/bin/env bash
# bound_run.sh OSHRUN NPES each|first PROGRAM [ARGS...] - runs `OSHRUN -n NPES PROGRAM` with the
# PEs bound by affinity mask as launchers that bind do it, each PE's own mask different:
#   each   every PE bound to one CPU, round robin over the CPUs this script may use (PE i to
#          the (i mod n)-th), so PEs bound to different CPUs share none;
#   first  PE 0 bound to the first CPU, the others keep this script's whole mask.
# Every PE must reach the same decisions (whether PEs outnumber CPUs picks the barrier and
# collective algorithms) from its peers' masks as well as its own: with `first` at 2 PEs on 2
# CPUs a PE that judged by its own mask alone waited in another algorithm than its peer, for
# ever. The script wraps itself around PROGRAM in each PE (--as-pe). Exit status: the run's.
set -euo pipefail
if [[ ${1:-} == --as-pe ]]; then
  mode=$2
  shift 2
  pe=${SHMEM_PE:?bound_run.sh --as-pe runs under oshrun}
  cpus=()
  IFS=, read -ra ranges <<<"$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)"
  for r in "${ranges[@]}"; do
    lo=${r%-*} hi=${r#*-}
    for ((c = lo; c <= hi; c++)); do cpus+=("$c"); done
  done
  case $mode in
    each) exec taskset -c "${cpus[pe % ${#cpus[@]}]}" "$@" ;;
    first) if ((pe == 0)); then exec taskset -c "${cpus[0]}" "$@"; else exec "$@"; fi ;;
  esac
fi
if (($# < 4)) || [[ $3 != each && $3 != first ]]; then
  echo "usage: bound_run.sh OSHRUN NPES each|first PROGRAM [ARGS...]" >&2
  exit 2
fi
oshrun=$1 npes=$2 mode=$3
shift 3
exec "$oshrun" -n "$npes" "$(readlink -f "$0")" --as-pe "$mode" "$@"
