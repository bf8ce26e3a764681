#!/usr/bin/env bash
# One command: set up a fresh Debian 12 machine, build, and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
cd build
ctest --output-on-failure -j2 "$@"
