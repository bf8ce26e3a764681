#!/bin/bash
# cpack -G DEB: three Debian packages (shmem, shmem-dev, python3-shmem) that apt would install
# here (apt-get --simulate: their dependencies resolve) and whose contents, unpacked into an empty
# root (dpkg -x: the files exactly as `apt install ./*.deb` puts them under /), build and run a C
# program with oshcc + oshrun and a Python job with python3 -m shmem.run. Nothing is installed
# into the machine itself.
. "$(dirname "$0")/common.sh"
command -v cpack >/dev/null && command -v dpkg-deb >/dev/null || { echo "SKIP: no cpack or dpkg-deb"; exit 77; }
[ -f "$SHX_BUILD_DIR/CPackConfig.cmake" ] || fail "no CPackConfig.cmake in $SHX_BUILD_DIR"

run cpack -G DEB --config "$SHX_BUILD_DIR/CPackConfig.cmake" -B "$WORK/pkg"
expect_rc 0 "cpack -G DEB"
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$SHX_BUILD_DIR/CPackConfig.cmake")
[ -n "$version" ] || fail "no CPACK_PACKAGE_VERSION"
for pkg in shmem shmem-dev python3-shmem; do
  deb=$(ls "$WORK/pkg/${pkg}_${version}_"*.deb 2>/dev/null)
  [ -n "$deb" ] || fail "no ${pkg}_${version}_*.deb: $(ls "$WORK/pkg")"
  [ "$(dpkg-deb -f "$deb" Package)" = "$pkg" ] || fail "$deb: Package is not $pkg"
done
deb() { ls "$WORK/pkg/$1_${version}_"*.deb; }
dpkg-deb -f "$(deb shmem-dev)" Depends | grep -q "shmem (= $version)" || fail "shmem-dev does not depend on shmem"
dpkg-deb -f "$(deb python3-shmem)" Depends | grep -q "python3-numpy" || fail "python3-shmem lacks python3-numpy"
contents() { dpkg-deb -c "$(deb "$1")" | awk '{ print $6 }'; }
for f in ./usr/bin/oshrun ./usr/bin/shmem-info "./usr/lib/libshmem.so.[0-9]"; do
  contents shmem | grep -qx "$f" || fail "shmem lacks $f"
done
for f in ./usr/bin/oshcc ./usr/include/shmem.h ./usr/lib/cmake/shmem/shmemConfig.cmake; do
  contents shmem-dev | grep -qx "$f" || fail "shmem-dev lacks $f"
done
contents python3-shmem | grep -qx ./usr/lib/python3/dist-packages/shmem/__init__.py || fail "python3-shmem lacks __init__.py"
contents shmem | grep -qx ./usr/share/man/man1/oshrun.1 || fail "shmem lacks the man page oshrun.1"
contents shmem-dev | grep -qx ./usr/share/man/man1/oshcc.1 || fail "shmem-dev lacks the man page oshcc.1"
pass "three packages with their files and dependencies"

# What `apt install ./*.deb` would do on this Debian 12, without doing it: apt resolves the
# packages' dependencies against this machine's packages and lists (--simulate changes nothing).
if command -v apt-get >/dev/null; then
  run apt-get install --simulate --no-install-recommends "$(deb shmem)" "$(deb shmem-dev)" "$(deb python3-shmem)"
  expect_rc 0 "apt-get install --simulate ./*.deb"
  for pkg in shmem shmem-dev python3-shmem; do
    grep -qE "^Inst $pkg " "$WORK/out" || fail "apt would not install $pkg: $(grep -E '^(E:|Inst)' "$WORK/out" | head -5)"
  done
  pass "apt install ./*.deb resolves on this system (simulated)"
fi

root=$WORK/root
for pkg in shmem shmem-dev python3-shmem; do dpkg -x "$(deb $pkg)" "$root" || fail "dpkg -x $pkg"; done
write_hello_c "$WORK/hello.c"
run "$root/usr/bin/oshcc" -o "$WORK/hello" "$WORK/hello.c"
expect_rc 0 "packaged oshcc"
run "$root/usr/bin/oshrun" -n 2 "$WORK/hello"
expect_rc 0 "packaged oshrun"
[ "$(sort "$WORK/out" | tr '\n' '|')" = "PE 0 of 2|PE 1 of 2|" ] || fail "packaged hello output"
PY=/usr/bin/python3
if "$PY" -c "import numpy" 2>/dev/null; then
  run env -u SHMEM_PY_OSHRUN PYTHONPATH="$root/usr/lib/python3/dist-packages" "$PY" -m shmem.run -n 2 \
    -c "import shmem; print('py PE', shmem.my_pe())"
  expect_rc 0 "packaged python3 -m shmem.run"
  [ "$(sort "$WORK/out" | tr '\n' '|')" = "py PE 0|py PE 1|" ] || fail "packaged Python job output"
fi
pass "the unpacked packages build and run a C program and a Python job"
