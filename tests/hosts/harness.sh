# shellcheck shell=bash
# Test hosts made of network namespaces on this machine (sourced by the tests in this folder;
# see README.md). Needs root, `ip` (iproute2) and `unshare` (util-linux).
#
#   harness_up N      builds hosts h1..hN: a switch (a bridge in a network namespace of its
#                     own), one network namespace per host with interface hnet0 at
#                     10.213.7.(10+i)/24; exports SHX_HARNESS_ID and HARNESS_AGENT (the
#                     ssh-compatible agent: "$HARNESS_AGENT h2 CMD...")
#   harness_down      removes everything harness_up made (also run on EXIT, INT and TERM)
#   harness_exec hI LINE  "$HARNESS_AGENT" hI LINE, ended (SIGTERM, then SIGKILL) after
#                     $HARNESS_JOB_TIMEOUT s (45): a hung job fails the test with status 124
#   harness_addr hI   the address of host hI
#   harness_ns hI     its network namespace name
#   harness_link hI up|down  connects or cuts host hI's cable (its port on the switch)
#   harness_impair hI LOSS% JITTER_MS [SEED]  puts a userspace impairment relay
#                     ($IMPAIR_RELAY, impair_relay.c) between host hI's port and the bridge:
#                     LOSS% of the frames both ways are dropped, each is delayed 0-JITTER_MS
#                     (the kernel has no netem); its report goes to $HARNESS_RELAY_LOG
#   harness_pids      the pids of every process in any of this run's hosts
#   harness_clean_stale  removes what earlier runs that were killed left behind
#
# Names carry the owning shell's pid (shx-<pid>-hI, shx-<pid>-sw, shxb<pid>, shxv<pid>x<i>), so
# two runs at once never collide, and leftovers of a dead run are recognised by their dead
# owner. Nothing is routed to the outside: the bridge has no address, and the namespaces reach
# only each other (and their own loopback). The bridge and the hosts' ports on it live in the
# switch namespace, not the machine's: there the bridge's netfilter calls (br_netfilter's
# bridge-nf-call-* sysctls, per namespace) are switched off, so that bridged frames do not pass
# the machine's iptables, which a real switch between hosts never runs (with them on, each
# message's send spent about a fifth of its CPU time in br_nf_* and nf_hook_slow here); and
# nothing of the harness is in the machine's own namespace.

HARNESS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
HARNESS_AGENT=$HARNESS_DIR/harness-agent
HARNESS_SUBNET=10.213.7
HARNESS_MAX_HOSTS=16
HARNESS_HOSTS=""
HARNESS_UP=""
HARNESS_JOB_TIMEOUT=${HARNESS_JOB_TIMEOUT:-45}

harness_die() {
  echo "FAIL [harness]: $*" >&2
  exit 1
}

harness_exec() { timeout -k 5 "$HARNESS_JOB_TIMEOUT" "$HARNESS_AGENT" "$@"; }
harness_addr() { echo "$HARNESS_SUBNET.$((10 + ${1#h}))"; }
harness_ns() { echo "shx-$SHX_HARNESS_ID-$1"; }
_harness_sw() { echo "shx-$SHX_HARNESS_ID-sw"; }
harness_link() { ip -n "$(_harness_sw)" link set "shxv${SHX_HARNESS_ID}x${1#h}" "$2"; }

# Host hI's port leaves the bridge for a relay process in the switch namespace, which forwards
# frames between it and a new veth pair whose other end joins the bridge. The relay runs in the
# switch namespace, so harness_down ends it with everything else; it also ends by itself after
# HARNESS_JOB_TIMEOUT + 60 s.
harness_impair() {
  local i=${1#h} sw port ra rb out
  sw=$(_harness_sw)
  port=shxv${SHX_HARNESS_ID}x$i
  ra=shxr${SHX_HARNESS_ID}x$i
  rb=shxq${SHX_HARNESS_ID}x$i
  [ -x "${IMPAIR_RELAY:-}" ] || harness_die "harness_impair: IMPAIR_RELAY (the impair_relay program) is not set"
  out=$(ip -n "$sw" link add "$ra" type veth peer name "$rb" 2>&1) ||
    harness_die "harness_impair: cannot create the relay's veth pair: $out"
  if ! { ip -n "$sw" link set "$port" nomaster && ip -n "$sw" link set "$rb" master "shxb$SHX_HARNESS_ID" &&
    ip -n "$sw" link set "$ra" up && ip -n "$sw" link set "$rb" up; }; then
    harness_die "harness_impair: cannot put the relay between h$i and the switch"
  fi
  ip netns exec "$sw" "$IMPAIR_RELAY" "$port" "$ra" "$2" "$3" "${4:-1}" $((HARNESS_JOB_TIMEOUT + 60)) \
    >>"${HARNESS_RELAY_LOG:-/dev/null}" 2>&1 &
}

# Every pid in this run's namespaces (ip netns pids), one a line.
harness_pids() {
  local h
  for h in $HARNESS_HOSTS; do ip netns pids "$(harness_ns "$h")" 2>/dev/null; done
}

# Kills what runs in namespace $1, then deletes it. Bounded: 50 rounds of 20 ms at most.
_harness_remove_ns() {
  local ns=$1 pids
  for _ in $(seq 50); do
    pids=$(ip netns pids "$ns" 2>/dev/null)
    [ -z "$pids" ] && break
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null
    sleep 0.02
  done
  ip netns del "$ns" 2>/dev/null
}

harness_clean_stale() {
  local name owner
  for name in $(ip netns list 2>/dev/null | awk '{ print $1 }' | grep -E '^shx-[0-9]+-(h[0-9]+|sw)$'); do
    owner=${name#shx-}
    owner=${owner%%-*}
    [ "$owner" = "${SHX_HARNESS_ID:-}" ] && continue
    kill -0 "$owner" 2>/dev/null || _harness_remove_ns "$name"
  done
  for name in $(ip -o link show 2>/dev/null | awk -F': ' '{ print $2 }' | sed 's/@.*//' |
                grep -E '^shx[bv][0-9]+(x[0-9]+)?$'); do
    owner=${name#shx?}
    owner=${owner%%x*}
    [ "$owner" = "${SHX_HARNESS_ID:-}" ] && continue
    kill -0 "$owner" 2>/dev/null || ip link del "$name" 2>/dev/null
  done
}

harness_down() {
  [ -n "$HARNESS_UP" ] || return 0
  local h
  for h in $HARNESS_HOSTS; do _harness_remove_ns "$(harness_ns "$h")"; done
  _harness_remove_ns "$(_harness_sw)"  # with it go the bridge and the hosts' ports
  HARNESS_UP=""
  HARNESS_HOSTS=""
}

_harness_exit() {
  harness_down
  if declare -F cleanup >/dev/null; then cleanup; fi
}

# Says why namespaces cannot be made here (and fails the test), or returns.
harness_check() {
  [ "$(id -u)" = 0 ] || harness_die "network namespaces need root (running as uid $(id -u)); CI runs these tests as root"
  command -v ip >/dev/null || harness_die "'ip' not found: install iproute2 (scripts/setup.sh lists it)"
  command -v unshare >/dev/null || harness_die "'unshare' not found: install util-linux"
  command -v hostname >/dev/null || harness_die "'hostname' not found: install hostname"
}

harness_up() {
  local n=$1 i ns out
  { [ "$n" -ge 1 ] && [ "$n" -le "$HARNESS_MAX_HOSTS" ]; } 2>/dev/null || harness_die "harness_up: 1 to $HARNESS_MAX_HOSTS hosts, not '$n'"
  harness_check
  export SHX_HARNESS_ID=$$
  export HARNESS_AGENT
  trap _harness_exit EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  harness_clean_stale
  HARNESS_UP=1
  local br=shxb$SHX_HARNESS_ID sw
  sw=$(_harness_sw)
  out=$(ip netns add "$sw" 2>&1) || harness_die "cannot create network namespace $sw: $out (the namespace hosts need root with CAP_NET_ADMIN; CI runs these tests as root)"
  out=$(ip -n "$sw" link add "$br" type bridge 2>&1) || harness_die "cannot create a bridge ($br in $sw): $out"
  # Bridged traffic must not meet iptables (br_netfilter): per bridge, and in the switch's own
  # namespace, whose bridge-nf-call-* settings would otherwise override the bridge's (they
  # exist only while br_netfilter is loaded; without it there is nothing to switch off).
  ip -n "$sw" link set "$br" type bridge nf_call_iptables 0 nf_call_ip6tables 0 nf_call_arptables 0 2>/dev/null
  local knob
  for knob in iptables ip6tables arptables; do
    [ -e /proc/sys/net/bridge/bridge-nf-call-$knob ] &&
      ip netns exec "$sw" sysctl -qw "net.bridge.bridge-nf-call-$knob=0" >/dev/null 2>&1
  done
  ip -n "$sw" link set "$br" up || harness_die "cannot bring up bridge $br"
  for i in $(seq "$n"); do
    ns=$(harness_ns "h$i")
    out=$(ip netns add "$ns" 2>&1) || harness_die "cannot create network namespace $ns: $out"
    HARNESS_HOSTS="$HARNESS_HOSTS h$i"
    local veth=shxv${SHX_HARNESS_ID}x$i
    out=$(ip link add "$veth" netns "$sw" type veth peer name hnet0 netns "$ns" 2>&1) ||
      harness_die "cannot create a veth pair for h$i: $out"
    if ! { ip -n "$sw" link set "$veth" master "$br" && ip -n "$sw" link set "$veth" up &&
      ip -n "$ns" link set lo up &&
      ip -n "$ns" addr add "$(harness_addr "h$i")/24" dev hnet0 &&
      ip -n "$ns" link set hnet0 up; }; then
      harness_die "cannot configure host h$i ($ns)"
    fi
  done
  # Wait (bounded) until every hnet0 has left the "tentative"/down state the kernel starts in.
  local ready
  for _ in $(seq 100); do
    ready=1
    for i in $(seq "$n"); do
      ip -n "$(harness_ns "h$i")" -o link show hnet0 2>/dev/null | grep -q 'state UP' || ready=""
    done
    [ -n "$ready" ] && break
    sleep 0.02
  done
  [ -n "$ready" ] || harness_die "the hosts' interfaces did not come up"
}
