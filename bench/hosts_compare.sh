#!/usr/bin/env bash
# hosts_compare.sh - the point-to-point benchmark (bench/perf.c) between two hosts made of
# network namespaces (tests/hosts/harness.sh), side by side in one run with
#   (a) the physical floor: a plain TCP 8-byte ping-pong and one 1 MiB TCP stream between the
#       same namespaces (bench/tcp_pingpong.c), and
#   (b) Open MPI's OSHMEM over UCX, started with mpirun --host h1,h2 and the harness agent as
#       plm_rsh_agent, UCX pinned to TCP (UCX_TLS=tcp,self; without it UCX would use shared
#       memory between namespaces of one machine).
# Ours runs with oshrun --hosts h1:1,h2:1 --rsh harness-agent (the agent pins UCX_TLS=tcp).
# Needs root (namespaces). Rounds alternate tcp / ours / OSHMEM; figures are medians.
# The TCP ping-pong depends on where the scheduler puts its two ends (blocking reads: on one
# CPU the wake-up is a direct hand-off, across CPUs it costs an inter-processor wake-up), so
# each round also runs it with both ends pinned to one CPU and to two, for context; the floor
# used for the ratios stays the unpinned run.
#
#   bench/hosts_compare.sh [BUILD_DIR]
# Environment: ROUNDS=3, PERF_REPS=7, PERF_REP_MS=20, PERF_WINDOW_MB=32,
#   SHMEM_SYMMETRIC_SIZE=128M, OSHMEM_OSHCC=/usr/bin/oshcc, MPIRUN=/usr/bin/mpirun, RAW_DIR.
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/common.sh
source "$script_dir/common.sh"
bench_find_build hosts_compare.sh "${1:-build}"
rounds=${ROUNDS:-3}
osh_cc=${OSHMEM_OSHCC:-/usr/bin/oshcc}
mpirun=${MPIRUN:-/usr/bin/mpirun}
export PERF_REPS=${PERF_REPS:-7} PERF_REP_MS=${PERF_REP_MS:-20} PERF_WINDOW_MB=${PERF_WINDOW_MB:-32}
export SHMEM_SYMMETRIC_SIZE=${SHMEM_SYMMETRIC_SIZE:-128M}

bench_tmpdir hosts
echo "== building perf (ours, OSHMEM) and tcp_pingpong"
"$our_cc" -O2 -std=c11 "$root/bench/perf.c" -o "$tmp/perf.ours"
cc -O2 -std=c11 "$root/bench/tcp_pingpong.c" -o "$tmp/tcp_pingpong"
have_osh=0
if [[ -x $osh_cc && -x $mpirun ]] && "$osh_cc" -O2 -std=c11 "$root/bench/perf.c" -o "$tmp/perf.osh" 2>"$tmp/osh_cc.err"; then
  have_osh=1
else
  echo "== OSHMEM not available ($osh_cc / $mpirun); reporting ours and TCP only"
fi

# The hosts: harness.sh's traps remove them (and call our cleanup) when the script exits.
WORK=$tmp
# shellcheck source=tests/hosts/harness.sh
source "$root/tests/hosts/harness.sh"
# shellcheck disable=SC2317  # called by harness.sh's trap
cleanup() { rm -rf -- "$tmp"; }
# The exit trap runs under this script's set -e, where harness_down's best-effort deletions
# (of links that went with their namespace) would stop it before cleanup.
# shellcheck disable=SC2317
_harness_exit() {
  set +e
  harness_down
  cleanup
}
harness_up 2
H2=$(harness_addr h2)
AG=$HARNESS_AGENT

# run_tcp OUT [SERVER_CPU CLIENT_CPU]
run_tcp() {
  local port=$((30000 + RANDOM % 20000)) spin="" cpin=""
  if (($# == 3)); then
    spin="taskset -c $2"
    cpin="taskset -c $3"
  fi
  "$AG" h2 "exec timeout 120 $spin $tmp/tcp_pingpong server $port" &
  local srv=$!
  timeout 120 "$AG" h1 "exec env PERF_REPS=$PERF_REPS PERF_REP_MS=$PERF_REP_MS $cpin $tmp/tcp_pingpong client $H2 $port" >"$1"
  wait "$srv"
}
# run_tcp_placed OUT: the ping-pong round trip with both ends on CPU 0, then on CPUs 0 and 1.
run_tcp_placed() {
  (($(nproc) >= 2)) && command -v taskset >/dev/null || return 0
  run_tcp "$1.one" 0 0
  run_tcp "$1.two" 0 1
  { sed -n 's/^tcp_pingpong_rtt,/tcp_rtt_one_cpu,/p' "$1.one"; sed -n 's/^tcp_pingpong_rtt,/tcp_rtt_two_cpus,/p' "$1.two"; } >"$1"
  rm -f "$1.one" "$1.two"
}
run_ours() {
  timeout 300 "$AG" h1 "exec env PERF_REPS=$PERF_REPS PERF_REP_MS=$PERF_REP_MS PERF_WINDOW_MB=$PERF_WINDOW_MB \
    SHMEM_SYMMETRIC_SIZE=$SHMEM_SYMMETRIC_SIZE $our_run --rsh $AG --hosts h1:1,h2:1 $tmp/perf.ours" >"$1" 2>"$1.err"
}
run_osh() {
  timeout 300 "$AG" h1 "exec $mpirun --allow-run-as-root --host h1,h2 -np 2 --mca plm_rsh_agent $AG \
    --mca osc ^rdma --mca spml ucx --mca btl self,tcp -x UCX_TLS=tcp,self -x UCX_NET_DEVICES=hnet0 \
    -x PERF_REPS -x PERF_REP_MS -x PERF_WINDOW_MB -x SHMEM_SYMMETRIC_SIZE \
    $tmp/perf.osh" >"$1" 2>"$1.err"
}

echo "== load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
for ((r = 1; r <= rounds; r++)); do
  echo "== round $r/$rounds: tcp, ours, OSHMEM"
  run_tcp "$tmp/tcp.$r.csv"
  run_tcp_placed "$tmp/tcpplace.$r.csv"
  run_ours "$tmp/ours.$r.csv" || { echo "   ours FAILED:"; tail -20 "$tmp/ours.$r.csv.err" | sed 's/^/   | /'; exit 1; }
  if ((have_osh)); then
    run_osh "$tmp/osh.$r.csv" || { echo "   OSHMEM FAILED:"; tail -20 "$tmp/osh.$r.csv.err" | sed 's/^/   | /'; have_osh=0; }
  fi
done
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if ((have_osh)); then
  # UCX_TLS=tcp,self leaves UCX no shared-memory transport; UCX refuses to start rather than fall back.
  echo "== OSHMEM: UCX_TLS=tcp,self UCX_NET_DEVICES=hnet0 ($(grep -h -m1 '^# library' "$tmp"/osh.*.csv | head -1 | sed 's/^# library: //'))"
fi
echo "== ours: $(grep -h -m1 '^# library' "$tmp"/ours.*.csv | head -1 | sed 's/^# library: //'), UCX_TLS=tcp (harness agent)"
if [[ -n ${RAW_DIR:-} ]]; then
  mkdir -p "$RAW_DIR"
  cp "$tmp"/*.csv "$RAW_DIR"/
fi

bench_aggregate "$tmp/tcp" >"$tmp/tcp.agg"
bench_aggregate "$tmp/tcpplace" >>"$tmp/tcp.agg"
bench_aggregate "$tmp/ours" >"$tmp/ours.agg"
bench_aggregate "$tmp/osh" >"$tmp/osh.agg" 2>/dev/null || : >"$tmp/osh.agg"
echo
awk '
  FNR == 1 { file++ }
  file == 1 { tcp[$1] = $3; next }
  file == 2 { ou[$1] = $3; unit[$1] = $2; order[++count] = $1; next }
  file == 3 { th[$1] = $3; next }
  function fmt(x) { return (x == "") ? "-" : sprintf(x >= 100 ? "%.1f" : (x >= 1 ? "%.3f" : "%.4f"), x) }
  END {
    rtt = tcp["tcp_pingpong_rtt"]; bw = tcp["tcp_stream_bw"]
    printf "TCP floor between the namespaces: 8-byte ping-pong round trip %s us, one 1 MiB stream %s GB/s\n", fmt(rtt), fmt(bw)
    if ("tcp_rtt_one_cpu" in tcp)
      printf "  (the same ping-pong pinned: both ends on one CPU %s us, on two CPUs %s us)\n", fmt(tcp["tcp_rtt_one_cpu"]), fmt(tcp["tcp_rtt_two_cpus"])
    print ""
    printf "%-26s %-5s %10s %10s %9s %12s\n", "metric", "unit", "ours", "OSHMEM", "OSH/ours", "vs TCP"
    for (i = 1; i <= count; i++) {
      m = order[i]
      if (m ~ /_(min|max)$/ || m ~ /^memcpy/) continue
      r = ((m in th) && ou[m] > 0 && th[m] > 0) ? sprintf("%.2f", unit[m] == "us" ? th[m] / ou[m] : ou[m] / th[m]) : "-"
      v = "-"
      if (unit[m] == "us" && rtt > 0) v = sprintf("%.2f x RTT", ou[m] / rtt)
      if (unit[m] == "GB/s" && bw > 0) v = sprintf("%.0f %% TCP", 100 * ou[m] / bw)
      printf "%-26s %-5s %10s %10s %9s %12s\n", m, unit[m], fmt(ou[m]), fmt(th[m]), r, v
    }
    print "\nTargets: get and put+quiet <= 1.3 x RTT; ping-pong half RTT <= 0.7 x RTT; 1 MiB put/get >= 80 % of TCP; OSH/ours >= 1."
  }' "$tmp/tcp.agg" "$tmp/ours.agg" "$tmp/osh.agg"
