#!/bin/bash
# shmem_init under Open MPI's mpirun with PEs on two namespace hosts (the PMIx plugin: PE 0
# hosts the store on an address the other host reaches, published through PMIx): pe_rma and
# pe_amo at 2 hosts x 1 PE and 2 hosts x 2 PEs, started through the harness agent. Init's data
# (host keys, the UCX blobs) goes through PMIx, not the store: the store's traffic (the line it
# logs at SHMEM_LOG_LEVEL=INFO) stays under 900 bytes per PE (each host's PEs through its relay,
# with a channel header on every request), as on one host (tests/mpi/mpi_store_bytes.sh).
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${PE_RMA:?set by CTest}" "${PE_AMO:?set by CTest}" "${MPIRUN:?set by CTest}"
snapshot
harness_up 2
for np in 2 4; do
  hosts="h1:$((np / 2)),h2:$((np / 2))"
  for prog in "$PE_RMA" "$PE_AMO"; do
    run harness_exec h1 "exec $MPIRUN --allow-run-as-root --oversubscribe --host $hosts -np $np \
      --mca plm_rsh_agent $HARNESS_AGENT --mca btl self,tcp --mca pml ob1 --mca osc ^rdma \
      -x UCX_TLS -x UCX_NET_DEVICES -x SHMEM_LOG_LEVEL=INFO $prog"
    [ "$RC" != 124 ] || fail "mpirun $hosts $(basename "$prog"): still running after $HARNESS_JOB_TIMEOUT s"
    expect_rc 0 "mpirun $hosts $(basename "$prog")"
    n=$(grep -cE "PE [0-9]+ on host 'h[12]': $((np / 2)) node-local PEs? over shared memory, $((np / 2)) remote over ucx [0-9.]+: tcp/hnet0" "$WORK/err" || true)
    [ "$n" = "$np" ] || fail "mpirun $hosts: $n of $np PEs report UCX over tcp/hnet0 for the other host"
    line=$(grep -E "INFO store: [0-9]+ connections \(peak [0-9]+ open\), [0-9]+ bytes in, [0-9]+ bytes out$" "$WORK/err")
    [ "$(printf '%s\n' "$line" | grep -c .)" = 1 ] || fail "mpirun $hosts: expected one store traffic line, got: $line"
    read -r bin bout < <(printf '%s\n' "$line" | sed -E 's/.* ([0-9]+) bytes in, ([0-9]+) bytes out$/\1 \2/')
    per_pe=$(((bin + bout) / np))
    [ "$per_pe" -le 900 ] || fail "mpirun $hosts: the store carried $per_pe bytes per PE ($bin in, $bout out): init's data through the store?"
    pass "mpirun --host $hosts $(basename "$prog"): PEs on both hosts, UCX over tcp/hnet0; store $bin bytes in, $bout out"
  done
done
[ -z "$(harness_pids)" ] || fail "processes left in the hosts: $(harness_pids)"
check_no_leftovers "mpirun across hosts"
