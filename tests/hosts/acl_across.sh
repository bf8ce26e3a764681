#!/bin/bash
# Ascend SHMEM's API (aclshmem.h) and the device API across namespace hosts.
#   acl_across.sh init    Ascend SHMEM's init modes with ranks on two hosts (2 hosts x 2 PEs unless
#                         said): ACLSHMEMX_INIT_WITH_DEFAULT with "tcp://<h1>:port" (per-job
#                         secret; and 1 + 1 PEs with certificates set by aclshmemx_set_conf_store_tls
#                         and aclshmemx_set_config_store_tls_key), ACLSHMEMX_INIT_WITH_UNIQUEID (the
#                         ID in a file), ACLSHMEMX_INIT_WITH_MPI under mpirun across the hosts;
#                         each runs acl_pe's checks (typed/sized RMA, p/g, int32 put_signal and
#                         signal waits, wait/test forms, teams, barriers); then acl_stream (the
#                         *_on_stream calls and aclshmemx_handle_wait). Every PE must report UCX
#                         over hnet0 for the other host, and the store must listen on h1's
#                         hnet0 address (unique ID, MPI: chosen by the library).
#   acl_across.sh device  kernels on the CPU worker pool whose device calls reach PEs on other
#                         hosts (stream_kernels: RMA, block forms, atomics, signals, waits,
#                         quiet, barriers at every scope and on teams that span hosts or stay on
#                         one; Ascend SHMEM's device names): oshrun 2,2 and 1,2,1, and 2,2 with
#                         SHMEM_PROGRESS_THREAD=off (device and stream waits drive the transport);
#                         then stream_ops (shmemx.h's on-stream RMA, signals and collectives) on 2,2.
# Environment (from CTest): ACL_PE, ACL_STREAM, STREAM_KERNELS, STREAM_OPS; MPIRUN (set only where the MPI
# plugin was built: without it the MPI case is skipped with a line saying so).
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"

# run_ok WHAT EXPECTED CMD: runs CMD in h1; it must exit 0 and print EXPECTED. RUN_MS: its time.
run_ok() {
  local t0
  t0=$(now_ms)
  run harness_exec h1 "$3"
  if [ "$RC" != 0 ]; then
    head -c 3000 "$WORK/err" >&2
    fail "$1: exit status $RC"
  fi
  expect_out "$2" "$1"
  RUN_MS=$(($(now_ms) - t0))
}
part=${1:?init or device}
snapshot

case "$part" in
  init) harness_up 2 ;;
  device) harness_up 3 ;;
  *) fail "unknown part '$part' (init or device)" ;;
esac
H1=$(harness_addr h1)

# job LAYOUT LINE: one process per PE, started by the agent on its host (LAYOUT: PEs per host,
# e.g. 2,2); in LINE {r} is the PE number and {n} the job size. Status in $RC (the first
# non-zero), output in $WORK/out and $WORK/err.
job() {
  local per pids=() r=0 h k npes=0 w line
  IFS=, read -ra per <<<"$1"
  for k in "${per[@]}"; do npes=$((npes + k)); done
  : >"$WORK/out"
  : >"$WORK/err"
  for h in "${!per[@]}"; do
    for ((k = 0; k < per[h]; k++)); do
      line=${2//\{r\}/$r}
      line=${line//\{n\}/$npes}
      harness_exec "h$((h + 1))" "exec $line" >>"$WORK/out" 2>>"$WORK/err" &
      pids+=($!)
      r=$((r + 1))
    done
  done
  RC=0
  for w in "${pids[@]}"; do wait "$w" || { [ "$RC" != 0 ] || RC=$?; }; done
  [ "$RC" != 124 ] || fail "$2: still running after $HARNESS_JOB_TIMEOUT s (hang guard)"
}

# expect_job WHAT NPES_H1 NPES_H2: the job passed, every PE says OK, and every PE reports its
# node-local PEs and UCX over hnet0 for the other host's.
expect_job() {
  local what=$1 n1=$2 n2=$3 n want
  if [ "$RC" != 0 ]; then
    head -c 3000 "$WORK/err" >&2
    fail "$what: exit status $RC"
  fi
  n=$(grep -cE '^PE [0-9]+: OK$' "$WORK/out" || true)
  [ "$n" = $((n1 + n2)) ] || fail "$what: $n of $((n1 + n2)) PEs printed OK"
  for h in 1 2; do
    local mine=$n1 other=$n2
    [ $h = 1 ] || { mine=$n2; other=$n1; }
    want="PE [0-9]+ on host 'h$h': $mine node-local PEs? over shared memory, $other remote over ucx [0-9.]+: tcp/hnet0"
    n=$(grep -cE "$want" "$WORK/err" || true)
    [ "$n" = "$mine" ] || fail "$what: expected $mine PE(s) on h$h to report /$want/, saw $n"
  done
}

store_at_h1() {  # the library chose the store's address: h1's, which h2 reaches
  grep -qE "bootstrap: $1, PE [0-9]+ of [0-9]+, store at $H1:[0-9]+" "$WORK/err" ||
    fail "$1: the store is not on h1's address $H1 ($(grep -m1 -oE 'store at [^ ]+' "$WORK/err"))"
}

port() { echo $((20000 + RANDOM % 20000)); }
INFO="env SHMEM_LOG_LEVEL=INFO"

if [ "$part" = init ]; then
  : "${ACL_PE:?set by CTest}" "${ACL_STREAM:?set by CTest}"
  secret=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')

  # ACLSHMEMX_INIT_WITH_DEFAULT: PE 0 hosts the store at the ip_port every PE is given.
  t0=$(now_ms)
  job 2,2 "$INFO SHMEM_JOB_SECRET=$secret $ACL_PE default {r} {n} tcp://$H1:$(port)"
  expect_job "ACLSHMEMX_INIT_WITH_DEFAULT tcp://$H1 (2,2)" 2 2
  pass "ACLSHMEMX_INIT_WITH_DEFAULT, tcp://$H1:port, PEs on h1 and h2 ($(($(now_ms) - t0)) ms)"

  # ... with certificates (aclshmemx_set_conf_store_tls / _tls_key; PE 1's key encrypted).
  certs=$WORK/certs
  mkdir -p "$certs"
  (
    cd "$certs" || exit 1
    set -e
    ec="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
    # shellcheck disable=SC2086
    openssl req -x509 $ec -keyout ca.key -out ca.pem -subj /CN=acl-across-ca -days 1
    for i in 0 1; do
      # shellcheck disable=SC2086
      openssl req $ec -keyout pe$i.key -out pe$i.csr -subj /CN=pe$i
      openssl x509 -req -in pe$i.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out pe$i.pem -days 1
    done
    openssl pkcs8 -topk8 -in pe1.key -out pe1.enc.key -passout pass:secret
  ) >"$WORK/openssl.log" 2>&1 || fail "certificate generation failed: $(tail -3 "$WORK/openssl.log")"
  t0=$(now_ms)
  job 1,1 "$INFO $ACL_PE tls {r} {n} tcp://$H1:$(port) $certs"
  expect_job "ACLSHMEMX_INIT_WITH_DEFAULT with certificates (1,1)" 1 1
  pass "ACLSHMEMX_INIT_WITH_DEFAULT with store certificates, PE 0 on h1, PE 1 on h2 ($(($(now_ms) - t0)) ms)"

  # ACLSHMEMX_INIT_WITH_UNIQUEID: PE 0's aclshmemx_get_uniqueid starts the store; the ID goes
  # to the others in a file (the hosts share the filesystem, as a real cluster may not: any
  # channel does).
  mkdir -p "$WORK/uid"
  t0=$(now_ms)
  job 2,2 "$INFO $ACL_PE uid {r} {n} $WORK/uid"
  expect_job "ACLSHMEMX_INIT_WITH_UNIQUEID (2,2)" 2 2
  store_at_h1 uniqueid
  pass "ACLSHMEMX_INIT_WITH_UNIQUEID, PEs on h1 and h2, the store on $H1 ($(($(now_ms) - t0)) ms)"

  # ACLSHMEMX_INIT_WITH_MPI under mpirun across the hosts (MPI's own traffic over TCP on hnet0).
  # Built without MPI (no plugin, or no mpirun) the mode does not exist, as in tests/mpi.
  if [ -z "${MPIRUN:-}" ]; then
    echo "skip - ACLSHMEMX_INIT_WITH_MPI: this build has no MPI plugin or no mpirun (tests/mpi registers nothing either)"
  else
  t0=$(now_ms)
  run harness_exec h1 "exec $MPIRUN --allow-run-as-root --oversubscribe --host h1:2,h2:2 -np 4 \
    --mca plm_rsh_agent $HARNESS_AGENT --mca btl self,tcp --mca btl_tcp_if_include hnet0 --mca pml ob1 \
    --mca osc ^rdma -x UCX_TLS -x UCX_NET_DEVICES -x SHMEM_LOG_LEVEL=INFO $ACL_PE mpi"
  [ "$RC" != 124 ] || fail "ACLSHMEMX_INIT_WITH_MPI: mpirun still running after $HARNESS_JOB_TIMEOUT s"
  expect_job "ACLSHMEMX_INIT_WITH_MPI (mpirun, 2,2)" 2 2
  store_at_h1 mpi
  pass "ACLSHMEMX_INIT_WITH_MPI under mpirun --host h1:2,h2:2, the store on $H1 ($(($(now_ms) - t0)) ms)"
  fi

  # Ascend SHMEM's stream calls: put/get/int32 signals/waits/quiet/barriers on streams, handle_wait,
  # and the errors they report (which must still name Ascend SHMEM's routines and constants).
  t0=$(now_ms)
  job 2,2 "$INFO $ACL_STREAM {r} {n} tcp://$H1:$(port)"
  expect_job "acl_stream (2,2)" 2 2
  for m in "aclshmemx_signal_op_on_stream: sig_op=7 is neither ACLSHMEM_SIGNAL_SET nor ACLSHMEM_SIGNAL_ADD" \
           "aclshmemx_barrier_on_stream: team 77 is not a valid team"; do
    grep -q "$m" "$WORK/err" || fail "acl_stream: the expected error report '$m' is missing"
  done
  pass "aclshmemx_*_on_stream and aclshmemx_handle_wait, PEs on h1 and h2 ($(($(now_ms) - t0)) ms)"
else
  : "${STREAM_KERNELS:?set by CTest}" "${STREAM_OPS:?set by CTest}"
  for case in "2,2;" "1,2,1;" "2,2;SHMEM_PROGRESS_THREAD=off"; do
    layout=${case%%;*}
    extra=${case#*;}
    hosts="" i=1
    for k in ${layout//,/ }; do hosts+="${hosts:+,}h$i:$k"; i=$((i + 1)); done
    # Without the progress thread a PE serves its peers' atomics only while it waits in the
    # library: fewer rounds of the atomics test keep that run short.
    args=""
    [ -z "$extra" ] || args=20
    run_ok "stream_kernels on $hosts ${extra:-}" "stream_kernels: 4 PEs OK" \
      "exec $OSHRUN --rsh $HARNESS_AGENT --hosts $hosts ${extra:+-x $extra} $STREAM_KERNELS $args"
    pass "device API from kernels on $hosts ${extra:+($extra) }($RUN_MS ms)"
  done
  # shmemx.h's stream calls (ordering, overlap, errors, many streams, every on-stream collective).
  run_ok "stream_ops on h1:2,h2:2" "stream_ops: 4 PEs OK" "exec $OSHRUN --rsh $HARNESS_AGENT --hosts h1:2,h2:2 $STREAM_OPS"
  pass "shmemx_*_on_stream (RMA, signals, collectives) on h1:2,h2:2 ($RUN_MS ms)"
fi
[ -z "$(harness_pids)" ] || fail "processes left in the hosts: $(harness_pids)"
check_no_leftovers "acl_across $part"
