#!/bin/bash
# A real shmem program (pe_rma) with all its PEs on one remote namespace host while oshrun runs
# on h1: the PEs reach the store across namespaces, over TLS with the job's secret, on the
# address oshrun chose (automatically, SHMEM_BOOTSTRAP_IFACE, SHMEM_BOOTSTRAP_ADDR). A store
# on loopback (SHMEM_BOOTSTRAP_ADDR=127.0.0.1) is unreachable from there: that fails clearly.
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${PE_RMA:?set by CTest}"
AG=$HARNESS_AGENT
snapshot
harness_up 4
H1=$(harness_addr h1)

# on_h1 [VAR=VALUE...] -- OSHRUN-ARGS...: oshrun on h1; status in $RC.
on_h1() {
  local line="exec env" w
  while [ "$1" != -- ]; do line+=" '$1'"; shift; done
  shift
  line+=" $OSHRUN --rsh $AG"
  for w in "$@"; do line+=" '$w'"; done
  run harness_exec h1 "$line"
  [ "$RC" != 124 ] || fail "oshrun $*: still running after $HARNESS_JOB_TIMEOUT s (hang guard)"
}
WRAP='echo "store=$SHMEM_STORE_ADDR host=$(hostname) tls=${SHMEM_BOOTSTRAP_TLS:-default}"; exec "$0"'

for hosts in h2:2 h4:1; do
  n=${hosts#*:}
  on_h1 -- --hosts "$hosts" --tag-output sh -c "$WRAP" "$PE_RMA"
  expect_rc 0 "pe_rma on $hosts"
  expect_out "^\[PE 0\] pe_rma: [0-9]+ types, all forms OK$" "pe_rma on $hosts"
  for r in $(seq 0 $((n - 1))); do
    expect_out "^\[PE $r\] store=${H1//./\\.}:[0-9]+ host=${hosts%%:*} tls=default$" "pe_rma on $hosts: store address"
  done
  check_no_leftovers "pe_rma on $hosts"
  pass "pe_rma with all $n PE(s) on ${hosts%%:*}, oshrun on h1: store on $H1 (chosen automatically), TLS on"
done

on_h1 SHMEM_BOOTSTRAP_IFACE=hnet0 -- --hosts h3:2 --tag-output sh -c "$WRAP" "$PE_RMA"
expect_rc 0 "SHMEM_BOOTSTRAP_IFACE=hnet0"
expect_out "^\[PE 1\] store=${H1//./\\.}:[0-9]+ host=h3" "SHMEM_BOOTSTRAP_IFACE=hnet0"
on_h1 SHMEM_BOOTSTRAP_ADDR="$H1" -- --hosts h2:2 --tag-output sh -c "$WRAP" "$PE_RMA"
expect_rc 0 "SHMEM_BOOTSTRAP_ADDR=$H1"
expect_out "^\[PE 1\] store=${H1//./\\.}:[0-9]+ host=h2" "SHMEM_BOOTSTRAP_ADDR"
pass "SHMEM_BOOTSTRAP_IFACE and SHMEM_BOOTSTRAP_ADDR choose the store's address"

# The store on h1's loopback: the PEs on h2 cannot reach it, and the job fails in bounded time.
t0=$(now_ms)
on_h1 SHMEM_BOOTSTRAP_ADDR=127.0.0.1 SHMEM_BOOTSTRAP_TIMEOUT=3 -- --hosts h2:2 "$PE_RMA"
t=$(( $(now_ms) - t0 ))
[ "$RC" != 0 ] || fail "store on loopback: the job succeeded"
expect_err "127\.0\.0\.1" "store on loopback: message names the address"
[ "$t" -lt 20000 ] || fail "store on loopback: took ${t} ms (hang guard)"
pass "a store the remote host cannot reach fails the job clearly (${t} ms)"
check_no_leftovers "oshrun_shmem"
