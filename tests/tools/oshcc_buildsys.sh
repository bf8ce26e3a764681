#!/bin/bash
# oshcc / oshc++ inside build systems, as other OpenSHMEM wrappers are used: an autotools
# project (CC=oshcc ./configure && make), `make CC=oshcc` on a plain Makefile, and a CMake
# project configured with -DCMAKE_C_COMPILER=oshcc -DCMAKE_CXX_COMPILER=oshc++. Each program
# calls powl (libm, which the wrappers link like the others do) and runs under oshrun.
# Every build step is bounded by `timeout`: a wrapper that exec'd itself would otherwise hang.
. "$(dirname "$0")/common.sh"
: "${SHX_SOURCE_DIR:?}" "${SHX_LIB_DIR:?}"
OSHCC=$SHX_BIN_DIR/oshcc
OSHCXX=$SHX_BIN_DIR/oshc++
[ -e "$SHX_LIB_DIR/libshmem.so" ] || { echo "SKIP: libshmem.so not built yet"; exit 77; }
# Build systems run the wrapper with CC/CXX pointing at it; the back end must come from elsewhere.
unset SHMEM_CC SHMEM_CXX

# The program: a libm call the compiler cannot fold (volatile operands), one put and a check.
cat >"$WORK/prog.c" <<'SRC'
#include <math.h>
#include <shmem.h>
#include <stdio.h>
static long slot;
int main(void) {
  volatile long double base = 2.0L, exponent = 10.0L;
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  shmem_long_p(&slot, (long)powl(base, exponent) + me, (me + 1) % n);
  shmem_barrier_all();
  long want = 1024 + (me + n - 1) % n;
  printf("PE %d %s\n", me, slot == want ? "ok" : "WRONG");
  shmem_finalize();
  return slot == want ? 0 : 1;
}
SRC
cat >"$WORK/prog.cpp" <<'SRC'
#include <cmath>
#include <cstdio>
#include <shmem.h>
int main() {
  volatile long double base = 3.0L;
  shmem_init();
  long double v = std::pow(base, 2.0L);
  std::printf("PE %d %s\n", shmem_my_pe(), v == 9.0L ? "ok" : "WRONG");
  shmem_finalize();
  return v == 9.0L ? 0 : 1;
}
SRC

# check_run EXE LABEL: runs it as 2 PEs and expects "ok" from both.
check_run() {
  run timeout 60 "$OSHRUN" -n 2 "$1"
  expect_rc 0 "$2 under oshrun"
  [ "$(grep -c ' ok$' "$WORK/out")" = 2 ] || fail "$2: output $(tr '\n' '|' <"$WORK/out")"
}

# --- make CC=oshcc (a Makefile with the built-in rules' variables) -------------------------------
mkdir "$WORK/mk"
cp "$WORK/prog.c" "$WORK/mk/"
printf 'prog: prog.o\n\t$(CC) $(LDFLAGS) -o $@ prog.o $(LDLIBS)\nprog.o: prog.c\n\t$(CC) $(CFLAGS) -c prog.c\n' \
  >"$WORK/mk/Makefile"
run timeout 120 make -C "$WORK/mk" CC="$OSHCC" CFLAGS=-O1
expect_rc 0 "make CC=oshcc"
check_run "$WORK/mk/prog" "make CC=oshcc"
pass "make CC=oshcc builds a program that calls powl"

# --- an autotools project: CC=oshcc ./configure && make ------------------------------------------
if command -v autoreconf >/dev/null && command -v automake >/dev/null; then
  mkdir "$WORK/at"
  cp "$WORK/prog.c" "$WORK/at/"
  cat >"$WORK/at/configure.ac" <<'AC'
AC_INIT([oshcc-probe], [1.0])
AM_INIT_AUTOMAKE([foreign -Wall -Werror])
AC_PROG_CC
AC_CHECK_HEADERS([shmem.h], [], [AC_MSG_ERROR([shmem.h not found through CC])])
AC_SEARCH_LIBS([shmem_init], [], [], [AC_MSG_ERROR([shmem_init does not link through CC])])
AC_SEARCH_LIBS([powl], [], [], [AC_MSG_ERROR([powl does not link through CC])])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
AC
  printf 'bin_PROGRAMS = prog\nprog_SOURCES = prog.c\n' >"$WORK/at/Makefile.am"
  (cd "$WORK/at" && timeout 180 autoreconf -i) >"$WORK/out" 2>"$WORK/err"
  RC=$?
  expect_rc 0 "autoreconf -i"
  (cd "$WORK/at" && CC="$OSHCC" timeout 180 ./configure) >"$WORK/out" 2>"$WORK/err"
  RC=$?
  [ "$RC" = 0 ] || { cat "$WORK/at/config.log" >>"$WORK/err"; fail "CC=oshcc ./configure: exit status $RC"; }
  expect_out "checking whether the C compiler works\.\.\. yes" "configure's compiler probe"
  expect_out "checking for library containing powl\.\.\. none required" "configure: powl links with oshcc alone"
  grep -q "^CC = $OSHCC\$" "$WORK/at/Makefile" || fail "configure did not keep CC=oshcc"
  run timeout 120 make -C "$WORK/at"
  expect_rc 0 "make (autotools)"
  check_run "$WORK/at/prog" "autotools"
  pass "CC=oshcc ./configure && make"
else
  echo "SKIP: autoreconf/automake not installed (scripts/setup.sh installs them)"
  exit 77
fi

# --- a CMake project with oshcc and oshc++ as its compilers --------------------------------------
mkdir -p "$WORK/cm/src"
cp "$WORK/prog.c" "$WORK/prog.cpp" "$WORK/cm/src/"
cat >"$WORK/cm/src/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(oshcc_probe C CXX)
add_executable(prog_c prog.c)
add_executable(prog_cxx prog.cpp)
CM
run timeout 180 cmake -S "$WORK/cm/src" -B "$WORK/cm/build" -DCMAKE_C_COMPILER="$OSHCC" \
  -DCMAKE_CXX_COMPILER="$OSHCXX" -DCMAKE_C_COMPILER_LAUNCHER= -DCMAKE_CXX_COMPILER_LAUNCHER=
expect_rc 0 "cmake -DCMAKE_C_COMPILER=oshcc -DCMAKE_CXX_COMPILER=oshc++"
expect_out "Check for working C compiler: $OSHCC - skipped|The C compiler identification is GNU" "cmake C probe"
run timeout 180 cmake --build "$WORK/cm/build"
expect_rc 0 "cmake --build"
check_run "$WORK/cm/build/prog_c" "CMake C"
check_run "$WORK/cm/build/prog_cxx" "CMake C++"
pass "CMake project with CMAKE_C_COMPILER=oshcc and CMAKE_CXX_COMPILER=oshc++"
