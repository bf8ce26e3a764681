#!/bin/bash
# pip install . and pip wheel . (setup.py, pyproject.toml) offline with Debian's build
# dependencies (--no-build-isolation), into venvs made with --system-site-packages: the package
# carries libshmem, its plugins, oshrun and shmem-info, and a 2-PE job started with
# `python -m shmem.run` and with the package's oshrun checks values. setup.py builds in the test's
# own build tree (SHMEM_CMAKE_BUILD_DIR: only the target shmem_pip, already up to date), so the
# test costs seconds; a fresh configure (what users get) differs only in that step.
. "$(dirname "$0")/common.sh"
: "${SHX_BUILD_DIR:?}" "${SHX_SOURCE_DIR:?}" "${SHX_LIB_DIR:?}"
PY=/usr/bin/python3
"$PY" -c "import venv, setuptools, wheel, pip, numpy" 2>/dev/null ||
  { echo "SKIP: $PY lacks venv, setuptools, wheel, pip or numpy (python3-venv python3-wheel python3-pip)"; exit 77; }
export TMPDIR=$WORK PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
unset SHMEM_PY_OSHRUN PYTHONPATH
export SHMEM_CMAKE_BUILD_DIR=$SHX_BUILD_DIR
# pip builds in the source tree (setup.py's build-pip/): a copy of the files setup.py reads
# keeps the shared source tree clean.
SRC=$WORK/src
mkdir -p "$SRC/docs"
cp "$SHX_SOURCE_DIR"/{setup.py,pyproject.toml,CMakeLists.txt} "$SRC/"
cp "$SHX_SOURCE_DIR/docs/python.md" "$SRC/docs/"

cat >"$WORK/job.py" <<'PY'
import shmem, sys
me, npes = shmem.my_pe(), shmem.n_pes()
assert shmem.__file__.startswith(sys.argv[1]), (shmem.__file__, sys.argv[1])
dst = shmem.zeros(4, dtype="i8")
shmem.put(dst, shmem.array([me + 10] * 4, dtype="i8"), (me + 1) % npes)
shmem.barrier_all()
want = (me - 1) % npes + 10
assert list(dst) == [want] * 4, (me, list(dst))
print(f"PE {me} of {npes}: VERIFIED")
shmem.free(dst)
PY
job_ok() {  # job_ok <what>: both PEs verified
  expect_rc 0 "$1"
  [ "$(sort "$WORK/out" | tr '\n' '|')" = "PE 0 of 2: VERIFIED|PE 1 of 2: VERIFIED|" ] || fail "$1: output"
}

start=$(now_ms)
run "$PY" -m venv --system-site-packages "$WORK/venv"
expect_rc 0 "venv"
run "$WORK/venv/bin/python" -m pip install --no-build-isolation --no-compile "$SRC"
expect_rc 0 "pip install ."
site=$("$WORK/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
pkg=$site/shmem
soname=$(readelf -d "$SHX_LIB_DIR/libshmem.so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
for f in "lib/$soname" bin/oshrun bin/shmem-info __init__.py run.py; do
  [ -f "$pkg/$f" ] || fail "pip package lacks shmem/$f"
done
for p in "$SHX_LIB_DIR"/libshmem_{bootstrap_mpi,bootstrap_pmix,transport_ucx,cuda}.so; do
  [ -e "$p" ] || continue  # (plugins this build has; the build tree also holds test-only ones)
  [ -f "$pkg/lib/$(basename "$p")" ] || fail "pip package lacks the plugin $(basename "$p")"
done
ls "$pkg"/_core*.so >/dev/null 2>&1 || fail "pip package lacks the extension _core"
pass "pip install . into a venv: library, plugins, oshrun, module ($(($(now_ms) - start)) ms)"

(cd "$WORK" && run "$WORK/venv/bin/python" -m shmem.run -n 2 job.py "$site")
job_ok "python -m shmem.run -n 2 (venv)"
run "$WORK/venv/bin/oshrun" -n 2 "$WORK/venv/bin/python" "$WORK/job.py" "$site"
job_ok "the package's oshrun -n 2 (venv)"
run "$WORK/venv/bin/shmem-info" --version
expect_rc 0 "the package's shmem-info"
pass "2-PE jobs from the pip package check values"

start=$(now_ms)
run "$PY" -m pip wheel --no-build-isolation --no-deps -w "$WORK/wheel" "$SRC"
expect_rc 0 "pip wheel ."
whl=$(ls "$WORK"/wheel/shmem-*-linux_*.whl 2>/dev/null)
[ -n "$whl" ] || fail "no platform wheel: $(ls "$WORK/wheel")"
"$PY" -m zipfile -l "$whl" | awk '{ print $1 }' >"$WORK/contents"
for f in "shmem/lib/$soname" shmem/bin/oshrun shmem/__init__.py; do
  grep -qx "$f" "$WORK/contents" || fail "the wheel lacks $f"
done
for p in "$SHX_LIB_DIR"/libshmem_{bootstrap_mpi,bootstrap_pmix,transport_ucx,cuda}.so; do
  [ -e "$p" ] || continue  # (plugins this build has; the build tree also holds test-only ones)
  grep -qx "shmem/lib/$(basename "$p")" "$WORK/contents" || fail "the wheel lacks the plugin $(basename "$p")"
done
# (this venv without a pip of its own: Debian's pip installs into it, which costs less)
run "$PY" -m venv --system-site-packages --without-pip "$WORK/venv2"
run "$PY" -m pip --python "$WORK/venv2/bin/python" install --no-deps --no-compile "$whl"
expect_rc 0 "pip install the wheel"
site2=$("$WORK/venv2/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
(cd "$WORK" && run "$WORK/venv2/bin/python" -m shmem.run -n 2 job.py "$site2")
job_ok "python -m shmem.run -n 2 (wheel)"
pass "pip wheel . carries library and plugins; installed, it runs a 2-PE job ($(($(now_ms) - start)) ms)"
