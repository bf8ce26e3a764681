#!/usr/bin/env bash
# compare.sh - run bench/perf.c and bench/startup.c against this project's shmem and against
# Open MPI's OSHMEM (the Debian package), and print the figures side by side.
#
#   bench/compare.sh [BUILD_DIR]        BUILD_DIR defaults to "build" (relative to the current
#                                       directory, else to the repository root); it must hold a
#                                       built tree: BUILD_DIR/bin/{oshcc,oshrun}, BUILD_DIR/lib.
#
# Environment (all optional):
#   ROUNDS=3            perf runs per library, alternating ours/OSHMEM; per-metric median over
#                       rounds (best-of for the _min/_max lines). Evens out a busy machine.
#   STARTUP_RUNS=5      timed `oshrun -n STARTUP_PES startup` runs per library (median)
#   STARTUP_PES=4
#   OSHMEM_OSHCC=/usr/bin/oshcc  OSHMEM_OSHRUN=/usr/bin/oshrun
#   OSHMEM_FLAGS        replaces the default extra oshrun flags for OSHMEM (see below)
#   SHMEM_SYMMETRIC_SIZE=512M  for both libraries (the streaming window is 256 MiB)
#   PERF_REPS, PERF_REP_MS, PERF_WINDOW_MB  passed to perf (see bench/perf.c)
#   RAW_DIR             if set, the raw CSV of every run is copied there
#   CFLAGS="-O2"        compiler flags for both builds
#
# OSHMEM flags: Open MPI 4.1.4 + UCX 1.13 (Debian 12) crashes with SIGSEGV in shmem_finalize
# (a memory hook of the osc/rdma component runs after the component was unloaded), so the
# default flags exclude that component with `--mca osc ^rdma`; it is MPI one-sided only and
# plays no part in OSHMEM's data path (spml/ucx, sshmem/ucx). As root, `--allow-run-as-root`
# is added, and `--oversubscribe` when a run has more PEs than CPUs.
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/common.sh
source "$script_dir/common.sh"
bench_find_build compare.sh "${1:-build}"

rounds=${ROUNDS:-3}
startup_runs=${STARTUP_RUNS:-5}
startup_pes=${STARTUP_PES:-4}
osh_cc=${OSHMEM_OSHCC:-/usr/bin/oshcc}
osh_run=${OSHMEM_OSHRUN:-/usr/bin/oshrun}
read -ra cflags <<<"${CFLAGS:--O2}"
export SHMEM_SYMMETRIC_SIZE=${SHMEM_SYMMETRIC_SIZE:-512M}
ncpu=$(nproc)

bench_tmpdir compare
bench_osh_env PERF_REPS PERF_REP_MS PERF_WINDOW_MB

# ---- build -------------------------------------------------------------------------------
echo "== building bench/perf.c and bench/startup.c"
"$our_cc" "${cflags[@]}" -std=c11 "$root/bench/perf.c" -o "$tmp/perf.ours"
"$our_cc" "${cflags[@]}" -std=c11 "$root/bench/startup.c" -o "$tmp/startup.ours"
bench_osh_build "$root/bench/perf.c" "$tmp/perf.osh" "$root/bench/startup.c" "$tmp/startup.osh"

# ---- run ---------------------------------------------------------------------------------
run_ours() { timeout 300 "$our_run" -n "$1" "${@:2}"; }
run_osh() {
  local n=$1
  shift
  local flags
  mapfile -t flags < <(osh_flags "$n")
  timeout 300 "$osh_run" "${flags[@]}" "${osh_env[@]}" -np "$n" "$@"
}

load=$(cut -d' ' -f1 /proc/loadavg)
if awk -v l="$load" -v n="$ncpu" 'BEGIN { exit !(l > 0.5 * n) }'; then
  echo "== warning: load average $load on $ncpu CPUs: other work is running, figures will be noisy"
fi

failed=0
for ((r = 1; r <= rounds; r++)); do
  echo "== perf round $r/$rounds: ours"
  rc=0
  run_ours 2 "$tmp/perf.ours" >"$tmp/ours.$r.csv" 2>"$tmp/ours.$r.err" || rc=$?
  if ((rc != 0)); then
    echo "   ours FAILED (exit $rc):"
    tail -20 "$tmp/ours.$r.err" | sed 's/^/   | /'
    failed=1
  fi
  if [[ $have_osh -eq 1 ]]; then
    echo "== perf round $r/$rounds: OSHMEM"
    rc=0
    run_osh 2 "$tmp/perf.osh" >"$tmp/osh.$r.csv" 2>"$tmp/osh.$r.err" || rc=$?
    if ((rc != 0)); then
      echo "   OSHMEM FAILED (exit $rc):"
      tail -20 "$tmp/osh.$r.err" | sed 's/^/   | /'
    fi
  fi
done

now_ns() { date +%s%N; }
echo "== start-up: $startup_runs x 'oshrun -n $startup_pes startup' each"
for ((r = 1; r <= startup_runs; r++)); do
  t0=$(now_ns)
  if run_ours "$startup_pes" "$tmp/startup.ours" >/dev/null 2>"$tmp/startup.ours.err"; then
    echo $((($(now_ns) - t0) / 1000)) >>"$tmp/startup.ours.times"
  else
    echo "   ours start-up run FAILED:"
    tail -5 "$tmp/startup.ours.err" | sed 's/^/   | /'
    failed=1
  fi
  if [[ $have_osh -eq 1 ]]; then
    t0=$(now_ns)
    if run_osh "$startup_pes" "$tmp/startup.osh" >/dev/null 2>"$tmp/startup.osh.err"; then
      echo $((($(now_ns) - t0) / 1000)) >>"$tmp/startup.osh.times"
    else
      echo "   OSHMEM start-up run FAILED:"
      tail -5 "$tmp/startup.osh.err" | sed 's/^/   | /'
    fi
  fi
done

if [[ -n ${RAW_DIR:-} ]]; then
  mkdir -p "$RAW_DIR"
  cp "$tmp"/*.csv "$tmp"/*.times "$RAW_DIR"/ 2>/dev/null || true
  echo "== raw results copied to $RAW_DIR"
fi

# ---- aggregate ---------------------------------------------------------------------------
aggregate() { bench_aggregate "$tmp/$1"; }
median_ms() { # median of the microsecond figures in file $1, in ms; "-" if none
  [[ -s $1 ]] || { echo -; return; }
  sort -n "$1" | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m / 1000 }'
}

aggregate ours >"$tmp/ours.agg"
aggregate osh >"$tmp/osh.agg"
if [[ ! -s $tmp/ours.agg ]]; then
  echo "compare.sh: our library produced no results" >&2
  exit 1
fi

echo
echo "== machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $ncpu CPUs, $(uname -sr)"
echo "== ours:   $(grep -h -m1 '^# library' "$tmp"/ours.*.csv | head -1 | sed 's/^# library: //')"
if [[ $have_osh -eq 1 ]]; then
  echo "== OSHMEM: $(grep -h -m1 '^# library' "$tmp"/osh.*.csv 2>/dev/null | head -1 | sed 's/^# library: //')," \
    "$("$osh_run" --version 2>/dev/null | head -1), flags: $(osh_flags 2 | tr '\n' ' ')"
fi
echo "== 2 PEs, $rounds round(s); value = median; best = fastest repetition; ratio > 1: ours is better"
echo

awk -v have_osh="$have_osh" '
  FNR == 1 { file++ }
  file == 1 { ou[$1] = $3; unit[$1] = $2; order[++count] = $1; next }
  file == 2 { th[$1] = $3; next }
  function fmt(x) { return (x == "") ? "-" : sprintf(x >= 100 ? "%.1f" : (x >= 1 ? "%.3f" : "%.4f"), x) }
  function best(m) { return (unit[m] == "us") ? m "_min" : m "_max" }
  END {
    printf "%-26s %-5s %10s %10s %7s %10s %10s\n", "metric", "unit", "ours", "OSHMEM", "ratio", "ours best", "OSH best"
    for (i = 1; i <= count; i++) {
      m = order[i]
      if (m ~ /_(min|max)$/) continue
      r = "-"
      if (have_osh && (m in th) && ou[m] > 0 && th[m] > 0)
        r = sprintf("%.2f", unit[m] == "us" ? th[m] / ou[m] : ou[m] / th[m])
      printf "%-26s %-5s %10s %10s %7s %10s %10s\n", m, unit[m], fmt(ou[m]), (have_osh ? fmt(th[m]) : "-"), r, fmt(ou[best(m)]), (have_osh ? fmt(th[best(m)]) : "-")
    }
    print ""
    print "1 MiB transfers as % of single-thread memcpy (same run, same pattern; target >= 90 %):"
    split("put_bw_hot:memcpy_bw_hot put_bw_stream:memcpy_bw_stream get_bw_hot:memcpy_bw_hot get_bw_stream:memcpy_bw_stream", pairs, " ")
    for (i = 1; i <= 4; i++) {
      split(pairs[i], p, ":")
      o = (ou[p[2]] > 0) ? sprintf("%.0f %%", 100 * ou[p[1]] / ou[p[2]]) : "-"
      t = (have_osh && th[p[2]] > 0) ? sprintf("%.0f %%", 100 * th[p[1]] / th[p[2]]) : "-"
      printf "  %-14s ours %6s   OSHMEM %6s\n", p[1], o, t
    }
  }' "$tmp/ours.agg" "$tmp/osh.agg"

ours_ms=$(median_ms "$tmp/startup.ours.times")
osh_ms=$(median_ms "$tmp/startup.osh.times")
echo
echo "Start-up, 'oshrun -n $startup_pes startup' (init + finalize), median of $startup_runs runs (target: >= 5x faster):"
ratio=-
if [[ $ours_ms != - && $osh_ms != - ]]; then
  ratio=$(awk -v a="$ours_ms" -v b="$osh_ms" 'BEGIN { if (a > 0) printf "%.1f", b / a; else print "-" }')
fi
with_ms() { if [[ $1 == - ]]; then echo -; else echo "$1 ms"; fi; }
printf "  ours %s   OSHMEM %s   ratio (OSHMEM/ours) %s\n" "$(with_ms "$ours_ms")" "$(with_ms "$osh_ms")" "$ratio"
if [[ $have_osh -ne 1 ]]; then echo "  ($osh_why)"; fi
exit $failed
