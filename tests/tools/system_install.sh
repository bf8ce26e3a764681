#!/bin/bash
# The install paths of issue 32 done for real, on the machine itself (label `system`; CI only:
# .ci/run exports SHMEM_TEST_SYSTEM_INSTALL=1, anyone else gets SKIPPED):
#  1. cpack -G DEB, then `apt-get install ./*.deb` of the three packages, a smoke test of what apt
#     installed (oshcc a program, oshrun -n 2 it, shmem-info --check, a Python job from
#     /usr/lib/python3/dist-packages), then `apt-get purge`, which leaves the machine as it was;
#  2. pip install from a fresh copy of the source tree (tracked files only: no build trees) into a
#     venv, with --no-build-isolation: setup.py configures and builds by itself, with ccache when
#     the environment names it as compiler launcher (CI's first build then left the objects).
. "$(dirname "$0")/common.sh"
[ "${SHMEM_TEST_SYSTEM_INSTALL:-0}" = 1 ] || { echo "SKIP: changes the system; set SHMEM_TEST_SYSTEM_INSTALL=1 (CI does)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: apt install needs root"; exit 77; }
command -v cpack >/dev/null && command -v apt-get >/dev/null || { echo "SKIP: no cpack or apt-get"; exit 77; }
PKGS=(shmem shmem-dev python3-shmem)
installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]; }
for p in "${PKGS[@]}"; do
  installed "$p" && { echo "SKIP: package $p is already installed here (not ours to purge)"; exit 77; }
done
# Debian's openmpi-bin ships /usr/bin/oshrun, shmemrun, oshcc and oshc++ too: our packages
# divert them to NAME.distrib while installed (cmake/deb/divert.sh.in) and put them back when
# removed. OPENMPI notes whether that case is exercised here.
OPENMPI=""
installed openmpi-bin && OPENMPI=1
purge() {
  apt-get purge -y -q "${PKGS[@]}" >"$WORK/purge.log" 2>&1
}
trap 'purge; cleanup' EXIT

# ---- 1. apt install ./*.deb ------------------------------------------------------------------
start=$(now_ms)
run cpack -G DEB --config "$SHX_BUILD_DIR/CPackConfig.cmake" -B "$WORK/pkg"
expect_rc 0 "cpack -G DEB"
debs=()
for p in "${PKGS[@]}"; do
  d=$(ls "$WORK"/pkg/"${p}"_*.deb 2>/dev/null)
  [ -n "$d" ] || fail "cpack made no ${p}_*.deb: $(ls "$WORK/pkg")"
  debs+=("$d")
done
run env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${debs[@]}"
expect_rc 0 "apt-get install ./*.deb"
for p in "${PKGS[@]}"; do installed "$p" || fail "apt did not install $p"; done
pass "apt-get install ./*.deb: ${PKGS[*]} installed ($(($(now_ms) - start)) ms with cpack)"
if [ -n "$OPENMPI" ]; then
  for f in /usr/bin/oshrun /usr/bin/oshcc; do
    [ -L "$f.distrib" ] || [ -e "$f.distrib" ] || fail "Open MPI's $f was not diverted to $f.distrib"
    [ -f "$f" ] && ! [ -L "$f" ] || fail "$f is not ours after install (Open MPI's is a link): $(ls -l "$f" 2>&1)"
  done
  pass "Open MPI's oshrun and oshcc diverted to .distrib while ours are installed"
fi

write_hello_c "$WORK/hello.c"
run /usr/bin/oshcc -o "$WORK/hello" "$WORK/hello.c"
expect_rc 0 "installed oshcc"
run /usr/bin/oshrun -n 2 "$WORK/hello"
expect_rc 0 "installed oshrun -n 2"
[ "$(sort "$WORK/out" | tr '\n' '|')" = "PE 0 of 2|PE 1 of 2|" ] || fail "installed hello output"
SHMEM_SYMMETRIC_SIZE=16M run /usr/bin/shmem-info --check
expect_rc 0 "installed shmem-info --check"
expect_out "^0 failed" "shmem-info --check summary"
run env -u PYTHONPATH -u SHMEM_PY_OSHRUN /usr/bin/python3 -m shmem.run -n 2 \
  -c "import shmem; print('py PE', shmem.my_pe(), shmem.__file__)"
expect_rc 0 "installed python3 -m shmem.run"
[ "$(grep -c "^py PE [01] /usr/lib/python3/dist-packages/shmem/__init__.py$" "$WORK/out")" = 2 ] ||
  fail "the Python job did not import the installed package"
pass "the installed packages: oshcc + oshrun -n 2, shmem-info --check, a Python job"

purge || fail "apt-get purge: $(tail -5 "$WORK/purge.log")"
for p in "${PKGS[@]}"; do installed "$p" && fail "$p still installed after purge"; done
for f in /usr/bin/shmem-info /usr/include/shmem.h /usr/lib/python3/dist-packages/shmem; do
  [ -e "$f" ] && fail "$f left behind by apt-get purge"
done
for f in /usr/bin/oshrun /usr/bin/oshcc; do  # gone, or another package's again
  { [ -e "$f" ] || [ -L "$f" ]; } && ! dpkg -S "$f" >/dev/null 2>&1 && fail "$f left behind by apt-get purge"
done
dpkg-divert --list | grep -qE "by shmem(-dev)?$" && fail "diversions left: $(dpkg-divert --list | grep -E 'by shmem')"
if [ -n "$OPENMPI" ]; then
  [ "$(readlink /usr/bin/oshrun)" = mpirun.openmpi ] || fail "Open MPI's /usr/bin/oshrun not restored: $(ls -l /usr/bin/oshrun 2>&1)"
  [ -e /usr/bin/oshrun.distrib ] && fail "/usr/bin/oshrun.distrib left behind"
fi
pass "apt-get purge leaves none of the packages' files"

# ---- 2. pip install from a fresh copy of the sources ----------------------------------------
PY=/usr/bin/python3
if ! "$PY" -c "import venv, setuptools, wheel, pip, numpy" 2>/dev/null; then
  echo "SKIP: $PY lacks venv, setuptools, wheel, pip or numpy"
  exit 77
fi
SRC=$WORK/src
mkdir -p "$SRC"
if git -C "$SHX_SOURCE_DIR" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git -C "$SHX_SOURCE_DIR" ls-files -z | tar -C "$SHX_SOURCE_DIR" --null -T - -cf - | tar -C "$SRC" -xf -
else
  tar -C "$SHX_SOURCE_DIR" --exclude='./build*' -cf - . | tar -C "$SRC" -xf -
fi
export TMPDIR=$WORK PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
unset PYTHONPATH SHMEM_PY_OSHRUN
# The same configuration as the first build, in a tree as deep in the copy as build/ is in the
# checkout (ccache with CCACHE_BASEDIR, as .ci/run sets it, then finds the first build's objects).
export SHMEM_CMAKE_ARGS=${SHX_PIP_CMAKE_ARGS:--DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHMEM_WERROR=ON}
export SHMEM_CMAKE_BUILD_DIR=$SRC/build
start=$(now_ms)
run "$PY" -m venv --system-site-packages "$WORK/venv"
expect_rc 0 "venv"
run "$WORK/venv/bin/python" -m pip install --no-build-isolation --no-compile "$SRC"
expect_rc 0 "pip install <fresh copy>"
[ -f "$SRC/build/CMakeCache.txt" ] || fail "setup.py did not configure the build tree"
secs=$((($(now_ms) - start) / 1000))
hits=""
command -v ccache >/dev/null && [ -n "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ] && hits=", $(ccache -s 2>/dev/null | grep -iE '^ *hits' | head -1 | tr -s ' ')"
cat >"$WORK/job.py" <<'PY'
import shmem, sys
me, npes = shmem.my_pe(), shmem.n_pes()
assert shmem.__file__.startswith(sys.argv[1]), (shmem.__file__, sys.argv[1])
dst = shmem.zeros(4, dtype="i8")
shmem.put(dst, shmem.array([me + 10] * 4, dtype="i8"), (me + 1) % npes)
shmem.barrier_all()
assert list(dst) == [(me - 1) % npes + 10] * 4, (me, list(dst))
print(f"PE {me} of {npes}: VERIFIED")
shmem.free(dst)
PY
site=$("$WORK/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
(cd "$WORK" && run "$WORK/venv/bin/python" -m shmem.run -n 2 job.py "$site")
expect_rc 0 "python -m shmem.run -n 2 (venv)"
[ "$(sort "$WORK/out" | tr '\n' '|')" = "PE 0 of 2: VERIFIED|PE 1 of 2: VERIFIED|" ] || fail "venv job output"
pass "pip install of a fresh source copy (configured and built by setup.py: ${secs} s${hits}) runs a 2-PE job"
