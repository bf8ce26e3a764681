#!/bin/sh
# stream_symbols: every routine declared in <shmemx.h> is exported by the shared library.
#   usage: check_shmemx_symbols.sh <libshmem.so> <c-compiler> <include-dir>
set -eu
lib=$1 cc=$2 inc=$3
tmp=${TMPDIR:-/tmp}/shmemx_symbols.$$
trap 'rm -f "$tmp".*' EXIT
nm -D --defined-only "$lib" | awk '{ print $NF }' | sed 's/@.*//' | sort -u > "$tmp.exported"
printf '#include <shmemx.h>\n' > "$tmp.c"
"$cc" -E -P -I"$inc" "$tmp.c" | tr ';' '\n' | grep -o -E '\bshmemx_[A-Za-z0-9_]+ *\(' | sed 's/ *($//' |
  sort -u > "$tmp.declared"
[ -s "$tmp.declared" ] || { echo "stream_symbols: found no declarations in shmemx.h"; exit 1; }
comm -23 "$tmp.declared" "$tmp.exported" > "$tmp.missing"
if [ -s "$tmp.missing" ]; then
  echo "stream_symbols: $(wc -l < "$tmp.missing") routine(s) declared in shmemx.h but not exported:"
  sed 's/^/  /' "$tmp.missing" | head -50
  exit 1
fi
echo "stream_symbols: all $(wc -l < "$tmp.declared") shmemx_* routines of shmemx.h are exported"
