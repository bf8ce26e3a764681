#!/usr/bin/env bash
# bind_pe.sh PROGRAM [ARGS...] - binds this PE to one CPU of BIND_PE_CPUS ("A,B,..."), the
# (rank mod n)-th, and runs PROGRAM: how bench/contend.sh's `bound` scenario binds the PEs of
# either library as a launcher that binds does (one CPU each). The rank is SHMEM_PE under our
# oshrun, OMPI_COMM_WORLD_RANK under Open MPI's.
set -euo pipefail
rank=${SHMEM_PE:-${OMPI_COMM_WORLD_RANK:?bind_pe.sh: no SHMEM_PE or OMPI_COMM_WORLD_RANK}}
IFS=, read -ra cpus <<<"${BIND_PE_CPUS:?bind_pe.sh: BIND_PE_CPUS is not set}"
exec taskset -c "${cpus[rank % ${#cpus[@]}]}" "$@"
