# Helpers shared by the tools tests (sourced). Environment, set by CTest:
#   SHX_BIN_DIR     build/bin with oshrun, shmemrun, oshcc, oshc++, shmem-info
#   SHX_BUILD_DIR   the top-level build directory (for cmake --install)
#   SHX_SOURCE_DIR  the source tree
#   SHX_TEST_TMP    where temporary directories go (inside the build tree, not /tmp)
# (SHX_, not SHMEM_: the library reports SHMEM_* variables it does not know.)
set -u

# The leftover check compares /tmp and /dev/shm before and after each case. Other programs
# share those directories, so where possible the whole test runs in a private mount
# namespace with fresh, empty ones: then every new entry is ours. (Root can do this; others
# need unprivileged user namespaces; otherwise the shared directories are compared.)
# Fresh /tmp and /dev/shm mounts would hide a source or build tree that lives there (CI may
# clone into /tmp): then the shared directories are compared instead.
shmem_under_tmp() {
  local d
  for d in "$0" "${SHX_SOURCE_DIR:-}" "${SHX_BUILD_DIR:-}" "${SHX_BIN_DIR:-}" "${SHX_TEST_TMP:-}"; do
    [ -n "$d" ] || continue
    case "$(readlink -m "$d")/" in /tmp/* | /dev/shm/*) return 0 ;; esac
  done
  return 1
}
if [ -z "${SHX_TEST_ISOLATED:-}" ] && shmem_under_tmp; then
  SHX_TEST_ISOLATED=shared
fi
if [ -z "${SHX_TEST_ISOLATED:-}" ] && command -v unshare >/dev/null; then
  export SHX_TEST_ISOLATED=1
  mounts='mount -t tmpfs -o mode=1777 tmpfs /tmp && mount -t tmpfs -o mode=1777 tmpfs /dev/shm'
  for opts in "-m" "-rm"; do
    # shellcheck disable=SC2086
    if unshare $opts --propagation private sh -c "$mounts" 2>/dev/null; then
      # shellcheck disable=SC2086
      exec unshare $opts --propagation private sh -c "$mounts"' && exec bash "$0" "$@"' "$0" "$@"
    fi
  done
  SHX_TEST_ISOLATED=shared
fi

: "${SHX_BIN_DIR:?set by CTest}"
OSHRUN=$SHX_BIN_DIR/oshrun
TEST_NAME=$(basename "$0" .sh)
mkdir -p "${SHX_TEST_TMP:=${TMPDIR:-/tmp}}"
WORK=$(mktemp -d "$SHX_TEST_TMP/$TEST_NAME.XXXXXX")
BG_PIDS=""    # background launchers to end on exit
PE_PIDS=""    # PE pids reported by test programs, also ended on exit

cleanup() {
  local p
  for p in $BG_PIDS $PE_PIDS; do kill -KILL "$p" 2>/dev/null; done
  for p in $BG_PIDS; do wait "$p" 2>/dev/null; done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
  echo "FAIL [$TEST_NAME]: $*" >&2
  for f in "$WORK"/out "$WORK"/err; do
    [ -s "$f" ] && { echo "--- $(basename "$f"):" >&2; head -c 4000 "$f" >&2; }
  done
  exit 1
}
pass() { echo "ok - $*"; }

# write_hello_c FILE: the smallest shmem program; every PE prints "PE n of N".
write_hello_c() {
  cat >"$1" <<'SRC'
#include <shmem.h>
#include <stdio.h>
int main(void) {
  shmem_init();
  printf("PE %d of %d\n", shmem_my_pe(), shmem_n_pes());
  shmem_finalize();
  return 0;
}
SRC
}

. "$(dirname "${BASH_SOURCE[0]}")/../support/clock.sh"
now_ms() { mono_ms; }

# run CMD...: runs it with stdout/stderr in $WORK/out and $WORK/err; status in $RC.
run() {
  "$@" >"$WORK/out" 2>"$WORK/err" </dev/null
  RC=$?
}
expect_rc() { [ "$RC" = "$1" ] || fail "$2: exit status $RC, expected $1"; }
expect_out() { grep -qE -- "$1" "$WORK/out" || fail "$2: stdout lacks /$1/"; }
expect_err() { grep -qE -- "$1" "$WORK/err" || fail "$2: stderr lacks /$1/"; }

# A process counts as gone when it no longer exists or is a zombie (already dead; its new
# parent has not reaped it yet).
alive() {
  local st
  st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}
# wait_gone TIMEOUT_MS PID...: true when all are gone within the timeout.
wait_gone() {
  local limit=$(( $(now_ms) + $1 )) p any
  shift
  while :; do
    any=""
    for p in "$@"; do alive "$p" && any=1; done
    [ -z "$any" ] && return 0
    [ "$(now_ms)" -ge "$limit" ] && return 1
    sleep 0.05
  done
}
# wait_lines FILE PATTERN N TIMEOUT_MS: until FILE has N lines matching PATTERN.
wait_lines() {
  local limit=$(( $(now_ms) + $4 ))
  while [ "$(grep -cE -- "$2" "$1" 2>/dev/null || true)" -lt "$3" ]; do
    [ "$(now_ms)" -ge "$limit" ] && return 1
    sleep 0.02
  done
}

# Leftover check: the launcher must not leave anything in /dev/shm or /tmp. Other programs
# on the machine use /tmp at the same time, so entries that vanish again within a second and
# names of other programs' temporaries (gcc's ccXXXXXX.*, mktemp's tmp.*, Open MPI's
# segments, the sandbox's own files) are ignored.
FOREIGN_TEMPS='^/tmp/(cc[A-Za-z0-9]{6}\.[a-z0-9_.]+|tmp\.[A-Za-z0-9]+|ompi\..*|bash_tool_.*|bash_jobs\..*)$'
FOREIGN_TEMPS+='|^/dev/shm/(vader_segment\..*|sm_segment\..*|ompi\..*)$'
SNAPSHOT_N=0
snapshot() {
  SNAPSHOT_N=$((SNAPSHOT_N + 1))
  SNAPSHOT=$WORK/snapshot.$SNAPSHOT_N
  { ls -A /dev/shm | sed 's|^|/dev/shm/|'; ls -A /tmp | sed 's|^|/tmp/|'; } 2>/dev/null | sort >"$SNAPSHOT"
}
new_entries() {
  # In shared directories (no private namespace) other tests run alongside: only names that
  # look like ours count there.
  local ours='.'
  [ "${SHX_TEST_ISOLATED:-}" = shared ] && ours='shmem|oshrun|osh|ucx'
  { ls -A /dev/shm | sed 's|^|/dev/shm/|'; ls -A /tmp | sed 's|^|/tmp/|'; } 2>/dev/null | sort |
    comm -13 "$SNAPSHOT" - | grep -vE "$FOREIGN_TEMPS" | grep -iE "$ours" || true
}
check_no_leftovers() {
  local fresh
  fresh=$(new_entries)
  [ -z "$fresh" ] && return 0
  sleep 1
  fresh=$(new_entries)
  [ -z "$fresh" ] || fail "$1: left behind: $fresh"
}
