#!/bin/bash
# oshrun --hosts / --hostfile / --rsh / -x without network namespaces: host-list syntax and
# the slot rule, agent failures, and the remote path (the stub behind the agent) through a
# fake agent that runs the command line on this machine. The namespace hosts are tested in
# tests/hosts/.
. "$(dirname "$0")/common.sh"

# The fake agent, called as ssh is: logs its argument count and words, then runs the command
# line with sh -c as a child (not exec), as sshd would; so the stub's stdin is the launcher's
# pipe, and the agent's own pid is not the stub's.
AGENT=$WORK/agent
AGENT_LOG=$WORK/agent.log
cat >"$AGENT" <<'AGENT_EOF'
#!/bin/sh
{ echo "argc=$#"; for w in "$@"; do printf "word=%s\n" "$w"; done; } >>"$AGENT_LOG"
[ -n "${AGENT_FAIL:-}" ] && { echo "agent: cannot connect to $1" >&2; exit 255; }
host=$1
shift
sh -c "$*"
AGENT_EOF
chmod +x "$AGENT"
export AGENT_LOG

usage_case() {
  local pattern=$1
  shift
  run "$OSHRUN" "$@"
  expect_rc 2 "oshrun $*"
  expect_err "$pattern" "oshrun $*"
}
snapshot

# --- host-list syntax and the slot rule ---------------------------------------------------
usage_case "empty host list" --hosts '' true
usage_case "invalid slot count '0'" --hosts a:0 true
usage_case "invalid slot count 'x'" --hosts a:x true
usage_case "invalid slot count ''" --hosts a: true
usage_case "empty entry" --hosts a,,b true
usage_case "empty entry" --hosts a, true
usage_case "invalid host name '-oProxyCommand=x'" --hosts -oProxyCommand=x true
usage_case "invalid host name 'a b'" --hosts 'a b:2' true
usage_case "-n 5 needs 5 slots but --hosts gives only 4 \(PEs fill the hosts in order" -n 5 --hosts a:2,b:2 true
usage_case "needs a value" --hosts
usage_case "--hosts and --hostfile both given" --hosts a --hostfile /dev/null true
usage_case "--hostfile /no/such/file: cannot read it" --hostfile /no/such/file true
printf '# only comments\n\n   # here\n' >"$WORK/hf_empty"
usage_case "no hosts in it" --hostfile "$WORK/hf_empty" true
printf 'a:2\n# fine\nb c\n' >"$WORK/hf_bad"
usage_case "hf_bad:3: 'b c' is not one host\[:slots\]" --hostfile "$WORK/hf_bad" true
printf 'a:2\nb:zz # bad\n' >"$WORK/hf_bad2"
usage_case "hf_bad2:2: invalid slot count 'zz'" --hostfile "$WORK/hf_bad2" true
printf 'a:2\nb:1\n' >"$WORK/hf_small"
usage_case "-n 4 needs 4 slots but --hostfile gives only 3" -n 4 --hostfile "$WORK/hf_small" true
usage_case "invalid -x '1BAD'" -x 1BAD -n 1 true
usage_case "-x SHMEM_JOB_SECRET: oshrun sets SHMEM_JOB_SECRET itself" -x SHMEM_JOB_SECRET=1 -n 1 true
unset OSHRUN_HOSTS_UNSET_VAR
usage_case "-x OSHRUN_HOSTS_UNSET_VAR: OSHRUN_HOSTS_UNSET_VAR is not set" -x OSHRUN_HOSTS_UNSET_VAR -n 1 true
usage_case "--rsh needs an agent program" --rsh ' ' -n 1 true
pass "bad host lists, hostfiles, slot counts and -x exit 2 naming the problem"

# --- placement: hosts filled in order, -n below the slots, -n from the slots ----------------
# localhost is this host (started directly); r1/r2 go through the agent.
printf '# test hosts\nlocalhost:2   # two here\n\nr1:2\nr2\n' >"$WORK/hf"
: >"$AGENT_LOG"
run "$OSHRUN" -n 4 --hostfile "$WORK/hf" --rsh "$AGENT" --tag-output sh -c 'echo "npes=$SHMEM_NPES"'
expect_rc 0 "hostfile, -n 4"
for r in 0 1 2 3; do expect_out "^\[PE $r\] npes=4$" "hostfile, -n 4"; done
# One agent for r1's two PEs (2 and 3), none for r2.
[ "$(grep -c '^word=r1$' "$AGENT_LOG")" = 1 ] || fail "hostfile: expected one agent for PEs 2 and 3 on r1"
grep -q '^word=r2$' "$AGENT_LOG" && fail "hostfile: -n 4 must leave r2 unused"
[ "$(grep -c '^argc=2$' "$AGENT_LOG")" = 1 ] || fail "agent not called as ssh is (HOST COMMAND-LINE)"
grep -q "^word=.*--host-agent --host 'r1' -- " "$AGENT_LOG" || fail "agent command line lacks the host agent"
: >"$AGENT_LOG"
run "$OSHRUN" --hosts localhost,r1:2 --rsh "$AGENT" sh -c 'echo "pe=$SHMEM_PE/$SHMEM_NPES"'
expect_rc 0 "--hosts without -n"
for r in 0 1 2; do expect_out "^pe=$r/3$" "--hosts without -n"; done
[ "$(grep -c '^word=r1$' "$AGENT_LOG")" = 1 ] || fail "--hosts localhost,r1:2: expected one agent for 2 PEs"
pass "ranks fill the hosts in order; -n defaults to the slots"

# --- agents that cannot be started, or fail ---------------------------------------------------
run "$OSHRUN" --hosts localhost,r1 --rsh /no/such/agent sh -c 'echo started'
expect_rc 127 "missing agent"
expect_err "cannot start the agent for PEs on other hosts: '/no/such/agent' \(--rsh=/no/such/agent\)" "missing agent"
grep -q started "$WORK/out" && fail "missing agent: a PE was started"
run env SHMEM_RSH=/no/such/agent2 "$OSHRUN" --hosts r1 sh -c 'echo started'
expect_rc 127 "missing SHMEM_RSH agent"
expect_err "'/no/such/agent2' \(SHMEM_RSH=/no/such/agent2\)" "missing SHMEM_RSH agent"
t0=$(now_ms)
run env AGENT_FAIL=1 "$OSHRUN" --hosts localhost,r1 --rsh "$AGENT" sh -c 'exec sleep 30'
t=$(( $(now_ms) - t0 ))
expect_rc 255 "agent exits 255"
expect_err "^agent: cannot connect to r1$" "agent exits 255"
expect_err "^oshrun: PE 1 \(host r1\) lost: the agent exited with status 255" "agent exits 255"
[ "$t" -lt 5000 ] || fail "agent exits 255: took ${t} ms (hang guard)"
run env SHMEM_BOOTSTRAP_IFACE=nosuch0 "$OSHRUN" --hosts r1 --rsh "$AGENT" true
expect_rc 1 "bad SHMEM_BOOTSTRAP_IFACE"
expect_err "SHMEM_BOOTSTRAP_IFACE=nosuch0: no such interface with an IPv4 address" "bad SHMEM_BOOTSTRAP_IFACE"
pass "agent missing (127), agent failing (255, ${t} ms), bad SHMEM_BOOTSTRAP_IFACE"

# --- the remote path: environment, -x, the secret, output, exit status ------------------------
export OSHRUN_HOSTS_FOO=from-launcher OSHRUN_HOSTS_BAR=old
: >"$AGENT_LOG"
# shellcheck disable=SC2016
run env SHMEM_BOOTSTRAP_ADDR=127.0.0.1 "$OSHRUN" --hosts localhost,r1 --rsh "$AGENT" --tag-output \
  -x OSHRUN_HOSTS_BAR=new -x OSHRUN_HOSTS_NEW=x=y sh -c '
  echo "env $OSHRUN_HOSTS_FOO $OSHRUN_HOSTS_BAR $OSHRUN_HOSTS_NEW pwd=$PWD store=$SHMEM_STORE_ADDR"
  echo "secret=$SHMEM_JOB_SECRET"
  for f in /proc/[0-9]*/cmdline; do
    case "$(tr "\0" " " <"$f" 2>/dev/null)" in *"$SHMEM_JOB_SECRET"*) echo "SECRET ON CMDLINE: $f" ;; esac
  done
  echo "partial line"  | tr -d "\n"'
expect_rc 0 "remote environment"
for r in 0 1; do
  expect_out "^\[PE $r\] env from-launcher new x=y pwd=$PWD store=127\.0\.0\.1:[0-9]+$" "remote environment, PE $r"
  expect_out "^\[PE $r\] partial line$" "remote output, PE $r"
done
grep -q "SECRET ON CMDLINE" "$WORK/out" && fail "the secret is on a command line: $(grep SECRET "$WORK/out")"
secret=$(sed -n 's/^\[PE 1\] secret=//p' "$WORK/out")
[ "${#secret}" = 64 ] || fail "remote PE did not get SHMEM_JOB_SECRET"
case "$(cat "$AGENT_LOG")" in *"$secret"*) fail "the secret was on the agent's command line" ;; esac
pass "remote PE: same environment, -x overrides, tagged output, secret on no command line"

run "$OSHRUN" --hosts localhost,r1 --rsh "$AGENT" sh -c '[ "$SHMEM_PE" = 1 ] && exit 3; exec sleep 30'
expect_rc 3 "remote PE exits 3"
expect_err "^oshrun: PE 1 \(host r1\) exited with status 3$" "remote PE exits 3"
mkdir "$WORK/ready"
run env READY="$WORK/ready" "$OSHRUN" --hosts localhost:2,r1 --rsh "$AGENT" sh -c ': >"$READY/$SHMEM_PE"
  if [ "$SHMEM_PE" = 2 ]; then
    for i in $(seq 500); do [ "$(ls "$READY" | wc -l)" -ge 3 ] && break; sleep 0.01; done
    kill -SEGV $$
  fi
  exec sleep 30'
expect_rc 139 "remote SIGSEGV"
expect_err "^oshrun: PE 2 \(host r1\) killed by signal 11 \(Segmentation fault\)$" "remote SIGSEGV"
pass "remote exit status and crash reported as for local PEs"

# --- signals: forwarded to the remote PE through the stub ----------------------------------------
set -m
"$OSHRUN" --hosts localhost,r1 --rsh "$AGENT" sh -c 'trap "echo got-TERM-$SHMEM_PE; exit 0" TERM
  echo "pid=$$"; for i in $(seq 3000); do sleep 0.01; done' >"$WORK/out" 2>"$WORK/err" </dev/null &
LAUNCHER=$!
BG_PIDS="$BG_PIDS $LAUNCHER"
wait_lines "$WORK/out" '^pid=' 2 10000 || fail "signals: PEs did not start"
PE_PIDS=$(sed -n 's/^pid=//p' "$WORK/out")
kill -TERM "$LAUNCHER"
wait "$LAUNCHER"
RC=$?
expect_rc 143 "SIGTERM to oshrun"
expect_out "^got-TERM-1$" "SIGTERM reaches the remote PE"
expect_out "^got-TERM-0$" "SIGTERM reaches the local PE"
# shellcheck disable=SC2086
wait_gone 3000 $PE_PIDS || fail "SIGTERM: PEs still running"
pass "SIGTERM to oshrun reaches the remote PE"

# --- kill -9 of the launcher: the stub sees its stdin close and ends the PE (SIGTERM first) ----
# The PE waits in `wait` (a trapped signal interrupts it at once; a foreground sleep would hold
# the trap back until it ends) and ends its sleep in the trap, leaving nothing behind.
export MARK=$WORK/mark
# Other signals are marked too (not expected), so that a failure says which one came, if any.
"$OSHRUN" --hosts r1 --rsh "$AGENT" sh -c 'sleep 30 & S=$!
  trap "echo got-TERM >\"$MARK\"; kill \$S 2>/dev/null; exit 0" TERM
  for sig in HUP INT PIPE; do trap "echo got-$sig >\"$MARK\"; kill \$S 2>/dev/null; exit 0" $sig; done
  echo "pid=$$"; wait $S; echo "sleep-ended-$?" >"$MARK"' >"$WORK/out" 2>"$WORK/err" </dev/null &
LAUNCHER=$!
BG_PIDS="$BG_PIDS $LAUNCHER"
wait_lines "$WORK/out" '^pid=' 1 10000 || fail "kill -9: PE did not start"
PE_PIDS=$(sed -n 's/^pid=//p' "$WORK/out")
kill -KILL "$LAUNCHER"
wait "$LAUNCHER" 2>/dev/null
# shellcheck disable=SC2086
wait_gone 5000 $PE_PIDS || fail "kill -9 oshrun: the remote PE survived"
[ "$(cat "$MARK" 2>/dev/null)" = got-TERM ] ||
  fail "kill -9 oshrun: the remote PE did not get SIGTERM from its stub (its mark: '$(cat "$MARK" 2>/dev/null || echo none: SIGKILL or gone)')"
pass "kill -9 of oshrun: the stub ends the remote PE"
check_no_leftovers "oshrun --hosts"
