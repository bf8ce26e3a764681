# shellcheck shell=bash
# A private Slurm cluster on the namespace hosts of harness.sh (sourced after harness.sh; see
# README.md). Needs Debian's slurmctld, slurmd, slurm-client and slurm-wlm-basic-plugins
# (SHMEM_SETUP_SLURM=1 scripts/setup.sh installs them; scripts/test.sh sets it).
#
#   slurm_up N        after harness_up N: slurmctld in h1, one slurmd per host h1..hN (node
#                     name hI, address harness_addr hI), each in its host's network and UTS
#                     namespaces; returns once every node is idle (or fails the test, saying why)
#
# Everything lives in $WORK/slurm (the generated slurm.conf, exported as SLURM_CONF, state,
# spool, temporary and log directories per node), which common.sh's cleanup removes; the daemons
# run inside the hosts, so harness_down ends them with everything else there. No system service
# is used: authentication is auth/none (no munged), processes are tracked by their parent ids
# (proctrack/linuxproc), no cgroups, no accounting. The ports are Slurm's defaults: every harness
# has its own network namespaces, so two clusters at once never meet.
SLURM_DIR=""
declare -A SLURM_PIDS=()  # daemon name (slurmctld, slurmd_h2, ...) -> the pid of its agent
SLURM_UP_TIMEOUT=${SLURM_UP_TIMEOUT:-30}

# The last lines of every daemon's log (a failing test shows them: they go with $WORK).
_slurm_tail_logs() {
  local f
  for f in "$SLURM_DIR"/log/*.log; do
    [ -s "$f" ] && { echo "--- $(basename "$f") (last lines):" >&2; tail -n 15 "$f" >&2; }
  done
}

_slurm_die() {
  echo "FAIL [slurm]: $*" >&2
  _slurm_tail_logs
  exit 1
}

# common.sh's fail, preceded by the daemons' logs once the cluster is there.
eval "_slurm_common_$(declare -f fail)"
fail() {
  [ -n "$SLURM_DIR" ] && _slurm_tail_logs
  _slurm_common_fail "$@"
}

_slurm_check() {
  local p dir missing=""
  for p in slurmctld slurmd srun sinfo; do
    command -v "$p" >/dev/null ||
      _slurm_die "'$p' not found: install Debian's slurmctld slurmd slurm-client slurm-wlm-basic-plugins (SHMEM_SETUP_SLURM=1 scripts/setup.sh, as scripts/test.sh runs it, installs them)"
  done
  # The plugins slurm.conf below names (Debian: slurm-wlm-basic-plugins, in /usr/lib/<arch>/slurm-wlm).
  for dir in /usr/lib/*/slurm-wlm /usr/lib*/slurm; do [ -e "$dir/mpi_pmix.so" ] && break; done
  for p in mpi_pmix auth_none cred_none proctrack_linuxproc task_none select_cons_tres cgroup_v1; do
    [ -e "$dir/$p.so" ] || missing+=" $p.so"
  done
  [ -z "$missing" ] || _slurm_die "Slurm plugins not found in $dir:$missing (install slurm-wlm-basic-plugins; auth_none.so ships with Slurm 22.05, Debian 12)"
}

# slurm.conf for hosts h1..h$1: the controller on h1, every host a node with 4 CPUs.
_slurm_conf() {
  local n=$1 i d=$SLURM_DIR
  cat <<EOF
ClusterName=shx$SHX_HARNESS_ID
SlurmctldHost=h1($(harness_addr h1))
SlurmctldPort=6817
SlurmdPort=6818
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$d/ctld
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdSpoolDir=$d/node/%n/spool
SlurmdPidFile=$d/run/slurmd.%n.pid
SlurmdLogFile=$d/log/slurmd.%n.log
TmpFS=$d/node/%n/tmp
PlugStackConfig=$d/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
SlurmctldDebug=info
SlurmdDebug=info
MessageTimeout=10
KillWait=2
InactiveLimit=0
MinJobAge=10
NodeName=DEFAULT CPUs=4 RealMemory=1000 State=UNKNOWN
EOF
  for i in $(seq "$n"); do
    echo "NodeName=h$i NodeAddr=$(harness_addr "h$i") NodeHostname=h$i"
  done
  echo "PartitionName=shx Nodes=ALL Default=YES MaxTime=5 State=UP"
}

# _slurm_daemon HOST NAME CMD...: a daemon in the foreground (-D) inside HOST, in the background
# of this shell (its pid in BG_PIDS, ended by cleanup; harness_down ends it too). Disowned: its
# end at cleanup is expected, not a job notice for the log.
_slurm_daemon() {
  local host=$1 name=$2
  shift 2
  "$HARNESS_AGENT" "$host" "exec $*" >"$SLURM_DIR/log/$name.out" 2>&1 </dev/null &
  BG_PIDS="$BG_PIDS $!"
  SLURM_PIDS[$name]=$!
  disown $!
}

slurm_up() {
  local n=$1 i h out limit idle
  _slurm_check
  SLURM_DIR=$WORK/slurm
  mkdir -p "$SLURM_DIR"/ctld "$SLURM_DIR"/run "$SLURM_DIR"/log
  for i in $(seq "$n"); do mkdir -p "$SLURM_DIR/node/h$i/spool" "$SLURM_DIR/node/h$i/tmp"; done
  : >"$SLURM_DIR/plugstack.conf"
  # slurmd loads a cgroup plugin even when nothing uses cgroups; the default (autodetect) fails
  # inside `ip netns exec`, which mounts a fresh /sys without /sys/fs/cgroup. The v1 plugin
  # touches no cgroup until a cgroup plugin asks it to (none here does).
  echo "CgroupPlugin=cgroup/v1" >"$SLURM_DIR/cgroup.conf"
  _slurm_conf "$n" >"$SLURM_DIR/slurm.conf"
  export SLURM_CONF=$SLURM_DIR/slurm.conf
  _slurm_daemon h1 slurmctld slurmctld -D
  for i in $(seq "$n"); do
    _slurm_daemon "h$i" "slurmd_h$i" slurmd -D -N "h$i"
  done
  # Ready when the controller answers with every node idle (registered); a daemon that ends
  # first fails the test at once with its log. Bounded: SLURM_UP_TIMEOUT s.
  limit=$(($(now_ms) + SLURM_UP_TIMEOUT * 1000))
  while :; do
    for h in "${!SLURM_PIDS[@]}"; do
      alive "${SLURM_PIDS[$h]}" || _slurm_die "$h ended at start: $(tail -n 5 "$SLURM_DIR/log/$h.out")"
    done
    out=$("$HARNESS_AGENT" h1 "timeout 15 sinfo -h -N -o '%N %T'" 2>&1)
    idle=$(echo "$out" | awk '$2 == "idle" { n++ } END { print n + 0 }')
    [ "$idle" = "$n" ] && break
    [ "$(now_ms)" -lt "$limit" ] ||
      _slurm_die "the cluster was not up after $SLURM_UP_TIMEOUT s (SLURM_UP_TIMEOUT): sinfo says: $out"
    sleep 0.2
  done
}
