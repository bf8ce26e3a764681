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
