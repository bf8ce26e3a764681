#!/usr/bin/env bash
# contend.sh - small-message latencies when the PEs do not each have a CPU to themselves: runs
# bench/contend.c (ping-pong, barrier, 8-byte broadcast / reduction / fcollect) against this
# project's shmem and against Open MPI's OSHMEM, side by side, in each scenario below; prints
# one table, writes a CSV and plots it (bench/plot_contend.py). Right after contend.c, in the
# same scenario, our run also times the ping-pong through the device API, in a kernel
# (bench/contend_device.cpp, metric dev_pingpong, compared with OSHMEM's host ping-pong).
#
#   bench/contend.sh [BUILD_DIR]     BUILD_DIR defaults to "build" (relative to the current
#                                    directory, else to the repository root); it must hold a
#                                    built tree: BUILD_DIR/bin/{oshcc,oshrun}, BUILD_DIR/lib.
#
# Scenarios (all on the same two CPUs, A and B: the first two of this script's affinity mask):
#   idle     2 PEs on A,B
#   hog1     2 PEs on A,B; one busy process pinned to B
#   onecpu   2 PEs both pinned to A (taskset -c A)
#   np4      4 PEs on A,B
#   np8      8 PEs on A,B
#   bg2      2 PEs on A,B; two busy processes on A,B (not pinned)
#   bg4      2 PEs on A,B; four busy processes on A,B
#   bound    2 PEs bound one to A, one to B (bench/bind_pe.sh, as a launcher that binds does);
#            one busy process pinned to A and one to B
# The busy processes are `bash -c 'while :; do :; done'` loops under `timeout` (HOG_S seconds
# at most), started before and stopped (by pid) after each library's run, and on any exit.
# On a VM the host runs the two virtual CPUs near or far apart (a cache-line hand-off of
# 0.05-0.07 or 0.25-0.30 us here), changing every few seconds, and every latency follows. So
# besides the medians over all rounds the script prints the same comparison within each
# placement: contend.c probes the placement right before and right after every batch (a plain
# cache-line ping-pong between PEs 0 and 1) and reports each metric's median over its near and
# its far batches; a run counts for a placement when at least two of its batches were there.
# Around every run (busy processes stopped) bench/handoff.c also probes it, for the log.
# Each round runs every scenario once for each library, alternating which library goes first;
# figures are the median over rounds of each run's median. The load average is recorded
# before every run and printed with the figures. In the idle scenario the script also measures
# the hardware reference: a cache-line ping-pong between two processes (bench/handoff.c).
#
# Environment (all optional):
#   ROUNDS=3               rounds
#   SCENARIOS="idle hog1 onecpu np4 np8 bg2 bg4 bound"
#   CPUS="A,B"             the two CPUs (default: the first two this script may run on)
#   HOG_S=300              upper bound on a busy process's life (it is stopped earlier)
#   HANDOFF_SPLIT_US=0.15  the hand-off probes around every run (logged) read below this: the
#                          two CPUs were "near", above: "far"
#   CONTEND_REPS, CONTEND_REP_MS, CONTEND_ONLY, CONTEND_THREADS, CONTEND_PROBE,
#   CONTEND_SPLIT_NS       passed to contend (see
#                          bench/contend.c; CONTEND_THREADS=multiple initialises both libraries
#                          for SHMEM_THREAD_MULTIPLE); CONTEND_ONLY without dev_pingpong skips
#                          the device-API ping-pong
#   OUT_DIR=docs/img       where contend.csv and contend.png go; PLOT=0 skips the plot
#   CSV_OUT                CSV path (default OUT_DIR/contend.csv)
#   RAW_DIR                if set, every run's raw CSV is copied there
#   SHMEM_SYMMETRIC_SIZE=64M   for both libraries
#   OSHMEM_OSHCC=/usr/bin/oshcc  OSHMEM_OSHRUN=/usr/bin/oshrun
#   OSHMEM_FLAGS           replaces the default extra oshrun flags for OSHMEM: compare.sh's,
#                          plus --oversubscribe (under taskset Open MPI counts fewer slots) and
#                          --bind-to none (Open MPI's own binding would override the taskset
#                          mask of the scenario; ours does not bind either)
#   PYTHON=/usr/bin/python3    interpreter for bench/plot_contend.py (needs matplotlib)
#   CFLAGS="-O2"           compiler flags for both builds
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/common.sh
source "$script_dir/common.sh"
bench_find_build contend.sh "${1:-build}"

rounds=${ROUNDS:-3}
read -ra scenarios <<<"${SCENARIOS:-idle hog1 onecpu np4 np8 bg2 bg4 bound}"
hog_s=${HOG_S:-300}
handoff_split=${HANDOFF_SPLIT_US:-0.15}
out_dir=${OUT_DIR:-$root/docs/img}
csv_out=${CSV_OUT:-$out_dir/contend.csv}
osh_cc=${OSHMEM_OSHCC:-/usr/bin/oshcc}
osh_run=${OSHMEM_OSHRUN:-/usr/bin/oshrun}
python=${PYTHON:-/usr/bin/python3}
read -ra cflags <<<"${CFLAGS:--O2}"
export SHMEM_SYMMETRIC_SIZE=${SHMEM_SYMMETRIC_SIZE:-64M}

for s in "${scenarios[@]}"; do
  case $s in
    idle | hog1 | onecpu | np4 | np8 | bg2 | bg4 | bound) ;;
    *) echo "contend.sh: unknown scenario '$s' in SCENARIOS (idle hog1 onecpu np4 np8 bg2 bg4 bound)" >&2; exit 2 ;;
  esac
done

# The two CPUs: CPUS, else the first two of Cpus_allowed_list.
expand_cpus() { # "0-2,5" -> "0 1 2 5"
  local part out=() a b i
  IFS=, read -ra parts <<<"$1"
  for part in "${parts[@]}"; do
    if [[ $part == *-* ]]; then
      a=${part%-*} b=${part#*-}
      for ((i = a; i <= b; i++)); do out+=("$i"); done
    else
      out+=("$part")
    fi
  done
  echo "${out[@]}"
}
if [[ -n ${CPUS:-} ]]; then
  read -ra cpus <<<"$(expand_cpus "$CPUS")"
else
  read -ra cpus <<<"$(expand_cpus "$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)")"
fi
if ((${#cpus[@]} < 2)); then
  echo "contend.sh: needs two CPUs (got '${cpus[*]:-}'; set CPUS=A,B)" >&2
  exit 2
fi
cpu_a=${cpus[0]} cpu_b=${cpus[1]}
export BIND_PE_CPUS="$cpu_a,$cpu_b"  # bench/bind_pe.sh, in the bound scenario

bench_tmpdir contend
bench_osh_env CONTEND_REPS CONTEND_REP_MS CONTEND_ONLY CONTEND_THREADS CONTEND_PROBE CONTEND_SPLIT_NS

# ---- busy processes ----------------------------------------------------------------------
hogs=()
nbusy=0
start_hogs() { # start_hogs COUNT CPULIST
  local i
  nbusy=$((nbusy + $1))
  for ((i = 0; i < $1; i++)); do
    taskset -c "$2" timeout "$hog_s" bash -c 'while :; do :; done' &
    hogs+=($!)
  done
}
stop_hogs() {
  local p
  for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${hogs[@]}"; do wait "$p" 2>/dev/null || true; done
  hogs=()
}
# shellcheck disable=SC2317  # called by the trap
on_exit() { stop_hogs; rm -rf -- "$tmp"; }
trap on_exit EXIT

# ---- build -------------------------------------------------------------------------------
echo "== building bench/contend.c, bench/contend_device.cpp and bench/handoff.c"
"$our_cc" "${cflags[@]}" -std=c11 "$root/bench/contend.c" -o "$tmp/contend.ours"
device_bench=0
if [[ -z ${CONTEND_ONLY:-} || ,$CONTEND_ONLY, == *,dev_pingpong,* ]]; then
  "${our_cc%/*}/oshc++" "${cflags[@]}" -std=c++20 "$root/bench/contend_device.cpp" -o "$tmp/contend_device.ours"
  device_bench=1
fi
cc "${cflags[@]}" -std=c11 "$root/bench/handoff.c" -o "$tmp/handoff"
libs=(ours)
bench_osh_build "$root/bench/contend.c" "$tmp/contend.osh"
((have_osh)) && libs+=(osh)

osh_flags_contend() { # compare.sh's flags, plus --oversubscribe and --bind-to none
  local f
  mapfile -t f < <(osh_flags "$1")
  printf '%s\n' "${f[@]}"
  [[ -z ${OSHMEM_FLAGS:-} ]] || return 0
  if [[ " ${f[*]} " != *" --oversubscribe "* ]]; then echo --oversubscribe; fi
  printf '%s\n' --bind-to none
}

# The placement of the two CPUs right before and right after one library's run (no busy
# processes running): a short cache-line ping-pong (bench/handoff.c, 3 batches of 10 ms) each
# time. On a VM the host runs the two virtual CPUs near or far apart by periods of seconds (the
# hand-off 0.05-0.07 or 0.25-0.29 us here), and every latency of a run follows; a run whose two
# probes both read below HANDOFF_SPLIT_US is "near", both above "far", else "mixed".
probe_handoff() {
  local out
  if out=$(HANDOFF_REPS=3 HANDOFF_REP_MS=10 taskset -c "$cpu_a,$cpu_b" timeout 30 "$tmp/handoff" 2>/dev/null); then
    IFS=, read -r _ hv _ <<<"$out"
    echo "$hv"
  else
    echo 0
  fi
}
placement() { # placement H_BEFORE H_AFTER -> near | far | mixed
  awk -v a="$1" -v b="$2" -v t="$handoff_split" 'BEGIN {
    if (a <= 0 || b <= 0) print "mixed"; else if (a < t && b < t) print "near"; else if (a >= t && b >= t) print "far"; else print "mixed" }'
}

# scenario_setup NAME -> sets npes, pin (taskset CPU list), bind (a command that binds each PE
# to its own CPU, or none), and starts the busy processes
scenario_setup() {
  nbusy=0
  npes=2 pin="$cpu_a,$cpu_b" bind=()
  case $1 in
    hog1) start_hogs 1 "$cpu_b" ;;
    onecpu) pin=$cpu_a ;;
    np4) npes=4 ;;
    np8) npes=8 ;;
    bg2) start_hogs 2 "$cpu_a,$cpu_b" ;;
    bg4) start_hogs 4 "$cpu_a,$cpu_b" ;;
    bound)
      bind=("$script_dir/bind_pe.sh")
      start_hogs 1 "$cpu_a"
      start_hogs 1 "$cpu_b"
      ;;
  esac
}
run_one() { # run_one LIB -> CSV on stdout
  case $1 in
    ours)
      taskset -c "$pin" timeout 120 "$our_run" -n "$npes" "${bind[@]}" "$tmp/contend.ours" || return
      ((device_bench == 0)) || taskset -c "$pin" timeout 120 "$our_run" -n "$npes" "${bind[@]}" "$tmp/contend_device.ours"
      ;;
    osh)
      local flags
      mapfile -t flags < <(osh_flags_contend "$npes")
      taskset -c "$pin" timeout 120 "$osh_run" "${flags[@]}" "${osh_env[@]}" -x BIND_PE_CPUS -np "$npes" "${bind[@]}" \
        "$tmp/contend.osh"
      ;;
  esac
}
label() { case $1 in ours) echo ours ;; osh) echo OSHMEM ;; esac; }

ncpu=$(nproc)
echo "== CPUs A=$cpu_a B=$cpu_b (of $ncpu this script may use); load average now: $(cut -d' ' -f1-3 /proc/loadavg)"

# The CPU time the hypervisor took from this VM's CPUs (steal, /proc/stat, in ticks of 1/CLK_TCK s: 10 ms here),
# summed over all CPUs, in ms: logged per run, since a run whose CPUs the host took away for a
# while is slow for reasons outside both libraries.
steal_ms() { awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" { printf "%d\n", $9 * 1000 / hz; exit }' /proc/stat; }

# raw.csv: scenario,lib,round,metric,npes,value_us,best_us,load,placement (of the run, from the
# probes around it),near_us,near_n,far_us,far_n (contend.c's medians over its near / far batches)
echo "scenario,lib,round,metric,npes,value_us,best_us,load,placement,near_us,near_n,far_us,far_n" >"$tmp/raw.csv"
failed=0
for ((r = 1; r <= rounds; r++)); do
  order=("${libs[@]}")
  if ((r % 2 == 0 && ${#libs[@]} == 2)); then order=(osh ours); fi
  for s in "${scenarios[@]}"; do
    if [[ $s == idle ]]; then
      load0=$(cut -d' ' -f1 /proc/loadavg)
      if taskset -c "$cpu_a,$cpu_b" timeout 60 "$tmp/handoff" >"$tmp/handoff.$r.out" 2>"$tmp/handoff.$r.err"; then
        IFS=, read -r _ hv hb <"$tmp/handoff.$r.out"
        echo "idle,hw,$r,handoff,2,$hv,$hb,$load0" >>"$tmp/raw.csv"
      else
        echo "   handoff FAILED: $(tail -2 "$tmp/handoff.$r.err")"
      fi
    fi
    for lib in "${order[@]}"; do
      h0=$(probe_handoff)
      scenario_setup "$s"
      load0=$(cut -d' ' -f1 /proc/loadavg)
      rc=0
      st0=$(steal_ms)
      t0=$(date +%s%N)
      run_one "$lib" >"$tmp/$s.$lib.$r.csv" 2>"$tmp/$s.$lib.$r.err" || rc=$?
      st1=$(steal_ms)
      stop_hogs
      h1=$(probe_handoff)
      place=$(placement "$h0" "$h1")
      echo "== round $r/$rounds, $s ($npes PEs on CPUs $pin, $nbusy busy): $(label "$lib")," \
        "$((($(date +%s%N) - t0) / 1000000)) ms, load average $load0, hand-off $h0 / $h1 us ($place)," \
        "steal $((st1 - st0)) ms"
      if ((rc != 0)); then
        echo "   $(label "$lib") FAILED (exit $rc):"
        tail -10 "$tmp/$s.$lib.$r.err" | sed 's/^/   | /'
        [[ $lib == osh ]] || failed=1
      fi
      awk -F, -v s="$s" -v lib="$lib" -v r="$r" -v load="$load0" \
        -v place="$place" '/^#/ || /^metric,/ || (NF != 4 && NF != 8) { next }
          { print s "," lib "," r "," $1 "," $2 "," $3 "," $4 "," load "," place "," (NF == 8 ? $5 "," $6 "," $7 "," $8 : "0,0,0,0") }' \
        "$tmp/$s.$lib.$r.csv" >>"$tmp/raw.csv"
    done
  done
done

if [[ -n ${RAW_DIR:-} ]]; then
  mkdir -p "$RAW_DIR"
  cp "$tmp"/*.csv "$tmp"/*.out "$RAW_DIR"/ 2>/dev/null || true
  echo "== raw results copied to $RAW_DIR"
fi

# awk helpers of the summaries below: median(x, m) of x[1..m] (sorts x), fmt(x) for a table cell.
awk_lib='
  function median(x, m,   a, b, v) {
    for (a = 2; a <= m; a++) { v = x[a]; for (b = a - 1; b >= 1 && x[b] > v; b--) x[b + 1] = x[b]; x[b + 1] = v }
    return (m % 2) ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
  }
  function fmt(x) { return (x == "") ? "-" : sprintf(x >= 100 ? "%.1f" : (x >= 1 ? "%.2f" : "%.3f"), x) }
'

# ---- aggregate: scenario,lib,metric,npes,value_us (median over rounds),best_us,runs,load_min,load_max
awk -F, "$awk_lib"'
  NR == 1 { next }
  {
    k = $1 "," $2 "," $4 "," $5
    if (!(k in n)) order[++count] = k
    v[k, ++n[k]] = $6 + 0
    if (!(k in best) || $7 + 0 < best[k]) best[k] = $7 + 0
    if (!(k in lmin) || $8 + 0 < lmin[k]) lmin[k] = $8 + 0
    if (!(k in lmax) || $8 + 0 > lmax[k]) lmax[k] = $8 + 0
  }
  END {
    print "scenario,lib,metric,npes,value_us,best_us,runs,load_min,load_max"
    for (i = 1; i <= count; i++) {
      k = order[i]; m = n[k]
      delete x
      for (a = 1; a <= m; a++) x[a] = v[k, a]
      med = median(x, m)
      printf "%s,%.4f,%.4f,%d,%.2f,%.2f\n", k, med, best[k], m, lmin[k], lmax[k]
    }
  }' "$tmp/raw.csv" >"$tmp/all.csv"
if [[ $(wc -l <"$tmp/all.csv") -le 1 ]]; then
  echo "contend.sh: no results" >&2
  exit 1
fi
mkdir -p -- "$(dirname -- "$csv_out")"
cp "$tmp/all.csv" "$csv_out"

echo
echo "== machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $ncpu CPUs, $(uname -sr)"
echo "== ours:   $(grep -h -m1 '^# library' "$tmp"/*.ours.*.csv 2>/dev/null | head -1 | sed 's/^# library: //')"
if [[ $have_osh -eq 1 ]]; then
  echo "== OSHMEM: $("$osh_run" --version 2>/dev/null | head -1), flags: $(osh_flags_contend 2 | tr '\n' ' ')"
fi
echo "== $rounds round(s); us per operation, median over rounds; ratio = OSHMEM / ours (>= 1: ours"
echo "   is no slower); load = load average before the runs (min-max); CSV: $csv_out"
echo
awk -F, "$awk_lib"'
  NR == 1 { next }
  {
    k = $1 "," $3 "," $4
    if ($2 != "hw" && !(k in seen)) { seen[k] = 1; order[++count] = k }
    V[$2, k] = $5
    if (!($1 in lo) || $8 + 0 < lo[$1]) lo[$1] = $8 + 0
    if (!($1 in hi) || $9 + 0 > hi[$1]) hi[$1] = $9 + 0
    if ($2 == "hw") hw = $5
  }
  END {
    printf "%-8s %3s %-11s %9s %9s %6s %-4s %s\n", "scenario", "PEs", "metric", "ours", "OSHMEM", "ratio", "", "load"
    met = 0; tot = 0
    for (i = 1; i <= count; i++) {
      k = order[i]; split(k, p, ",")
      o = V["ours", k]; t = V["osh", k]
      r = "-"; ok = ""
      # the probe rows (the cache-line probes of contend.c) belong to the machine, not to a library
      if (o > 0 && t > 0 && p[2] != "probe") { r = sprintf("%.2f", t / o); ok = (o <= t) ? "ok" : "SLOW"; tot++; if (o <= t) met++ }
      printf "%-8s %3s %-11s %9s %9s %6s %-4s %.2f-%.2f\n", p[1], p[3], p[2], fmt(o), fmt(t), r, ok, lo[p[1]], hi[p[1]]
    }
    print ""
    if (tot) printf "ours no slower than OSHMEM: %d of %d scenario/metric pairs\n", met, tot
    dtot = 0; dmet = 0; ds = ""
    for (i = 1; i <= count; i++) {
      k = order[i]; split(k, p, ",")
      if (p[2] != "dev_pingpong") continue
      o = V["ours", k]; t = V["osh", p[1] ",pingpong," p[3]]
      if (o > 0 && t > 0) { dtot++; if (o <= t) dmet++; ds = ds sprintf(" %s %.2f", p[1], t / o) }
    }
    if (dtot) printf "device-API ping-pong no slower than the OSHMEM ping-pong: %d of %d scenarios (OSHMEM / ours:%s)\n", dmet, dtot, ds
    pp = V["ours", "idle,pingpong,2"]
    if (hw > 0 && pp > 0)
      printf "idle ping-pong half round trip %.3f us = %.2f x the cache-line hand-off (%.3f us; target <= 1.5 x)\n", pp, pp / hw, hw
    b8 = V["ours", "np8,barrier,8"]
    if (b8 > 0) printf "8 PEs on 2 CPUs: 2000 barriers take %.3f s (target < 0.5 s)\n", b8 * 2000e-6
  }' "$tmp/all.csv"
# The same ratio round by round (the hand-off is measured right before each round's idle runs):
# on a VM whose two CPUs the host places near or far apart from round to round, the medians
# above may come from different placements.
awk -F, "$awk_lib"'
  $1 == "idle" && $4 == "handoff" { hw[$3] = $6 }
  $1 == "idle" && $2 == "ours" && $4 == "pingpong" { pp[$3] = $6; if ($3 + 0 > last) last = $3 + 0 }
  END {
    n = 0
    for (r = 1; r <= last; r++)
      if ((r in pp) && hw[r] > 0) { x[++n] = pp[r] / hw[r]; s = s sprintf(" %.2f", pp[r] / hw[r]) }
    if (n == 0) exit
    printf "idle ping-pong / hand-off round by round:%s (median %.2f)\n", s, median(x, n)
  }' "$tmp/raw.csv"
# And within the run, placement by placement: our idle ping-pong over its near (far) batches
# against contend.c's own probes of that placement in the same run.
awk -F, "$awk_lib"'
  $1 == "idle" && $2 == "ours" && $4 == "pingpong" { pn[$3] = $10; nn[$3] = $11; pf[$3] = $12; nf[$3] = $13 }
  $1 == "idle" && $2 == "ours" && $4 == "probe" { qn[$3] = $10; qf[$3] = $12 }
  END {
    for (r in pn) {
      if (nn[r] >= 2 && qn[r] > 0) xn[++a] = pn[r] / qn[r]
      if (nf[r] >= 2 && qf[r] > 0) xf[++b] = pf[r] / qf[r]
    }
    if (a) s = s sprintf(" near %.2f (%d runs)", median(xn, a), a)
    if (b) s = s sprintf(" far %.2f (%d runs)", median(xf, b), b)
    if (a || b) printf "idle ping-pong / the in-run cache-line probe of the same placement:%s (target <= 1.5 x)\n", s
  }' "$tmp/raw.csv"

# Within one placement: each scenario/metric compared over the runs with at least two batches
# in that placement (contend.c's batch probes), medians over those runs' near (far) medians.
awk -F, "$awk_lib"'
  function med(key, m,   a, w) {
    for (a = 1; a <= m; a++) w[a] = V[key, a]
    return median(w, m)
  }
  NR == 1 || $2 == "hw" || $4 == "probe" { next }
  {
    k = $1 "," $4 "," $5
    if (!(k in seen)) { seen[k] = 1; order[++count] = k }
    batches["near"] += $11; batches["far"] += $13
    if ($11 >= 2) { key = $2 SUBSEP k SUBSEP "near"; V[key, ++N[key]] = $10 + 0 }
    if ($13 >= 2) { key = $2 SUBSEP k SUBSEP "far"; V[key, ++N[key]] = $12 + 0 }
  }
  END {
    if (count == 0) exit
    print ""
    printf "within one placement (batches probed near: %d, far: %d; per run the median over its batches there, when at least 2; medians over those runs):\n", batches["near"], batches["far"]
    printf "%-8s %3s %-11s %-5s %5s %9s %9s %6s\n", "scenario", "PEs", "metric", "place", "runs", "ours", "OSHMEM", "ratio"
    # each metric against OSHMEM'"'"'s same metric; our device-API ping-pong against its host ping-pong
    met = 0; tot = 0; dtot = 0; dmet = 0; ds = ""
    for (i = 1; i <= count; i++) {
      k = order[i]; split(k, p, ",")
      dev = p[2] == "dev_pingpong"
      for (j = 1; j <= 2; j++) {
        pl = (j == 1) ? "near" : "far"
        ko = "ours" SUBSEP k SUBSEP pl; kt = "osh" SUBSEP p[1] "," (dev ? "pingpong" : p[2]) "," p[3] SUBSEP pl
        if (!(ko in N) || !(kt in N)) continue
        o = med(ko, N[ko]); t = med(kt, N[kt])
        if (dev) { dtot++; if (o <= t) dmet++; ds = ds sprintf(" %s/%s %.2f", p[1], pl, t / o); continue }
        tot++; if (o <= t) met++
        printf "%-8s %3s %-11s %-5s %2d/%-2d %9s %9s %6.2f %s\n", p[1], p[3], p[2], pl, N[ko], N[kt], fmt(o), fmt(t), t / o, (o <= t) ? "ok" : "SLOW"
      }
    }
    if (tot) printf "within one placement, ours no slower than OSHMEM: %d of %d scenario/metric/placement triples\n", met, tot
    if (dtot) printf "within one placement, device-API ping-pong no slower than the OSHMEM ping-pong: %d of %d (OSHMEM / ours:%s)\n", dmet, dtot, ds
  }' "$tmp/raw.csv"

if [[ ${PLOT:-1} != 0 ]]; then
  echo
  if [[ -x $python ]] || command -v "$python" >/dev/null 2>&1; then
    "$python" "$root/bench/plot_contend.py" "$csv_out" "$out_dir/contend.png" ||
      echo "== plot_contend.py failed (figures above are unaffected)"
  else
    echo "== $python not found: no plot (set PYTHON=...)"
  fi
fi
exit $failed
