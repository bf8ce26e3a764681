#!/usr/bin/env bash
# coll_compare.sh - run bench/coll.c (collectives) against this project's shmem and against
# Open MPI's OSHMEM (the Debian package), print the figures side by side, write a CSV and
# plot them (bench/plot.py).
#
#   bench/coll_compare.sh [BUILD_DIR]   BUILD_DIR defaults to "build" (relative to the current
#                                       directory, else to the repository root); it must hold a
#                                       built tree: BUILD_DIR/bin/{oshcc,oshrun}, BUILD_DIR/lib.
#
# Each library builds the same bench/coll.c (active-set collectives). Ours also builds
# bench/coll_team.c (the team-based forms), reported as an extra "team" column; skipped with a
# note when it does not build. Runs alternate ours / OSHMEM / ours-team, ROUNDS times; each
# figure is the median over rounds of the per-run medians ("best": fastest repetition seen).
#
# Environment (all optional):
#   ROUNDS=3             runs per library and PE count (9 in cross-host mode: there each job's
#                        small collectives follow where the scheduler puts the hosts' PEs, so a
#                        median of 3 jobs follows that draw; see docs/performance.md)
#   NPES="2"             PE counts to run, e.g. "2 4" (4 PEs on 2 CPUs oversubscribes)
#   OUT_DIR=docs/img     where the CSV (coll.csv) and the PNGs go (relative to the current
#                        directory); PLOT=0 skips the plots
#   CSV_OUT              CSV path (default OUT_DIR/coll.csv)
#   TEAM=1               0: do not measure the team forms
#   COLL_REPS, COLL_REP_MS, COLL_SIZES, COLL_ONLY   passed to coll (see bench/coll.c)
#   SHMEM_SYMMETRIC_SIZE=256M   for both libraries
#   OSHMEM_OSHCC=/usr/bin/oshcc  OSHMEM_OSHRUN=/usr/bin/oshrun
#   OSHMEM_FLAGS         replaces the default extra oshrun flags for OSHMEM (see compare.sh:
#                        --allow-run-as-root as root, --oversubscribe above the CPU count,
#                        --mca osc ^rdma against the finalize crash of OMPI 4.1.4 + UCX 1.13)
#   PYTHON=/usr/bin/python3   interpreter for bench/plot.py (needs matplotlib)
#   WAIT_IDLE=0          if > 0: before each run, wait up to that many seconds for the machine
#                        to go idle (at most ~1 other runnable task over 2 s, from
#                        /proc/loadavg); for shared machines
#   RAW_DIR              if set, the raw CSV of every run is copied there
#   CFLAGS="-O2"         compiler flags for both builds
#   HOSTS=2,2            cross-host mode (needs root): PEs per namespace host (tests/hosts/
#                        harness.sh), e.g. 2,2 (2 hosts x 2 PEs) or 1,1,1,1; NPES is then the
#                        sum. Ours runs with oshrun --hosts ... --rsh harness-agent (UCX_TLS=tcp),
#                        OSHMEM with mpirun --host ... --mca plm_rsh_agent harness-agent over
#                        UCX pinned to tcp,self; a plain TCP 8-byte ping-pong between h1 and h2
#                        (bench/tcp_pingpong.c) gives the round trip the barrier is compared to.
#                        The CSV then goes to OUT_DIR/coll_hosts_<layout>.csv.
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/common.sh
source "$script_dir/common.sh"
bench_find_build coll_compare.sh "${1:-build}"

hosts_layout=${HOSTS:-}
rounds=${ROUNDS:-$([[ -n $hosts_layout ]] && echo 9 || echo 3)}
read -ra npes_list <<<"${NPES:-2}"
out_dir=${OUT_DIR:-$root/docs/img}
csv_out=${CSV_OUT:-$out_dir/coll.csv}
want_team=${TEAM:-1}
osh_cc=${OSHMEM_OSHCC:-/usr/bin/oshcc}
osh_run=${OSHMEM_OSHRUN:-/usr/bin/oshrun}
python=${PYTHON:-/usr/bin/python3}
read -ra cflags <<<"${CFLAGS:--O2}"
export SHMEM_SYMMETRIC_SIZE=${SHMEM_SYMMETRIC_SIZE:-256M}
ncpu=$(nproc)
if [[ -n $hosts_layout ]]; then
  IFS=, read -ra per_host <<<"$hosts_layout"
  hosts_n=0 hostlist="" osh_hosts=""
  for i in "${!per_host[@]}"; do
    hosts_n=$((hosts_n + per_host[i]))
    hostlist+="${hostlist:+,}h$((i + 1)):${per_host[i]}"
  done
  npes_list=("$hosts_n")
  csv_out=${CSV_OUT:-$out_dir/coll_hosts_${hosts_layout//,/-}.csv}
fi

bench_tmpdir coll
bench_osh_env COLL_REPS COLL_REP_MS COLL_SIZES COLL_ONLY

# ---- build -------------------------------------------------------------------------------
echo "== building bench/coll.c"
"$our_cc" "${cflags[@]}" -std=c11 "$root/bench/coll.c" -o "$tmp/coll.ours"
libs=(ours)
bench_osh_build "$root/bench/coll.c" "$tmp/coll.osh"
((have_osh)) && libs+=(osh)
if [[ $want_team == 1 ]]; then
  if "$our_cc" "${cflags[@]}" -std=c11 "$root/bench/coll_team.c" -o "$tmp/coll.team" 2>"$tmp/team_cc.err"; then
    libs+=(team)
  else
    echo "== bench/coll_team.c does not build against ours (team collectives missing?); skipping the team column:"
    head -5 "$tmp/team_cc.err" | sed 's/^/   | /'
  fi
fi

# ---- run ---------------------------------------------------------------------------------
if [[ -n $hosts_layout ]]; then
  cc -O2 -std=c11 "$root/bench/tcp_pingpong.c" -o "$tmp/tcp_pingpong"
  WORK=$tmp
  # shellcheck source=tests/hosts/harness.sh
  source "$root/tests/hosts/harness.sh"
  # harness.sh's exit trap removes the hosts; ours also removes the temporary directory (and
  # must not stop at harness_down's best-effort deletions under set -e).
  # shellcheck disable=SC2317
  _harness_exit() {
    set +e
    harness_down
    rm -rf -- "$tmp"
  }
  harness_up "${#per_host[@]}"
  AG=$HARNESS_AGENT
  H2=$(harness_addr h2)
  echo "== hosts: $hostlist (network namespaces; UCX_TLS=tcp)"
fi
run_tcp_rtt() { # one TCP ping-pong between h1 and h2 -> its CSV on stdout
  local port=$((30000 + RANDOM % 20000))
  "$AG" h2 "exec timeout 120 $tmp/tcp_pingpong server $port" &
  local srv=$!
  timeout 120 "$AG" h1 "exec env PERF_REPS=7 PERF_REP_MS=20 $tmp/tcp_pingpong client $H2 $port"
  wait "$srv"
}
run_one() { # run_one LIB NPES -> runs the benchmark, CSV on stdout
  local lib=$1 n=$2
  if [[ -n $hosts_layout ]]; then
    local prog=$tmp/coll.$lib vars="SHMEM_SYMMETRIC_SIZE=$SHMEM_SYMMETRIC_SIZE" v
    for v in COLL_REPS COLL_REP_MS COLL_SIZES COLL_ONLY; do [[ -z ${!v:-} ]] || vars+=" $v=${!v}"; done
    case $lib in
      ours | team) timeout 600 "$AG" h1 "exec env $vars $our_run --rsh $AG --hosts $hostlist $prog" ;;
      osh)
        local xs="" w
        for w in $vars; do xs+=" -x ${w%%=*}"; done
        timeout 600 "$AG" h1 "exec env $vars $osh_run --allow-run-as-root --oversubscribe --host $hostlist -np $n \
          --mca plm_rsh_agent $AG --mca osc ^rdma --mca spml ucx --mca btl self,tcp -x UCX_TLS=tcp,self \
          -x UCX_NET_DEVICES=hnet0$xs $prog"
        ;;
    esac
    return
  fi
  local lib=$1 n=$2
  case $lib in
    ours) timeout 300 "$our_run" -n "$n" "$tmp/coll.ours" ;;
    team) timeout 300 "$our_run" -n "$n" "$tmp/coll.team" ;;
    osh)
      local flags
      mapfile -t flags < <(osh_flags "$n")
      timeout 300 "$osh_run" "${flags[@]}" "${osh_env[@]}" -np "$n" "$tmp/coll.osh"
      ;;
  esac
}
label() { case $1 in ours) echo ours ;; osh) echo OSHMEM ;; team) echo "ours (team forms)" ;; esac; }

load=$(cut -d' ' -f1 /proc/loadavg)
if awk -v l="$load" -v n="$ncpu" 'BEGIN { exit !(l > 0.5 * n) }'; then
  echo "== warning: load average $load on $ncpu CPUs: other work is running, figures will be noisy"
fi

# runnable() -> mean number of runnable tasks besides this shell's sampling, over ~2 s
runnable() {
  local i tot=0 r
  for ((i = 0; i < 10; i++)); do
    r=$(cut -d' ' -f4 /proc/loadavg)
    tot=$((tot + ${r%/*} - 1))
    sleep 0.2
  done
  awk -v t="$tot" 'BEGIN { printf "%.1f", t / 10 }'
}
wait_idle() {
  local limit=${WAIT_IDLE:-0} waited=0 r
  ((limit > 0)) || return 0
  while :; do
    r=$(runnable)
    if awk -v r="$r" 'BEGIN { exit !(r <= 1.0) }'; then return 0; fi
    if ((waited >= limit)); then
      echo "   (still busy after ${waited} s: $r other runnable tasks; running anyway)"
      return 0
    fi
    sleep 5
    waited=$((waited + 7))
  done
}

failed=0
for n in "${npes_list[@]}"; do
  for ((r = 1; r <= rounds; r++)); do
    if [[ -n $hosts_layout ]]; then
      run_tcp_rtt >"$tmp/tcp.$r.csv" 2>"$tmp/tcp.$r.err" || echo "   TCP ping-pong FAILED: $(tail -3 "$tmp/tcp.$r.err")"
    fi
    for lib in "${libs[@]}"; do
      wait_idle
      echo "== $n PEs, round $r/$rounds: $(label "$lib")"
      rc=0
      t0=$(date +%s%N)
      load0=$(cut -d' ' -f1 /proc/loadavg)
      run_one "$lib" "$n" >"$tmp/$lib.$n.$r.csv" 2>"$tmp/$lib.$n.$r.err" || rc=$?
      echo "   $((($(date +%s%N) - t0) / 1000000)) ms (load average $load0 before, $(cut -d' ' -f1 /proc/loadavg) after)"
      if ((rc != 0)); then
        echo "   $(label "$lib") FAILED (exit $rc):"
        tail -20 "$tmp/$lib.$n.$r.err" | sed 's/^/   | /'
        [[ $lib == osh ]] || failed=1
      fi
    done
  done
done

if [[ -n ${RAW_DIR:-} ]]; then
  mkdir -p "$RAW_DIR"
  cp "$tmp"/*.csv "$RAW_DIR"/ 2>/dev/null || true
  echo "== raw results copied to $RAW_DIR"
fi

# ---- aggregate ---------------------------------------------------------------------------
# One CSV: lib,coll,npes,bytes,lat_us,best_us,bw_GBs,runs. lat_us = median over runs of the
# per-run median, best_us = smallest best, bw = bytes / lat_us.
{
  echo "lib,coll,npes,bytes,lat_us,best_us,bw_GBs,runs"
  for lib in "${libs[@]}"; do
    for f in "$tmp/$lib".*.csv; do
      [[ -e $f ]] || continue
      awk -F, -v lib="$lib" '/^#/ || /^coll,/ || NF != 6 { next } { print lib "," $0 }' "$f"
    done
  done
} | awk -F, '
  NR == 1 { next }
  {
    k = $1 "," $2 "," $4 "," $3        # lib,coll,npes,bytes
    if (!(k in n)) order[++count] = k
    v[k, ++n[k]] = $5 + 0
    if (!(k in best) || $6 + 0 < best[k]) best[k] = $6 + 0
  }
  END {
    print "lib,coll,npes,bytes,lat_us,best_us,bw_GBs,runs"
    for (i = 1; i <= count; i++) {
      k = order[i]; m = n[k]
      for (a = 2; a <= m; a++) {                # insertion sort (mawk has no asort)
        x = v[k, a]
        for (b = a - 1; b >= 1 && v[k, b] > x; b--) v[k, b + 1] = v[k, b]
        v[k, b + 1] = x
      }
      med = (m % 2) ? v[k, (m + 1) / 2] : (v[k, m / 2] + v[k, m / 2 + 1]) / 2
      split(k, f, ",")
      bw = (f[4] > 0 && med > 0) ? f[4] / med / 1000 : 0
      printf "%s,%s,%s,%s,%.3f,%.3f,%.6g,%d\n", f[1], f[2], f[3], f[4], med, best[k], bw, m
    }
  }' >"$tmp/all.csv"

if [[ $(wc -l <"$tmp/all.csv") -le 1 ]]; then
  echo "coll_compare.sh: no results" >&2
  exit 1
fi
mkdir -p -- "$(dirname -- "$csv_out")"
cp "$tmp/all.csv" "$csv_out"

echo
echo "== machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $ncpu CPUs, $(uname -sr)"
echo "== ours:   $(grep -h -m1 '^# library' "$tmp"/ours.*.csv 2>/dev/null | head -1 | sed 's/^# library: //')"
if [[ $have_osh -eq 1 ]]; then
  echo "== OSHMEM: $(grep -h -m1 '^# library' "$tmp"/osh.*.csv 2>/dev/null | head -1 | sed 's/^# library: //')," \
    "$("$osh_run" --version 2>/dev/null | head -1), flags: $(osh_flags "${npes_list[0]}" | tr '\n' ' ')"
fi
if [[ -n $hosts_layout ]]; then
  bench_aggregate "$tmp/tcp" >"$tmp/tcp.agg" 2>/dev/null || : >"$tmp/tcp.agg"
  rtt=$(awk '$1 == "tcp_pingpong_rtt" { print $3 }' "$tmp/tcp.agg")
  bar=$(awk -F, '$1 == "ours" && $2 == "barrier" { print $5; exit }' "$tmp/all.csv")
  echo "== TCP 8-byte ping-pong round trip h1 <-> h2: ${rtt:-?} us; our barrier ${bar:-?} us" \
    "($(awk -v b="${bar:-0}" -v r="${rtt:-0}" 'BEGIN { if (r > 0) printf "%.2f x RTT", b / r; else print "-" }'))"
fi
echo "== $rounds round(s); latency = median per call (us); GB/s = result bytes per PE / latency;"
echo "   ratio = OSHMEM latency / ours (> 1: ours is better); team = ours, team-based forms"
echo "== CSV: $csv_out"
echo

awk -F, '
  function human(b) {
    if (b == 0) return "-"
    if (b >= 1048576) return sprintf("%d MiB", b / 1048576)
    if (b >= 1024) return sprintf("%d KiB", b / 1024)
    return sprintf("%d B", b)
  }
  function lat(x) { return (x == "") ? "-" : sprintf(x >= 100 ? "%.1f" : (x >= 1 ? "%.2f" : "%.3f"), x) }
  function gbs(x) { return (x == "" || x == 0) ? "-" : sprintf(x >= 1 ? "%.2f" : "%.2g", x) }
  NR == 1 { next }
  {
    k = $2 "," $3 "," $4
    if (!(k in seen)) { seen[k] = 1; order[++count] = k }
    L[$1, k] = $5; B[$1, k] = $7
  }
  END {
    printf "%-10s %3s %8s %10s %10s %6s %9s %9s %10s\n", "collective", "PEs", "size", "ours us", "OSHMEM us", "ratio", "ours GB/s", "OSH GB/s", "team us"
    for (i = 1; i <= count; i++) {
      k = order[i]; split(k, f, ",")
      o = L["ours", k]; t = L["osh", k]
      r = (o > 0 && t > 0) ? sprintf("%.2f", t / o) : "-"
      printf "%-10s %3s %8s %10s %10s %6s %9s %9s %10s\n", f[1], f[2], human(f[3]), lat(o), lat(t), r, gbs(B["ours", k]), gbs(B["osh", k]), lat(L["team", k])
    }
  }' "$tmp/all.csv"

if [[ ${PLOT:-1} != 0 ]]; then
  echo
  if [[ -x $python ]] || command -v "$python" >/dev/null 2>&1; then
    "$python" "$root/bench/plot.py" "$csv_out" "$out_dir" ${hosts_layout:+"hosts_${hosts_layout//,/-}"} ||
      echo "== plot.py failed (figures above are unaffected)"
  else
    echo "== $python not found: no plots (set PYTHON=...)"
  fi
fi
exit $failed
