#!/usr/bin/env bash
# One command: set up a fresh Debian 12 machine, build, and run the main demo on 4 PEs.
set -euo pipefail
cd "$(dirname "$0")/.."
# Only what the demo runs (the example and the launcher); scripts/test.sh builds everything.
SHMEM_BUILD_TARGETS="ring oshrun" scripts/setup.sh build
build/bin/oshrun -n 4 build/examples/ring
