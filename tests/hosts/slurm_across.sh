#!/bin/bash
# shmem_init under Slurm's `srun --mpi=pmix` with PEs on namespace hosts: a private Slurm
# cluster (slurm_cluster.sh: slurmctld on h1, a slurmd on each of h1..h3), srun on h1. The PEs
# meet through the PMIx server in Slurm's slurmstepd (our PMIx plugin; PE 0 hosts the store and
# publishes its address), and reach PEs on other hosts over UCX's TCP transport, with UCX_TLS
# and UCX_NET_DEVICES taken from the environment srun propagates.
#   2 hosts x 2 PEs (-N 2 --ntasks-per-node=2): every PE on the host srun put it on, the store
#     on h1 (PE 0's host), UCX over tcp/hnet0, init's data through PMIx (the store's traffic, its
#     INFO line, under 900 bytes per PE, as tests/mpi/mpi_store_bytes.sh); the host-agnostic programs of tests/pe
#   1-2-1 on 3 hosts (-m arbitrary -w h1,h2,h2,h3): the same checks; pe_rma and pe_amo
#   a PE on h2 calling exit(4) before shmem_finalize while the others wait in a barrier: srun
#     exits 4, every other PE names PE 3 and its status, nothing of the job is left
#   srun without --mpi=pmix: every task fails in shmem_init, saying so (not 4 jobs of one PE)
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
. "$(dirname "$0")/slurm_cluster.sh"
: "${PE_PROGRAMS:?set by CTest}" "${PE_EXIT:?set by CTest}"
export SHX_HARNESS_UCX_TLS=tcp,self
snapshot
harness_up 3
slurm_up 3
pass "Slurm cluster up: slurmctld on h1, slurmd on h1 h2 h3 (sinfo: 3 nodes idle)"
H1=$(harness_addr h1)

# job LABEL "SRUN-OPTIONS" "VAR=VALUE..." PROGRAM [ARGS]: srun on h1, the tasks in $WORK, under
# the hang guard (and Slurm's own 2-minute limit); status in $RC, output in $WORK/out and err.
job() {
  local label=$1 opts=$2 envs=$3
  shift 3
  run harness_exec h1 "exec env $envs srun --time=2 --chdir=$WORK $opts $*"
  [ "$RC" != 124 ] || fail "$label: still running after $HARNESS_JOB_TIMEOUT s (hang guard)"
}

# No process of the job may outlive srun in any host: only Slurm's daemons stay.
check_job_gone() {
  local p exe left=""
  for p in $(harness_pids); do
    exe=$(readlink "/proc/$p/exe" 2>/dev/null) || continue
    case "$exe" in */slurmd* | */slurmctld* | */slurmstepd*) ;; *) left+=" $p($exe)" ;; esac
  done
  [ -z "$left" ] || fail "$1: processes left in the hosts after srun returned:$left"
}

# check_layout LABEL HOST-OF-PE-0 HOST-OF-PE-1 ...: from the INFO lines in $WORK/err, every PE
# ran on the host given, used the PMIx bootstrap with the store on PE 0's host (loopback there,
# h1's hnet0 address elsewhere) and reached the PEs of other hosts over tcp/hnet0.
check_layout() {
  local label=$1 npes=$(($# - 1)) r=0 h local_n want store
  shift
  local hosts=("$@")
  for h in "${hosts[@]}"; do
    local_n=$(printf '%s\n' "${hosts[@]}" | grep -cx "$h")
    want="PE $r on host '$h': $local_n node-local PEs? over shared memory, $((npes - local_n)) remote over ucx [0-9.]+: tcp/hnet0"
    grep -qE "^\[$h:[0-9]+\] PE $r/$npes INFO init: $want" "$WORK/err" ||
      fail "$label: no line /$want/ from PE $r on $h"
    store=$H1
    [ "$h" = h1 ] && store=127.0.0.1
    grep -qE "^\[$h:[0-9]+\] PE $r/$npes INFO init: bootstrap: pmix, PE $r of $npes, store at $store:[0-9]+" "$WORK/err" ||
      fail "$label: PE $r on $h did not report the PMIx bootstrap with the store at $store (h1 hosts it)"
    r=$((r + 1))
  done
}

# ---- 2 hosts x 2 PEs ---------------------------------------------------------------------------
two_by_two="--mpi=pmix -N 2 -n 4 --ntasks-per-node=2 -w h1,h2"
first=${PE_PROGRAMS%% *}
job "srun 2x2 $(basename "$first")" "$two_by_two" SHMEM_LOG_LEVEL=INFO "$first"
expect_rc 0 "srun --mpi=pmix $two_by_two $(basename "$first")"
check_layout "srun 2x2" h1 h1 h2 h2
line=$(grep -E "INFO store: [0-9]+ connections \(peak [0-9]+ open\), [0-9]+ bytes in, [0-9]+ bytes out$" "$WORK/err")
[ "$(printf '%s\n' "$line" | grep -c .)" = 1 ] || fail "srun 2x2: expected one store traffic line, got: $line"
read -r bin bout < <(printf '%s\n' "$line" | sed -E 's/.* ([0-9]+) bytes in, ([0-9]+) bytes out$/\1 \2/')
[ $(((bin + bout) / 4)) -le 900 ] || fail "srun 2x2: the store carried $(((bin + bout) / 4)) bytes per PE: init's data through the store?"
pass "srun --mpi=pmix 2x2: PEs 0,1 on h1 and 2,3 on h2, the store on h1 ($bin bytes in, $bout out), UCX over tcp/hnet0 between the hosts"
for prog in $PE_PROGRAMS; do
  t0=$(now_ms)
  job "srun 2x2 $(basename "$prog")" "$two_by_two" "" "$prog"
  expect_rc 0 "srun --mpi=pmix 2x2 $(basename "$prog")"
  pass "srun --mpi=pmix 2x2 $(basename "$prog") ($(($(now_ms) - t0)) ms)"
done
check_job_gone "srun 2x2"

# ---- 1-2-1 on 3 hosts (task i on the i-th host of the list) ------------------------------------
one_two_one="--mpi=pmix -n 4 -m arbitrary -w h1,h2,h2,h3"
for prog in $PE_PROGRAMS; do
  case "$(basename "$prog")" in pe_rma | pe_amo) ;; *) continue ;; esac
  job "srun 1-2-1 $(basename "$prog")" "$one_two_one" SHMEM_LOG_LEVEL=INFO "$prog"
  expect_rc 0 "srun --mpi=pmix $one_two_one $(basename "$prog")"
  check_layout "srun 1-2-1 $(basename "$prog")" h1 h2 h2 h3
  pass "srun --mpi=pmix 1-2-1 $(basename "$prog"): PE 0 on h1, 1,2 on h2, 3 on h3, the store on h1, tcp/hnet0"
done
check_job_gone "srun 1-2-1"

# ---- a failing PE ends the job -----------------------------------------------------------------
# PE 3 (on h2) calls exit(4) while PEs 0-2 wait in shmem_barrier_all; the library's job watcher
# ends them (no --kill-on-bad-exit: Slurm does not end the step for us).
job "srun 2x2 pe_exit exit 4" "$two_by_two" "" "$PE_EXIT" exit 4
expect_rc 4 "srun --mpi=pmix 2x2 pe_exit exit 4 (PE 3 on h2 exits 4)"
for r in 0 1 2; do
  expect_err "PE $r/4 FATAL init: PE $r: the job failed \(PE 3 exited with status 4 before shmem_finalize\); ending this PE" \
    "srun 2x2 pe_exit exit 4: PE $r"
done
expect_err "srun: error: h2: tasks? [0-9,-]*3[0-9,-]*: Exited with exit code 4" "srun 2x2 pe_exit exit 4: srun's report"
! grep -q "NOT STOPPED" "$WORK/out" "$WORK/err" || fail "srun 2x2 pe_exit exit 4: a barrier completed without PE 3"
check_job_gone "srun 2x2 pe_exit exit 4"
pass "srun --mpi=pmix 2x2: PE 3 exiting 4 on h2 ends the job with status 4, every other PE names it"

# ---- srun without PMIx (this cluster's MpiDefault=none) ----------------------------------------
# Every task must refuse to run as a job of one PE, naming the cure.
job "srun 2x2 without --mpi=pmix" "-N 2 -n 4 --ntasks-per-node=2 -w h1,h2" "" "$first"
expect_rc 1 "srun 2x2 without --mpi=pmix"
for r in 0 1 2 3; do
  expect_err "FATAL api: shmem_init: started by srun as task $r of 4 \(SLURM_PROCID, SLURM_STEP_NUM_TASKS\) but without PMIx.*srun --mpi=pmix" \
    "srun 2x2 without --mpi=pmix: task $r"
done
! grep -q "OK" "$WORK/out" || fail "srun 2x2 without --mpi=pmix: a task ran $(basename "$first") alone"
check_job_gone "srun 2x2 without --mpi=pmix"
pass "srun without --mpi=pmix: every task fails at shmem_init saying to use srun --mpi=pmix"

check_no_leftovers "srun across hosts"
