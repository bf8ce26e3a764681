#!/bin/sh
# acl_symbols: every routine declared in <aclshmem.h> is exported by the library (a missing
# definition would otherwise only show when a ported program links).
#   usage: acl_symbols.sh <libshmem.so> <c-compiler> <include-dir>
set -eu
lib=$1 cc=$2 inc=$3
tmp=${TMPDIR:-/tmp}/acl_symbols.$$
trap 'rm -f "$tmp".*' EXIT

nm -D --defined-only "$lib" | awk '{ print $NF }' | sed 's/@.*//' | sort -u > "$tmp.exported"
printf '#include <aclshmem.h>\n' > "$tmp.c"
"$cc" -E -P -I"$inc" "$tmp.c" | tr ';' '\n' |
  grep -o -E '\baclshmemx?_[A-Za-z0-9_]+ *\(' | sed 's/ *($//' | sort -u > "$tmp.declared"
n=$(wc -l < "$tmp.declared")
[ "$n" -gt 300 ] || { echo "acl_symbols: found only $n declarations in aclshmem.h"; exit 1; }
comm -23 "$tmp.declared" "$tmp.exported" > "$tmp.missing"
if [ -s "$tmp.missing" ]; then
  echo "acl_symbols: $(wc -l < "$tmp.missing") routine(s) declared in aclshmem.h but not exported:"
  sed 's/^/  /' "$tmp.missing" | head -50
  exit 1
fi
echo "acl_symbols: all $n routines declared in aclshmem.h are exported"
