#!/bin/bash
# oshrun starts one agent per remote host, and beyond --fanout K hosts it starts hosts through
# other hosts (a tree). The agent (--rsh) is a wrapper around the harness agent that logs every
# call with the host it was called on, so the agents can be counted. Checked: 2 hosts x 8 PEs
# from h1 start exactly 2 agents, every PE's output arrives tagged; a PE crashing on a remote
# host shows its lines and ends the job naming it; SIGINT and SIGTERM to oshrun end every
# remote PE; with --fanout 2 and 6 hosts, h1 starts h2 and h3, which start h4-h5 and h6-h7,
# every PE's output arrives, a PE failing on h7 is named, an unreachable host below h3 is
# named, and kill -9 of h2's agent ends the job naming h2 and the hosts below it. Nothing is
# left in any host.
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
harness_up 7

RSH=$WORK/logging-agent
export RSH_LOG=$WORK/rsh.log HARNESS_AGENT
cat >"$RSH" <<'EOF'
#!/bin/sh
echo "from=${SHX_HARNESS_HOST:-none} to=$1" >>"$RSH_LOG"
exec "$HARNESS_AGENT" "$@"
EOF
chmod +x "$RSH"

on_h1() {
  local line="exec $OSHRUN --rsh $RSH" w
  for w in "$@"; do line+=" '${w//\'/\'\\\'\'}'"; done
  : >"$RSH_LOG"
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
agents_are() {  # the sorted "from=X to=Y" lines the job's agents logged
  local got
  got=$(sort "$RSH_LOG" | tr '\n' ' ')
  [ "$got" = "$1" ] || fail "$2: agents started: '$got', expected '$1'"
}
# start_bg ARGS...: oshrun ARGS on h1 in the background; waits for N "pid=" lines.
start_bg() {
  local n=$1 line="exec $OSHRUN --rsh $RSH" w
  shift
  for w in "$@"; do line+=" '${w//\'/\'\\\'\'}'"; done
  "$HARNESS_AGENT" h1 "$line" >"$WORK/out" 2>"$WORK/err" </dev/null &
  LAUNCHER=$!
  BG_PIDS="$BG_PIDS $LAUNCHER"
  wait_lines "$WORK/out" 'pid=' "$n" 20000 || fail "$*: PEs did not start"
  PE_PIDS=$(sed -n 's/.*pid=//p' "$WORK/out")
}

# --- 2 hosts x 8 PEs: one agent each, every line tagged --------------------------------------
snapshot
on_h1 --hosts h2:8,h3:8 --tag-output sh -c 'echo "host=$(hostname) pe=$SHMEM_PE/$SHMEM_NPES"; echo "err pe=$SHMEM_PE" >&2
  printf "partial pe=%s" "$SHMEM_PE"'
expect_rc 0 "2 x 8"
agents_are "from=h1 to=h2 from=h1 to=h3 " "2 x 8"
for r in $(seq 0 15); do
  expect_out "^\[PE $r\] host=h$(( r / 8 + 2 )) pe=$r/16$" "2 x 8: PE $r stdout"
  expect_out "^\[PE $r\] partial pe=$r$" "2 x 8: PE $r partial line"
  expect_err "^\[PE $r\] err pe=$r$" "2 x 8: PE $r stderr"
done
[ "$(wc -l <"$WORK/out")" = 32 ] || fail "2 x 8: $(wc -l <"$WORK/out") lines of output, expected 32"
no_processes_left "2 x 8"
check_no_leftovers "2 x 8"
pass "2 hosts x 8 PEs: one agent per host, every PE's output tagged"

# --- a crash on a remote PE: its lines first, then the job ends naming it ---------------------
on_h1 --hosts h2:8,h3:8 --tag-output sh -c 'if [ "$SHMEM_PE" = 13 ]; then echo "last words"; echo "to stderr" >&2; kill -SEGV $$; fi
  exec sleep 30'
expect_rc 139 "crash on h3"
expect_out "^\[PE 13\] last words$" "crash on h3"
expect_err "^\[PE 13\] to stderr$" "crash on h3"
expect_err "^oshrun: PE 13 \(host h3\) killed by signal 11 \(Segmentation fault\)$" "crash on h3"
no_processes_left "crash on h3"
pass "a PE crashing on a remote host: its lines, then the job ends naming it"

# --- SIGINT (a terminal's ^C reaches oshrun) and SIGTERM end every remote PE ------------------
# Job control on: background jobs of a script would otherwise start with SIGINT ignored.
set -m
for sig in INT TERM; do
  start_bg 16 --hosts h2:8,h3:8 --tag-output sh -c 'trap "echo got-'$sig'; exit 0" '$sig'
    echo pid=$$; for i in $(seq 3000); do sleep 0.01; done'
  kill -$sig "$LAUNCHER"
  wait "$LAUNCHER"
  RC=$?
  expect_rc $(( 128 + $(kill -l $sig) )) "SIG$sig to oshrun"
  for r in $(seq 0 15); do expect_out "^\[PE $r\] got-$sig$" "SIG$sig reaches PE $r"; done
  # shellcheck disable=SC2086
  wait_gone 3000 $PE_PIDS || fail "SIG$sig: PEs still running"
  no_processes_left "SIG$sig"
  pass "SIG$sig to oshrun reaches every PE on every host"
done

set +m

# --- the tree: --fanout 2, 6 hosts -----------------------------------------------------------
TREE="from=h1 to=h2 from=h1 to=h3 from=h2 to=h4 from=h2 to=h5 from=h3 to=h6 from=h3 to=h7 "
on_h1 --fanout 2 --hosts h2:2,h3:2,h4:2,h5:2,h6:2,h7:2 --tag-output sh -c 'echo "host=$(hostname) pe=$SHMEM_PE"'
expect_rc 0 "tree"
agents_are "$TREE" "tree"
for r in $(seq 0 11); do expect_out "^\[PE $r\] host=h$(( r / 2 + 2 )) pe=$r$" "tree: PE $r"; done
no_processes_left "tree"
pass "--fanout 2, 6 hosts: h1 starts h2 and h3, they start h4-h7; every PE's output arrives"

on_h1 --fanout 2 --hosts h2:2,h3:2,h4:2,h5:2,h6:2,h7:2 sh -c '[ "$SHMEM_PE" = 11 ] && exit 5; exec sleep 30'
expect_rc 5 "tree: PE on h7 exits 5"
expect_err "^oshrun: PE 11 \(host h7\) exited with status 5$" "tree: PE on h7 exits 5"
no_processes_left "tree: PE on h7 exits 5"
pass "--fanout 2: a PE failing two levels down is named, the job ends"

on_h1 --fanout 2 --hosts h2,h3,h4,h9 sh -c 'exec sleep 30'
expect_rc 255 "tree: unreachable host"
expect_err "harness-agent: h9: no such host" "tree: unreachable host"
expect_err "^oshrun: PE 3 \(host h9\) lost: the agent exited with status 255" "tree: unreachable host"
no_processes_left "tree: unreachable host"
pass "--fanout 2: an unreachable host below another is named"

start_bg 12 --fanout 2 --hosts h2:2,h3:2,h4:2,h5:2,h6:2,h7:2 --tag-output sh -c 'echo pid=$$; exec sleep 30'
agent=$(ip netns pids "$(harness_ns h2)" | while read -r p; do
  tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- "--host-agent --host h2 " && echo "$p"; done | head -1)
[ -n "$agent" ] || fail "tree: no agent process on h2"
kill -KILL "$agent"
wait "$LAUNCHER"
RC=$?
expect_rc 137 "tree: h2's agent killed"
# (killed by signal 9, or status 137 where a remote shell waited for it)
expect_err "^oshrun: PE [0-9]+ \(host h[245]\) lost: the agent( on host h2 \(which started host h[45]\))? (was killed by signal 9|exited with status 137 \(as a shell reports a command killed by signal 9)" \
  "tree: h2's agent killed"
# shellcheck disable=SC2086
wait_gone 5000 $PE_PIDS || fail "tree: PEs still running after h2's agent was killed"
no_processes_left "tree: h2's agent killed"
check_no_leftovers "tree"
pass "--fanout 2: kill -9 of h2's agent ends the job naming it, nothing left"
