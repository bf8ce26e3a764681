#!/bin/bash
# shmem-info --check: every check reports; a heap larger than memory, a low open-file limit and
# bad TLS settings fail (exit 1) with the fix; certificates that fit pass.
. "$(dirname "$0")/common.sh"
INFO=$SHX_BIN_DIR/shmem-info
unset SHMEM_BOOTSTRAP_TLS SHMEM_BOOTSTRAP_TLS_INFO SHMEM_SYMMETRIC_SIZE UCX_TLS UCX_NET_DEVICES
export SHMEM_SYMMETRIC_SIZE=16M  # fits any CI machine's memory and cgroup

run "$INFO" --check
expect_rc 0 "--check on this machine"
for what in heap /dev/shm files ptrace ucx gpu tls; do
  grep -qE "^\[(ok  |warn)\] $what " "$WORK/out" || fail "--check: no passing '$what' line"
done
expect_out "^0 failed, [0-9]+ warnings?$" "summary"
pass "--check: every check reports, none fails here"

SHMEM_SYMMETRIC_SIZE=100T run "$INFO" --check -n 4
expect_rc 1 "heap larger than memory"
expect_out "^\[FAIL\] heap +SHMEM_SYMMETRIC_SIZE=100 TiB per PE x 4 PEs = 400 TiB is more than" "heap line"
expect_out "fix: set SHMEM_SYMMETRIC_SIZE to at most" "heap fix"
expect_out "^1 failed" "summary counts the failure"
run bash -c "ulimit -n 40 && exec '$INFO' --check -n 8"
expect_rc 1 "low open-file limit"
expect_out "^\[FAIL\] files +open files: soft limit 40, hard 40; 8 PEs need at least 96" "files line"
expect_out "fix: raise the hard limit" "files fix"
SHMEM_SYMMETRIC_SIZE=12xb run "$INFO" --check
expect_rc 1 "invalid variable"
expect_out "^\[FAIL\] config .*SHMEM_SYMMETRIC_SIZE='12xb'" "invalid variable named"
run "$INFO" --check -n zero
expect_rc 2 "bad -n"
pass "heap, open files and invalid variables fail with the fix"

SHMEM_BOOTSTRAP_TLS=0 run "$INFO" --check
expect_rc 0 "TLS off is a warning"
expect_out "^\[warn\] tls .*plain TCP" "TLS off"
SHMEM_BOOTSTRAP_TLS_INFO="tlsBogus: x" run "$INFO" --check
expect_rc 1 "unknown TLS key"
expect_out "^\[FAIL\] tls .*tlsBogus" "unknown TLS key named"
if command -v openssl >/dev/null; then
  C=$WORK/certs
  mkdir -p "$C"
  ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
  openssl req -x509 "${ec[@]}" -keyout "$C/ca.key" -out "$C/ca.pem" -days 2 -subj /CN=ca 2>/dev/null &&
    openssl req "${ec[@]}" -keyout "$C/pe.key" -out "$C/pe.csr" -subj /CN=pe 2>/dev/null &&
    openssl x509 -req -in "$C/pe.csr" -CA "$C/ca.pem" -CAkey "$C/ca.key" -CAcreateserial -days 2 \
      -out "$C/pe.pem" 2>/dev/null &&
    openssl req -x509 "${ec[@]}" -keyout "$C/other.key" -out "$C/other.pem" -days 2 -subj /CN=other 2>/dev/null ||
    fail "openssl could not make test certificates"
  SHMEM_BOOTSTRAP_TLS_INFO="tlsCaFile: $C/ca.pem; tlsCert: $C/pe.pem; tlsPk: $C/pe.key" run "$INFO" --check
  expect_rc 0 "good certificates"
  expect_out "^\[ok  \] tls .*certificate $C/pe.pem valid, its key matches, verified by the CA" "good certificates"
  SHMEM_BOOTSTRAP_TLS_INFO="tlsCaFile: $C/ca.pem; tlsCert: $C/pe.pem; tlsPk: $C/other.key" run "$INFO" --check
  expect_rc 1 "key of another certificate"
  expect_out "^\[FAIL\] tls +tlsPk $C/other.key is not the key of $C/pe.pem" "wrong key named"
  SHMEM_BOOTSTRAP_TLS_INFO="tlsCaFile: $C/ca.pem; tlsCert: $C/other.pem; tlsPk: $C/other.key" run "$INFO" --check
  expect_rc 1 "certificate of another CA"
  expect_out "^\[FAIL\] tls +tlsCert $C/other.pem is not verified by the CA" "unverified certificate"
  SHMEM_BOOTSTRAP_TLS_INFO="tlsCaFile: $C/missing.pem; tlsCert: $C/pe.pem; tlsPk: $C/pe.key" run "$INFO" --check
  expect_rc 1 "missing CA file"
  expect_out "^\[FAIL\] tls +$C/missing.pem: No such file" "missing file named"
  pass "TLS: certificates checked (valid, key, CA, missing file)"
fi
