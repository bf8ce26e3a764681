#!/bin/bash
# shmem-info reports SHMEM_* variables the library does not know, with the closest known name,
# as a warning (exit status 0); known variables and aliases are not reported.
. "$(dirname "$0")/common.sh"
INFO=$SHX_BIN_DIR/shmem-info
run env SHMEM_SYMMETRIC_SIZ=2G SHMEM_WAIT_TIMOUT=3 SHMEM_SYMMETRIC_HEAP_SIZE=1G SHMEM_ZZZQQQXX=1 "$INFO"
expect_rc 0 "unknown variables are warnings"
expect_err "^shmem-info: warning: SHMEM_SYMMETRIC_SIZ is not a shmem variable; did you mean SHMEM_SYMMETRIC_SIZE\?$" "typo"
expect_err "^shmem-info: warning: SHMEM_WAIT_TIMOUT is not a shmem variable; did you mean SHMEM_WAIT_TIMEOUT\?$" "typo"
expect_err "^shmem-info: warning: SHMEM_ZZZQQQXX is not a shmem variable \(shmem-info lists them\)$" "unrelated name"
grep -q "SHMEM_SYMMETRIC_HEAP_SIZE" "$WORK/err" && fail "the alias SHMEM_SYMMETRIC_HEAP_SIZE was reported"
pass "unknown SHMEM_* variables reported with the closest name"
