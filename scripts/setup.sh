#!/usr/bin/env bash
# Installs the Debian 12 packages shmem needs (only those missing) and configures + builds.
#   scripts/setup.sh [build-dir]      (default: build)
# SHMEM_CMAKE_ARGS: extra arguments for the configure step (scripts/test.sh: -DSHMEM_WERROR=ON).
# SHMEM_BUILD_TARGETS: build only these targets (scripts/demo.sh), default everything.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}

PKGS=(cmake g++ make pkg-config libssl-dev openssl libgtest-dev python3 python3-dev pybind11-dev python3-numpy python3-pytest procps
      autoconf automake  # tests/tools/oshcc_buildsys.sh: CC=oshcc ./configure
      libopenmpi-dev openmpi-bin libpmix-dev)  # MPI and PMIx: the bootstrap plugins (docs/launchers.md)
PKGS+=(libucx-dev)  # the UCX transport plugin (PEs on other hosts)
# PyTorch 1.13 (docs/python.md, PyTorch): shmem.torch, the torch.distributed backend (built against
# libtorch-dev) and the torchrun tests: 174 packages, 652 MB, about two minutes more on a fresh Debian 12.
PKGS+=(python3-torch libtorch-dev)
PKGS+=(iproute2 hostname util-linux)  # the namespace hosts of tests/hosts (ip, hostname, unshare)
PKGS+=(man-db)  # tests/tools/man_pages.sh: man -l renders the man pages
PKGS+=(python3-venv python3-pip python3-setuptools python3-wheel)  # pip install . (tests/tools/pip_install.sh)
PKGS+=(clang clang-format)  # scripts/test.sh: the second compiler, and the format check of changed lines
# tests/hosts/slurm_across.sh: a private Slurm cluster on those hosts (srun --mpi=pmix). Only the
# test starts Slurm's daemons, with its own slurm.conf (no munge); nothing else needs Slurm, so
# only scripts/test.sh asks for it (SHMEM_SETUP_SLURM=1), not the demo.
if [ "${SHMEM_SETUP_SLURM:-0}" = 1 ]; then
  PKGS+=(slurmctld slurmd slurm-client slurm-wlm-basic-plugins)
fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# shellcheck disable=SC2086
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${SHMEM_CMAKE_ARGS:-} >/dev/null
# shellcheck disable=SC2086
cmake --build "$BUILD" -j"$(nproc)" ${SHMEM_BUILD_TARGETS:+--target $SHMEM_BUILD_TARGETS}
