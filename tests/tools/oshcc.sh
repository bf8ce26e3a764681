#!/bin/bash
# oshcc / oshc++ of the build tree: flags, argument passing, and a real compile + link.
. "$(dirname "$0")/common.sh"
: "${SHMEM_SOURCE_DIR:?}" "${SHMEM_LIB_DIR:?}"
OSHCC=$SHMEM_BIN_DIR/oshcc
OSHCXX=$SHMEM_BIN_DIR/oshc++

# A fake compiler that records its arguments, one per line.
cat >"$WORK/fakecc" <<'FAKE'
#!/bin/sh
for a in "$@"; do printf '%s\n' "$a"; done
FAKE
chmod +x "$WORK/fakecc"

run env CC="$WORK/fakecc" "$OSHCC" -DMSG="a b" -o "$WORK/x y" hello.c
expect_rc 0 "oshcc with fake CC"
printf '%s\n' "-I$SHMEM_SOURCE_DIR/include" "-DMSG=a b" -o "$WORK/x y" hello.c \
  "-L$SHMEM_LIB_DIR" -lshmem "-Wl,-rpath,$SHMEM_LIB_DIR" >"$WORK/expected"
diff "$WORK/expected" "$WORK/out" >/dev/null || fail "link command: $(tr '\n' ' ' <"$WORK/out")"
for flag in -c -E -S -M -MM; do
  run env CC="$WORK/fakecc" "$OSHCC" $flag hello.c
  grep -q -- -lshmem "$WORK/out" && fail "oshcc $flag must not add link flags"
  grep -qx -- "-I$SHMEM_SOURCE_DIR/include" "$WORK/out" || fail "oshcc $flag lacks the include path"
done
run env CXX="$WORK/fakecc" "$OSHCXX" -c hello.cpp
expect_rc 0 "oshc++ with fake CXX"
expect_out '^hello\.cpp$' "oshc++ uses CXX"
pass "flags and argument passing"

run env CC=gcc "$OSHCC" --showme -O2 x.c
expect_rc 0 "--showme"
expect_out "^gcc -I$SHMEM_SOURCE_DIR/include -O2 x\.c -L$SHMEM_LIB_DIR -lshmem -Wl,-rpath,$SHMEM_LIB_DIR\$" "--showme"
run env -u CXX "$OSHCXX" --showme -c x.cpp
expect_out "^c\+\+ -I$SHMEM_SOURCE_DIR/include -c x\.cpp\$" "oshc++ --showme"
run "$OSHCC" --showme:link
expect_out "-lshmem" "--showme:link"
pass "--showme"

# A real program. Needs the library's headers and libshmem.so.
if [ ! -f "$SHMEM_SOURCE_DIR/include/shmem.h" ] || [ ! -e "$SHMEM_LIB_DIR/libshmem.so" ]; then
  echo "SKIP: include/shmem.h or libshmem.so not there yet"
  exit 77
fi
cat >"$WORK/hello.c" <<'SRC'
#include <shmem.h>
#include <stdio.h>
int main(void) {
  shmem_init();
  printf("PE %d of %d\n", shmem_my_pe(), shmem_n_pes());
  shmem_finalize();
  return 0;
}
SRC
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
  readelf -d "$WORK/$exe" | grep -qE "(RPATH|RUNPATH).*$SHMEM_LIB_DIR" || fail "$exe lacks the rpath"
done
pass "C and C++ programs compile and link"

# And it runs under oshrun (the whole chain: wrapper, library, launcher, store).
run "$OSHRUN" -n 2 "$WORK/hello_c"
expect_rc 0 "oshrun -n 2 hello_c"
[ "$(sort "$WORK/out" | tr '\n' '|')" = "PE 0 of 2|PE 1 of 2|" ] || fail "hello_c output"
pass "oshcc-built program runs under oshrun"
