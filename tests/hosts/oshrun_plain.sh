#!/bin/bash
# oshrun --hosts across namespace hosts with a plain (non-shmem) program, 2 hosts x 2 PEs and
# 4 hosts x 1 PE, oshrun itself running on h1: output routing with --tag-output, the
# environment (forwarded, and -x), the secret on no command line on any host, the exit
# status of a failing remote PE, signal forwarding, and nothing left behind.
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
AG=$HARNESS_AGENT
harness_up 4

# on_h1 ARGS...: oshrun ARGS on h1, the agent for the other hosts; status in $RC.
on_h1() {
  local line="exec $OSHRUN --rsh $AG" w
  for w in "$@"; do line+=" '${w//\'/\'\\\'\'}'"; done
  run harness_exec h1 "$line"
  [ "$RC" != 124 ] || fail "oshrun $*: still running after $HARNESS_JOB_TIMEOUT s (hang guard)"
}
no_processes_left() {
  local limit=$(( $(now_ms) + 3000 ))
  while [ -n "$(harness_pids)" ]; do
    [ "$(now_ms)" -ge "$limit" ] && fail "$1: processes left in the hosts: $(harness_pids | tr '\n' ' ')"
    sleep 0.02
  done
}

# The PE program: says where it runs, waits (bounded) until every PE is up, then looks for
# its secret in the command line of every process (shell builtins only: a grep would itself
# carry the secret on its command line), and waits until every PE has looked.
PE_SCRIPT='
echo "host=$(hostname) pe=$SHMEM_PE/$SHMEM_NPES env=$HX_FWD/$HX_SET/$HX_OVR pwd=$PWD"
echo "to-stderr pe=$SHMEM_PE" >&2
barrier() {
  : >"$SYNC/$1.$SHMEM_PE"
  for i in $(seq 1000); do [ "$(ls "$SYNC" | grep -c "^$1\.")" -ge "$SHMEM_NPES" ] && return 0; sleep 0.01; done
  echo "barrier $1 timed out"; exit 9
}
barrier up
found=""
for f in /proc/[0-9]*/cmdline; do
  case "$(tr "\0" " " <"$f" 2>/dev/null)" in *"$SHMEM_JOB_SECRET"*) found="$found $f" ;; esac
done
[ "${#SHMEM_JOB_SECRET}" = 64 ] || found="(no secret)"
echo "secret-scan ${found:-clean}"
barrier scanned'

export HX_FWD=forwarded HX_OVR=old
for layout in "h1:2,h2:2" "h1,h2,h3,h4"; do
  snapshot
  sync=$WORK/sync.$layout
  mkdir -p "$sync"
  export SYNC=$sync
  on_h1 --hosts "$layout" --tag-output -x HX_SET=set -x HX_OVR=new sh -c "$PE_SCRIPT"
  expect_rc 0 "$layout: plain job"
  n=$(grep -c 'host=' "$WORK/out")
  [ "$n" = 4 ] || fail "$layout: $n PEs reported, expected 4"
  for r in 0 1 2 3; do
    if [ "$layout" = "h1:2,h2:2" ]; then h=h$(( r / 2 + 1 )); else h=h$(( r + 1 )); fi
    expect_out "^\[PE $r\] host=$h pe=$r/4 env=forwarded/set/new pwd=$PWD$" "$layout: PE $r output"
    expect_out "^\[PE $r\] secret-scan clean$" "$layout: PE $r secret scan"
    expect_err "^\[PE $r\] to-stderr pe=$r$" "$layout: PE $r stderr"
  done
  grep -q '^\[PE [0-9]\] host=h[0-9] .*to-stderr' "$WORK/out" && fail "$layout: stderr mixed into stdout"
  no_processes_left "$layout"
  check_no_leftovers "$layout: plain job"
  pass "$layout: output routed and tagged, environment and -x, the secret on no command line"

  # A remote PE fails: its status is the job's, the message names it and its host.
  t0=$(now_ms)
  on_h1 --hosts "$layout" sh -c '[ "$SHMEM_PE" = 3 ] && exit 5; exec sleep 30'
  t=$(( $(now_ms) - t0 ))
  last=$([ "$layout" = "h1:2,h2:2" ] && echo h2 || echo h4)
  expect_rc 5 "$layout: remote PE exits 5"
  expect_err "^oshrun: PE 3 \(host $last\) exited with status 5$" "$layout: remote PE exits 5"
  [ "$t" -lt 8000 ] || fail "$layout: remote failure took ${t} ms (hang guard)"
  no_processes_left "$layout: remote PE exits 5"
  pass "$layout: a failing remote PE ends the job with its status (${t} ms)"

  # Signals: SIGTERM to oshrun (the agent execs down to it) reaches every PE.
  "$AG" h1 "exec $OSHRUN --rsh $AG --hosts $layout --tag-output sh -c 'trap \"echo got-TERM; exit 0\" TERM
    echo pid=\$\$; for i in \$(seq 3000); do sleep 0.01; done'" >"$WORK/out" 2>"$WORK/err" </dev/null &
  LAUNCHER=$!
  BG_PIDS="$BG_PIDS $LAUNCHER"
  wait_lines "$WORK/out" 'pid=' 4 10000 || fail "$layout: signal job did not start"
  PE_PIDS=$(sed -n 's/.*pid=//p' "$WORK/out")
  kill -TERM "$LAUNCHER"
  wait "$LAUNCHER"
  RC=$?
  expect_rc 143 "$layout: SIGTERM to oshrun"
  for r in 0 1 2 3; do expect_out "^\[PE $r\] got-TERM$" "$layout: SIGTERM reaches PE $r"; done
  # shellcheck disable=SC2086
  wait_gone 3000 $PE_PIDS || fail "$layout: PEs still running after SIGTERM"
  no_processes_left "$layout: SIGTERM"
  pass "$layout: SIGTERM to oshrun reaches every PE on every host"
done
