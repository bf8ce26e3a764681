#!/bin/sh
# api_symbols: the shared library exports only OpenSHMEM names, and every routine declared in
# <shmem.h> is exported.
#   usage: check_symbols.sh <libshmem.so> <c-compiler> <include-dir>
# Allowed exports: shmem_*, shmemx_* (extensions), pshmem_*, pshmemx_* (profiling), aclshmem*/aclshmemx* (Ascend SHMEM API), and
# the deprecated spec names start_pes, _my_pe, _num_pes, shmalloc, shfree, shrealloc, shmemalign with their
# profiling names (pstart_pes, p_my_pe, ...).
set -eu
lib=$1 cc=$2 inc=$3
tmp=${TMPDIR:-/tmp}/api_symbols.$$
trap 'rm -f "$tmp".*' EXIT

# Symbols the linker itself defines in every shared object are not ours.
nm -D --defined-only "$lib" | awk '{ print $NF }' | sed 's/@.*//' |
  grep -v -E '^(_init|_fini|_edata|_end|__bss_start)$' | sort -u > "$tmp.exported"
[ -s "$tmp.exported" ] || { echo "api_symbols: no exported symbols in $lib"; exit 1; }

grep -v -E '^(p?shmemx?_|aclshmemx?_|p?(start_pes|_my_pe|_num_pes|shmalloc|shfree|shrealloc|shmemalign)$)' \
  "$tmp.exported" > "$tmp.bad" || true
status=0
if [ -s "$tmp.bad" ]; then
  echo "api_symbols: $(wc -l < "$tmp.bad") exported symbol(s) outside the OpenSHMEM namespace:"
  sed 's/^/  /' "$tmp.bad" | head -50
  status=1
fi

# Every function declared by shmem.h must be defined by the library (a missing definition would
# otherwise show up only when a user program links).
printf '#include <shmem.h>\n' > "$tmp.c"
"$cc" -E -P -I"$inc" "$tmp.c" |
  tr ';' '\n' | grep -o -E '\b(p?shmem_[A-Za-z0-9_]+|start_pes|_my_pe|_num_pes|shmalloc|shfree|shrealloc|shmemalign) *\(' |
  sed 's/ *($//' | grep -v -E '^shmem_ctx_session_config_t$' | sort -u > "$tmp.declared"
[ -s "$tmp.declared" ] || { echo "api_symbols: found no declarations in shmem.h"; exit 1; }
comm -23 "$tmp.declared" "$tmp.exported" > "$tmp.missing"
if [ -s "$tmp.missing" ]; then
  echo "api_symbols: $(wc -l < "$tmp.missing") routine(s) declared in shmem.h but not exported:"
  sed 's/^/  /' "$tmp.missing" | head -50
  status=1
fi
echo "api_symbols: $(wc -l < "$tmp.exported") exported, $(wc -l < "$tmp.declared") declared"
exit $status
