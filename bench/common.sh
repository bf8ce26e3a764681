# Shared by the bench/*compare.sh scripts (sourced).
# bench_find_build NAME ARG: resolves the build directory ARG (absolute, or relative to the
# current directory or the source root) and sets root, build, our_cc, our_run; exits 2 with a
# hint when the directory or our wrappers are missing.
bench_find_build() {
  local name=$1 build_arg=$2
  root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
  if [[ -d $build_arg ]]; then
    build=$(cd -- "$build_arg" && pwd)
  elif [[ -d $root/$build_arg ]]; then
    build=$(cd -- "$root/$build_arg" && pwd)
  else
    echo "$name: no build directory '$build_arg'." >&2
    echo "  build first: cmake -S $root -B $root/build && cmake --build $root/build -j" >&2
    exit 2
  fi
  our_cc=$build/bin/oshcc
  our_run=$build/bin/oshrun
  local f
  for f in "$our_cc" "$our_run"; do
    if [[ ! -x $f ]]; then
      echo "$name: $f is missing; build the project first (cmake --build $build)" >&2
      exit 2
    fi
  done
}

# bench_tmpdir NAME: a private temporary directory in $tmp, removed when the script exits.
bench_tmpdir() {
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/shmem-$1.XXXXXX")
  # shellcheck disable=SC2317  # called by the trap
  cleanup() { rm -rf -- "$tmp"; }
  trap cleanup EXIT
  trap 'exit 130' INT TERM
}

# osh_flags NPES -> OSHMEM's extra oshrun flags, one per line (docs/performance.md explains them):
# OSHMEM_FLAGS replaces them; else --allow-run-as-root as root, --oversubscribe above the CPU
# count, and --mca osc ^rdma (the finalize crash).
osh_flags() {
  if [[ -n ${OSHMEM_FLAGS:-} ]]; then
    local words
    read -ra words <<<"$OSHMEM_FLAGS"
    printf '%s\n' "${words[@]}"
    return
  fi
  if [[ $(id -u) -eq 0 ]]; then echo --allow-run-as-root; fi
  if (($1 > $(nproc))); then echo --oversubscribe; fi
  printf '%s\n' --mca osc '^rdma'
}

# bench_osh_env VAR...: sets osh_env to the -x options that pass SHMEM_SYMMETRIC_SIZE and every
# given variable that is set (exporting it) to OSHMEM's PEs.
bench_osh_env() {
  osh_env=(-x SHMEM_SYMMETRIC_SIZE)
  local v
  for v in "$@"; do
    if [[ -n ${!v:-} ]]; then
      export "${v?}"
      osh_env+=(-x "$v")
    fi
  done
}

# bench_aggregate PREFIX -> "metric unit value" lines of the CSV files PREFIX.*.csv, in
# first-seen order: the median over rounds for
# the main lines, the best over rounds for *_min (smallest) and *_max (largest).
bench_aggregate() {
  local files=("$1".*.csv)
  [[ -e ${files[0]} ]] || return 0
  cat "${files[@]}" | awk -F, '
    /^#/ || /^metric,/ || NF != 4 { next }
    {
      if (!($1 in n)) { order[++count] = $1; unit[$1] = $4 }
      v[$1, ++n[$1]] = $3 + 0
    }
    END {
      for (i = 1; i <= count; i++) {
        m = order[i]; k = n[m]
        for (a = 2; a <= k; a++) {            # insertion sort (mawk has no asort)
          x = v[m, a]
          for (b = a - 1; b >= 1 && v[m, b] > x; b--) v[m, b + 1] = v[m, b]
          v[m, b + 1] = x
        }
        if (m ~ /_min$/) val = v[m, 1]
        else if (m ~ /_max$/) val = v[m, k]
        else val = (k % 2) ? v[m, (k + 1) / 2] : (v[m, k / 2] + v[m, k / 2 + 1]) / 2
        print m, unit[m], val
      }
    }'
}

# bench_osh_build SOURCE OUTPUT [SOURCE OUTPUT ...]: builds each SOURCE with OSHMEM's oshcc
# ($osh_cc, $osh_run, cflags) into OUTPUT; sets have_osh (1 when all built) and osh_why, and says
# so when OSHMEM is not there or does not build them.
bench_osh_build() {
  have_osh=0
  osh_why=""
  : >"$tmp/osh_cc.err"
  if [[ ! -x $osh_cc || ! -x $osh_run ]]; then
    osh_why="OSHMEM is not installed ($osh_cc / $osh_run not found; Debian: apt-get install libopenmpi-dev openmpi-bin)"
  else
    have_osh=1
    while [[ $# -ge 2 ]]; do
      if ! "$osh_cc" "${cflags[@]}" -std=c11 "$1" -o "$2" 2>>"$tmp/osh_cc.err"; then
        have_osh=0
        osh_why="OSHMEM's oshcc failed to build the benchmark: $(head -c 400 "$tmp/osh_cc.err")"
        break
      fi
      shift 2
    done
  fi
  [[ $have_osh -eq 1 ]] || echo "== $osh_why; reporting ours only"
}
