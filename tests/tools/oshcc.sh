#!/bin/bash
# oshcc / oshc++ of the build tree: flags, argument passing, and a real compile + link.
. "$(dirname "$0")/common.sh"
: "${SHX_SOURCE_DIR:?}" "${SHX_LIB_DIR:?}"
OSHCC=$SHX_BIN_DIR/oshcc
OSHCXX=$SHX_BIN_DIR/oshc++

# A fake compiler that records its arguments, one per line.
cat >"$WORK/fakecc" <<'FAKE'
#!/bin/sh
for a in "$@"; do printf '%s\n' "$a"; done
FAKE
chmod +x "$WORK/fakecc"

run env SHMEM_CC="$WORK/fakecc" "$OSHCC" -DMSG="a b" -o "$WORK/x y" hello.c
expect_rc 0 "oshcc with fake SHMEM_CC"
printf '%s\n' "-I$SHX_SOURCE_DIR/include" "-DMSG=a b" -o "$WORK/x y" hello.c \
  "-L$SHX_LIB_DIR" -lshmem "-Wl,-rpath,$SHX_LIB_DIR" -lm -pthread >"$WORK/expected"
diff "$WORK/expected" "$WORK/out" >/dev/null || fail "link command: $(tr '\n' ' ' <"$WORK/out")"
for flag in -c -E -S -M -MM -fsyntax-only; do
  run env SHMEM_CC="$WORK/fakecc" "$OSHCC" $flag hello.c
  grep -q -- -lshmem "$WORK/out" && fail "oshcc $flag must not add link flags"
  grep -qx -- "-I$SHX_SOURCE_DIR/include" "$WORK/out" || fail "oshcc $flag lacks the include path"
done
run env SHMEM_CXX="$WORK/fakecc" "$OSHCXX" -c hello.cpp
expect_rc 0 "oshc++ with fake SHMEM_CXX"
expect_out '^hello\.cpp$' "oshc++ uses SHMEM_CXX"
pass "flags and argument passing"

# CC / CXX are the build system's variables, which point at the wrapper itself: never read.
run env -u SHMEM_CC CC="$WORK/fakecc" "$OSHCC" --showme x.c
expect_rc 0 "oshcc with CC set"
grep -q fakecc "$WORK/out" && fail "oshcc took its compiler from CC: $(cat "$WORK/out")"
run env -u SHMEM_CXX CXX="$WORK/fakecc" "$OSHCXX" --showme x.cpp
grep -q fakecc "$WORK/out" && fail "oshc++ took its compiler from CXX: $(cat "$WORK/out")"
# The default back end is the compiler the library was built with (an absolute path).
run env -u SHMEM_CC "$OSHCC" --showme x.c
expect_out "^/[^ ]+ -I$SHX_SOURCE_DIR/include x\.c " "default back end"
pass "CC/CXX ignored; default back end is the build's compiler"

# A back end that is the wrapper itself (directly, through a symlink or a launcher word) is
# refused at once with a message naming the variable, instead of exec'ing itself forever.
ln -s "$OSHCC" "$WORK/cc-link"
for backend in "$OSHCC" "$WORK/cc-link" "env $OSHCC"; do
  run timeout 20 env SHMEM_CC="$backend" "$OSHCC" -c x.c
  expect_rc 1 "SHMEM_CC=$backend"
  expect_err "oshcc itself.*set SHMEM_CC" "SHMEM_CC=$backend"
done
run timeout 20 env SHMEM_CXX="$OSHCXX" "$OSHCXX" -c x.cpp
expect_rc 1 "SHMEM_CXX=oshc++"
expect_err "oshc\+\+ itself.*set SHMEM_CXX" "SHMEM_CXX=oshc++"
pass "a wrapper that would run itself stops with a message"

run env SHMEM_CC=gcc "$OSHCC" --showme -O2 x.c
expect_rc 0 "--showme"
expect_out "^gcc -I$SHX_SOURCE_DIR/include -O2 x\.c -L$SHX_LIB_DIR -lshmem -Wl,-rpath,$SHX_LIB_DIR -lm -pthread\$" "--showme"
# oshc++ compiles as C++20 (the device API's headers need it) unless an argument sets -std.
run env SHMEM_CXX=c++ "$OSHCXX" --showme -c x.cpp
expect_out "^c\+\+ -std=c\+\+20 -I$SHX_SOURCE_DIR/include -c x\.cpp\$" "oshc++ --showme"
for std in -std=gnu++17 --std=c++2b; do
  run env SHMEM_CXX=c++ "$OSHCXX" --showme "$std" -c x.cpp
  expect_out "^c\+\+ -I$SHX_SOURCE_DIR/include ${std//+/\\+} -c x\.cpp\$" "oshc++ --showme $std"
done
run env SHMEM_CC=gcc "$OSHCC" --showme -c x.c
expect_out "^gcc -I$SHX_SOURCE_DIR/include -c x\.c\$" "oshcc adds no -std"
# --showme:link gives the link flags only, --showme:compile the compile flags only.
run "$OSHCC" --showme:link
expect_out "^-L$SHX_LIB_DIR -lshmem -Wl,-rpath,$SHX_LIB_DIR -lm -pthread\$" "--showme:link"
grep -q -- "-I" "$WORK/out" && fail "--showme:link prints -I: $(cat "$WORK/out")"
run "$OSHCC" --showme:compile
expect_out "^-I$SHX_SOURCE_DIR/include\$" "--showme:compile"
pass "--showme, -std=c++20 for oshc++"

# A real program. Needs the library's headers and libshmem.so.
if [ ! -f "$SHX_SOURCE_DIR/include/shmem.h" ] || [ ! -e "$SHX_LIB_DIR/libshmem.so" ]; then
  echo "SKIP: include/shmem.h or libshmem.so not there yet"
  exit 77
fi
write_hello_c "$WORK/hello.c"
cp "$WORK/hello.c" "$WORK/hello.cpp"
run "$OSHCC" -std=c11 -Wall -Werror -o "$WORK/hello_c" "$WORK/hello.c"
expect_rc 0 "oshcc compile+link"
run "$OSHCXX" -std=c++17 -Wall -Werror -o "$WORK/hello_cxx" "$WORK/hello.cpp"
expect_rc 0 "oshc++ compile+link"
# Separate compile and link steps.
run "$OSHCC" -c -o "$WORK/hello.o" "$WORK/hello.c"
expect_rc 0 "oshcc -c"
run "$OSHCC" -o "$WORK/hello_o" "$WORK/hello.o"
expect_rc 0 "oshcc link of an object"
for exe in hello_c hello_cxx hello_o; do
  readelf -d "$WORK/$exe" | grep -q 'NEEDED.*libshmem\.so\.' || fail "$exe does not need libshmem.so.N"
  readelf -d "$WORK/$exe" | grep -qE "(RPATH|RUNPATH).*$SHX_LIB_DIR" || fail "$exe lacks the rpath"
done
pass "C and C++ programs compile and link"

# The device API: C++20 by default through oshc++; an older standard is refused in words first.
cat >"$WORK/device.cpp" <<'SRC'
#include <shmem/device/device.hpp>
int main() { return 0; }
SRC
run "$OSHCXX" -o "$WORK/device" "$WORK/device.cpp"
expect_rc 0 "oshc++ device API without -std"
run "$OSHCXX" -std=c++17 -o "$WORK/device17" "$WORK/device.cpp"
[ "$RC" != 0 ] || fail "the device API compiled as C++17"
head -3 "$WORK/err" | grep -q "#error \"shmem's device API (shmem/device/\*.hpp) needs C++20" ||
  fail "C++17: the first error is not the #error naming C++20: $(head -3 "$WORK/err")"
pass "device API: C++20 by default, a clear #error under C++17"

# And it runs under oshrun (the whole chain: wrapper, library, launcher, store).
run "$OSHRUN" -n 2 "$WORK/hello_c"
expect_rc 0 "oshrun -n 2 hello_c"
[ "$(sort "$WORK/out" | tr '\n' '|')" = "PE 0 of 2|PE 1 of 2|" ] || fail "hello_c output"
pass "oshcc-built program runs under oshrun"
