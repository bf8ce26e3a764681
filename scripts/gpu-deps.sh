#!/usr/bin/env bash
# Run HERE (a Debian build machine) before a device run: copies into .gpu-deps/ (ignored by git)
# the build inputs the bare GPU machine may lack and cannot download: OpenSSL's headers (its
# libssl.so.3 runtime is there) and GoogleTest's sources. The device tool carries the folder:
#   run(command="scripts/gpu-check.sh", carry=[".gpu-deps"])
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.gpu-deps
rm -rf "$dest"
mkdir -p "$dest/openssl/include" "$dest/googletest"
cp -r /usr/include/openssl "$dest/openssl/include/"
cp /usr/include/x86_64-linux-gnu/openssl/*.h "$dest/openssl/include/openssl/"
cp -r /usr/src/googletest/. "$dest/googletest/"
du -sh "$dest"
