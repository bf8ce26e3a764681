#!/usr/bin/env bash
# compare_builds.sh - the point-to-point benchmark (bench/perf.c, 2 PEs on this host) against two
# builds of this library side by side in one run: "before" and "after" a change. Each build
# compiles perf.c with its own oshcc and runs it with its own oshrun; rounds alternate
# before / after; each figure is the median over rounds of the per-run medians.
#
#   bench/compare_builds.sh BEFORE_BUILD_DIR AFTER_BUILD_DIR
#       e.g. git worktree add /tmp/before ec52a95 && cmake -S /tmp/before -B /tmp/before/build &&
#            cmake --build /tmp/before/build --target shmem oshrun &&
#            bench/compare_builds.sh /tmp/before/build build
#
# BENCH=coll_team runs the small team collectives instead (bench/coll_team.c: team sync,
# broadcast, fcollect, alltoall and sum reduce at COLL_SIZES, default 8,64,512 bytes); its
# metrics are COLL_SIZE (median) and COLL_SIZE_min (best repetition), in us.
#
# Environment: ROUNDS=5, BENCH=perf|coll_team, PERF_REPS, PERF_REP_MS, PERF_WINDOW_MB (see
#   bench/perf.c), COLL_* (bench/coll.c), NPES=2, SHMEM_SYMMETRIC_SIZE=512M, CFLAGS="-O2", RAW_DIR.
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/common.sh
source "$script_dir/common.sh"
[[ $# -eq 2 ]] || { echo "usage: compare_builds.sh BEFORE_BUILD_DIR AFTER_BUILD_DIR" >&2; exit 2; }
bench_find_build compare_builds.sh "$1"
before_cc=$our_cc before_run=$our_run before_dir=$build
bench_find_build compare_builds.sh "$2"
after_cc=$our_cc after_run=$our_run after_dir=$build
rounds=${ROUNDS:-5}
read -ra cflags <<<"${CFLAGS:--O2}"
export SHMEM_SYMMETRIC_SIZE=${SHMEM_SYMMETRIC_SIZE:-512M}

bench_tmpdir builds
bench=${BENCH:-perf}
npes=${NPES:-2}
case $bench in
  perf) src=("$root/bench/perf.c") ;;
  coll_team) src=("$root/bench/coll_team.c" -I"$root/bench") && export COLL_SIZES=${COLL_SIZES:-8,64,512} ;;
  *) echo "compare_builds.sh: BENCH=$bench: use perf or coll_team" >&2 && exit 2 ;;
esac
# bench/coll.c's "coll,bytes,npes,lat_us,best_us,bw" lines as perf.c's "metric,bytes,value,unit".
to_metrics() {
  if [[ $bench == perf ]]; then cat; else
    awk -F, 'NF == 6 && $4 + 0 > 0 { printf "%s_%s,%s,%s,us\n%s_%s_min,%s,%s,us\n", $1, $2, $2, $4, $1, $2, $2, $5 }'
  fi
}
echo "== building bench/$bench.c against $before_dir (before) and $after_dir (after)"
"$before_cc" "${cflags[@]}" -std=c11 "${src[@]}" -o "$tmp/perf.before"
"$after_cc" "${cflags[@]}" -std=c11 "${src[@]}" -o "$tmp/perf.after"

echo "== load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
for ((r = 1; r <= rounds; r++)); do
  echo "== round $r/$rounds: before, after"
  timeout 300 "$before_run" -n "$npes" "$tmp/perf.before" >"$tmp/before.$r.out" 2>"$tmp/before.$r.err" ||
    { echo "   before FAILED:"; tail -20 "$tmp/before.$r.err" | sed 's/^/   | /'; exit 1; }
  timeout 300 "$after_run" -n "$npes" "$tmp/perf.after" >"$tmp/after.$r.out" 2>"$tmp/after.$r.err" ||
    { echo "   after FAILED:"; tail -20 "$tmp/after.$r.err" | sed 's/^/   | /'; exit 1; }
  to_metrics <"$tmp/before.$r.out" >"$tmp/before.$r.csv"
  to_metrics <"$tmp/after.$r.out" >"$tmp/after.$r.csv"
done
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ -n ${RAW_DIR:-} ]]; then
  mkdir -p "$RAW_DIR"
  cp "$tmp"/*.csv "$RAW_DIR"/
fi

bench_aggregate "$tmp/before" >"$tmp/before.agg"
bench_aggregate "$tmp/after" >"$tmp/after.agg"
echo
awk '
  FNR == 1 { file++ }
  file == 1 { b[$1] = $3; unit[$1] = $2; order[++count] = $1; next }
  file == 2 { a[$1] = $3; next }
  function fmt(x) { return (x == "") ? "-" : sprintf(x >= 100 ? "%.1f" : (x >= 1 ? "%.3f" : "%.4f"), x) }
  END {
    printf "%-26s %-5s %10s %10s %16s\n", "metric", "unit", "before", "after", "after vs before"
    for (i = 1; i <= count; i++) {
      m = order[i]
      r = (b[m] > 0 && a[m] > 0) ? sprintf("%.2f", unit[m] == "us" ? b[m] / a[m] : a[m] / b[m]) : "-"
      printf "%-26s %-5s %10s %10s %16s\n", m, unit[m], fmt(b[m]), fmt(a[m]), r
    }
    print "\n(after vs before: > 1 means the after build is faster; latencies as before/after, bandwidths as after/before)"
  }' "$tmp/before.agg" "$tmp/after.agg"
