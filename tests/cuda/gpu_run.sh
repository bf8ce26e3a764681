#!/usr/bin/env bash
# gpu_run.sh OSHRUN NPES PROGRAM [ARGS...]: runs PROGRAM on NPES PEs under oshrun when this
# machine has a CUDA device; otherwise exits 77, which CTest reports as SKIPPED (never passed).
set -u
oshrun=$1 npes=$2 prog=$3
shift 3
"$prog" --probe || exit $?
exec "$oshrun" -n "$npes" "$prog" "$@"
