#!/bin/bash
# A store that no host can reach: oshrun on h1 is told (SHMEM_BOOTSTRAP_ADDR) to listen on
# 10.213.7.99, an address of the harness's subnet that no host has (h1 may bind it:
# ip_nonlocal_bind in its namespace), so the agents on h2 and h3 cannot connect to it (no
# neighbour answers). The job fails within SHMEM_BOOTSTRAP_TIMEOUT: each remote host's agent
# says so in one line that names the store's address once, the launcher says it once more as
# the job's end, and nothing is left behind.
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${PE_RMA:?set by CTest}"
snapshot
harness_up 3
NOBODY=$HARNESS_SUBNET.99  # h1..h3 are .11-.13
for h in h1 h2 h3; do
  [ "$(harness_addr "$h")" != "$NOBODY" ] || fail "the unused address $NOBODY is $h's"
done
ip netns exec "$(harness_ns h1)" sysctl -qw net.ipv4.ip_nonlocal_bind=1 ||
  fail "cannot allow a non-local bind in h1's namespace"

run harness_exec h1 "exec env SHMEM_BOOTSTRAP_ADDR=$NOBODY SHMEM_BOOTSTRAP_TIMEOUT=3 $OSHRUN --rsh $HARNESS_AGENT --hosts h2:2,h3:2 $PE_RMA"
[ "$RC" != 124 ] || fail "oshrun: still running after $HARNESS_JOB_TIMEOUT s (hang guard)"
[ "$RC" != 0 ] || { cat "$WORK/err" >&2; fail "the job succeeded with its store unreachable"; }

# The agents write to the same stderr and may end just after oshrun: wait (bounded) until no
# process is left in the hosts before counting their lines.
limit=$(( $(now_ms) + 10000 ))
while [ -n "$(harness_pids)" ]; do
  [ "$(now_ms)" -lt "$limit" ] || fail "processes left in the hosts: $(harness_pids | tr '\n' ' ')"
  sleep 0.02
done

addr="${NOBODY//./\\.}:[0-9]+"
for h in h2 h3; do
  n=$(grep -cE "^oshrun \(host $h\): .*$addr" "$WORK/err")
  [ "$n" = 1 ] || { cat "$WORK/err" >&2; fail "$h's agent named the store's address in $n lines (1 expected)"; }
  line=$(grep -E "^oshrun \(host $h\): " "$WORK/err")
  [ "$(grep -o "cannot reach the bootstrap store" <<<"$line" | wc -l)" = 1 ] ||
    fail "$h's agent repeats itself: $line"
  grep -qE "^oshrun \(host $h\): cannot reach the bootstrap store at $addr after 3 s" <<<"$line" ||
    fail "$h's agent does not say that the store at $NOBODY was unreachable: $line"
done
# Besides the agents' lines, the launcher's one line that ends the job names the address.
n=$(grep -cE "$addr" "$WORK/err")
[ "$n" = 3 ] || { cat "$WORK/err" >&2; fail "$n lines name the store's address (one per remote host and the launcher's: 3 expected)"; }
grep -qE "^oshrun: PE [0-3] \(host h[23]\) lost: the agent on host h[23] cannot reach the bootstrap store at $addr" "$WORK/err" ||
  { cat "$WORK/err" >&2; fail "the launcher does not say why the job ended"; }
check_no_leftovers "store_unreachable"
pass "a store nobody reaches ($NOBODY): one line per remote host naming it, the job failed (status $RC), nothing left"
