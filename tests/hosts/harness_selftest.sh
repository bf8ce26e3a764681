#!/bin/bash
# The namespace harness itself: hosts with their own hostname and address, an agent that
# behaves as ssh does (words joined, stdin/stdout/stderr and exit status through, 255 for its
# own failures), and cleanup: on a normal end, on a failing or killed test, and of what a
# killed (SIGKILL) run left behind.
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
AG=$HARNESS_AGENT
snapshot

harness_up 3
for h in h1 h2 h3; do
  run "$AG" "$h" 'hostname; ip -4 -o addr show dev hnet0; echo "ucx=$UCX_TLS/$UCX_NET_DEVICES host=$SHX_HARNESS_HOST"'
  expect_rc 0 "$h: hostname"
  [ "$(head -1 "$WORK/out")" = "$h" ] || fail "$h: hostname is '$(head -1 "$WORK/out")'"
  expect_out "inet $(harness_addr "$h" | sed 's/\./\\./g')/24 " "$h: address"
  expect_out "^ucx=tcp/hnet0 host=$h$" "$h: UCX variables"
done
[ "$(hostname)" != h1 ] || fail "the test's own hostname changed"
pass "hosts h1..h3: own hostname, own address on hnet0, UCX_TLS=tcp UCX_NET_DEVICES=hnet0"

run sh -c 'printf "line1\nline2\n" | "$0" h2 "tr a-z A-Z; echo err >&2; exit 7"' "$AG"
expect_rc 7 "exit status through the agent"
expect_out '^LINE1$' "stdin/stdout through the agent"
expect_out '^LINE2$' "stdin/stdout through the agent"
expect_err '^err$' "stderr through the agent"
run "$AG" h1 echo a '"b  c"' "'\$HOME'"
expect_rc 0 "words joined"
[ "$(cat "$WORK/out")" = 'a b  c $HOME' ] || fail "words not joined as ssh does: '$(cat "$WORK/out")'"
pass "agent: stdin, stdout, stderr, exit status, words joined into one command line"

run "$AG" h9 true
expect_rc 255 "unknown host"
expect_err "h9: no such host in harness $SHX_HARNESS_ID \(hosts: h1 h2 h3\)" "unknown host"
run "$AG" '-oProxyCommand=x' true
expect_rc 255 "bad host name"
expect_err "is not a harness host name" "bad host name"
run "$AG" h1
expect_rc 255 "no command"
expect_err "no command given" "no command"
run env -u SHX_HARNESS_ID "$AG" h1 true
expect_rc 255 "no harness"
expect_err "SHX_HARNESS_ID is not set" "no harness"
pass "agent failures exit 255 with a message"

# Isolation: another run's hosts are not reachable by name, and this run's address space is
# only on this run's bridge (h1 reaches h3 only through it).
run "$AG" h1 "ip -4 route"
expect_out '^10\.213\.7\.0/24 dev hnet0' "h1 route"
grep -q default "$WORK/out" && fail "h1 has a default route: $(cat "$WORK/out")"
pass "no route out of the harness"

my_id=$SHX_HARNESS_ID
harness_down
[ -z "$(ip netns list | grep "^shx-$my_id-")" ] || fail "harness_down left namespaces: $(ip netns list)"
[ -z "$(ip -o link show | grep -E "shx[bv]$my_id(x|:|@)")" ] || fail "harness_down left links"
pass "harness_down removes namespaces, veths and the bridge"

# A test that fails (exit 1) or is killed (SIGTERM) still removes everything (the traps).
# leftovers ID: what harness $1 still has.
leftovers() {
  { ip netns list | grep "^shx-$1-"; ip -o link show | grep -E "shx[bv]$1(x|:|@)"; } 2>/dev/null
}
for how in exit1 sigterm sigkill; do
  : >"$WORK/child.out"
  bash -c '. "$0"; harness_up 2
    "$HARNESS_AGENT" h2 "echo sleeper=\$\$; exec sleep 60" >>"$1" &
    echo "id=$SHX_HARNESS_ID" >>"$1"
    for i in $(seq 500); do grep -q "^sleeper=" "$1" && break; sleep 0.01; done
    case $2 in exit1) exit 1 ;; sigterm) kill -TERM $$ ;; sigkill) kill -KILL $$ ;; esac' \
    "$HARNESS_DIR/harness.sh" "$WORK/child.out" "$how" 2>/dev/null &
  child=$!
  { wait "$child"; } 2>/dev/null
  id=$(sed -n 's/^id=//p' "$WORK/child.out")
  [ -n "$id" ] || fail "$how: the child harness did not start"
  if [ "$how" = sigkill ]; then
    # Nothing ran its traps: an earlier run's leftovers, which the next harness_up removes.
    wait_lines "$WORK/child.out" '^sleeper=' 1 5000 || fail "sigkill: the child's process did not start"
    sleeper=$(sed -n 's/^sleeper=//p' "$WORK/child.out")
    [ -n "$(leftovers "$id")" ] || fail "sigkill: expected leftovers to clean up"
    harness_up 1
    harness_down
    wait_gone 2000 "$sleeper" || fail "sigkill: a process of the killed run survived the stale cleanup"
  fi
  [ -z "$(leftovers "$id")" ] || fail "$how: left behind: $(leftovers "$id")"
done
pass "cleanup after a failing test, after SIGTERM, and of a SIGKILLed run's leftovers"
# with-hosts: the command sees the hosts, its status is passed on, nothing remains.
run "$HARNESS_DIR/with-hosts" 2 sh -c 'echo "id=$SHX_HARNESS_ID"; "$HARNESS_AGENT" h2 hostname; exit 3'
expect_rc 3 "with-hosts"
expect_out '^h2$' "with-hosts"
id=$(sed -n 's/^id=//p' "$WORK/out")
[ -n "$id" ] && [ -z "$(leftovers "$id")" ] || fail "with-hosts: left behind: $(leftovers "$id")"
pass "with-hosts N COMMAND: hosts for one command, its status, nothing left"
check_no_leftovers "harness"
