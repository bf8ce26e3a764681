#!/bin/sh
# api.pshmem: the profiling interface (spec 1.6, "Profiling Interface").
#   1. include/shmem/pshmem_decls.h is what scripts/gen-pshmem.sh makes of the headers today;
#   2. libshmem exports pshmem_X for every shmem_X it exports (pshmemx_X for shmemx_X), and
#      every routine <pshmem.h> declares;
#   3. <pshmem.h> compiles as C99, C11 and C++17 with -Wall -Wextra -pedantic -Werror;
#   4. a profiling library defining shmem_putmem, shmem_pcontrol and shmem_finalize (calling the
#      pshmem_ names) intercepts a program's calls, linked before libshmem and with LD_PRELOAD,
#      as 1 PE and as 2 PEs under oshrun; it honours the shmem_pcontrol levels (0 disables
#      counting, 1 enables, other levels with extra arguments are accepted); without it the
#      program runs as usual and shmem_pcontrol is a no-op;
#   5. the deprecated 1.2 routines outside the shmem_ namespace (start_pes, _my_pe, _num_pes,
#      shmalloc, shfree, shrealloc, shmemalign) have p-prefixed names too (pstart_pes, p_my_pe,
#      ..., as Sandia OpenSHMEM and OSHMEM name them), and a profiler intercepts them.
#   usage: pshmem.sh <source-dir> <lib-dir> <bin-dir> <c-compiler> <c++-compiler> <work-dir>
set -u
src=$1 lib=$2 bin=$3 cc=$4 cxx=$5 work=$6
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL [pshmem]: $*" >&2; exit 1; }

# 1. up to date
PSHMEM_GEN_CC=$cc sh "$src/scripts/gen-pshmem.sh" "$work/decls.h" >/dev/null || fail "gen-pshmem.sh failed"
diff -u "$src/include/shmem/pshmem_decls.h" "$work/decls.h" >"$work/diff" ||
  fail "include/shmem/pshmem_decls.h is out of date: run scripts/gen-pshmem.sh ($(head -c 2000 "$work/diff"))"
echo "ok - pshmem_decls.h is up to date"

# 2. exports
nm -D --defined-only "$lib/libshmem.so" | awk '{ print $NF }' | sed 's/@.*//' | sort -u >"$work/exported"
deprecated='start_pes|_my_pe|_num_pes|shmalloc|shfree|shrealloc|shmemalign'  # 1.2 names outside shmem_
grep -E "^(shmemx?_|($deprecated)\$)" "$work/exported" | sed 's/^/p/' | sort >"$work/want"
grep -E "^(pshmemx?_|p($deprecated)\$)" "$work/exported" >"$work/have"
comm -23 "$work/want" "$work/have" >"$work/missing"
[ -s "$work/missing" ] && fail "$(wc -l <"$work/missing") routine(s) without a pshmem_ name: $(head -5 "$work/missing" | tr '\n' ' ')"
comm -13 "$work/want" "$work/have" >"$work/extra"
[ -s "$work/extra" ] && fail "pshmem_ names without a routine: $(head -5 "$work/extra" | tr '\n' ' ')"
sed -n 's/^SHMEM_API .*[ *]\(p[A-Za-z0-9_]*\)(.*/\1/p' "$src/include/shmem/pshmem_decls.h" | sort -u >"$work/declared"
[ "$(wc -l <"$work/declared")" -gt 1000 ] || fail "pshmem_decls.h declares only $(wc -l <"$work/declared") routines"
comm -23 "$work/declared" "$work/have" >"$work/undef"
[ -s "$work/undef" ] && fail "declared in <pshmem.h> but not exported: $(head -5 "$work/undef" | tr '\n' ' ')"
echo "ok - $(wc -l <"$work/have") pshmem_ names exported, one per routine; $(wc -l <"$work/declared") declared"

# 3. the header in each language
printf '#include <pshmem.h>\nvoid (*fp)(void*, const void*, size_t, int) = pshmem_putmem;\nint main(void) { return fp == 0; }\n' >"$work/h.c"
cp "$work/h.c" "$work/h.cpp"
for std in c99 c11; do
  "$cc" -std=$std -Wall -Wextra -pedantic -Werror -I"$src/include" -c "$work/h.c" -o "$work/h.o" 2>"$work/err" ||
    fail "<pshmem.h> as $std: $(head -c 2000 "$work/err")"
done
"$cxx" -std=c++17 -Wall -Wextra -pedantic -Werror -I"$src/include" -c "$work/h.cpp" -o "$work/h.o" 2>"$work/err" ||
  fail "<pshmem.h> as C++17: $(head -c 2000 "$work/err")"
echo "ok - <pshmem.h> compiles as C99, C11 and C++17"

# 4. interception
cat >"$work/prof.c" <<'SRC'
#include <pshmem.h>
#include <stdio.h>
static int level = 1; /* the spec's recommended default after shmem_init */
static long calls, bytes, pcontrols;
void shmem_putmem(void* dest, const void* source, size_t nelems, int pe) {
  if (level > 0) {
    ++calls;
    bytes += (long)nelems;
  }
  pshmem_putmem(dest, source, nelems, pe);
}
void shmem_pcontrol(const int lv, ...) {
  level = lv;
  ++pcontrols;
  pshmem_pcontrol(lv);
}
void shmem_finalize(void) {
  printf("prof: PE %d putmem calls=%ld bytes=%ld pcontrol=%ld level=%d\n", pshmem_my_pe(), calls, bytes,
         pcontrols, level);
  fflush(stdout);
  pshmem_finalize();
}
SRC
cat >"$work/app.c" <<'SRC'
#include <shmem.h>
#include <stdio.h>
#include <string.h>
static char buf[32];
int main(void) {
  shmem_init();
  int me = shmem_my_pe(), right = (me + 1) % shmem_n_pes();
  char src[8];
  memset(src, 'a' + me, sizeof src);
  shmem_putmem(buf, src, 8, right);      /* counted */
  shmem_pcontrol(0);                     /* profiling off */
  shmem_putmem(buf + 8, src, 4, right);  /* not counted */
  shmem_pcontrol(1);
  shmem_putmem(buf + 16, src, 2, right); /* counted */
  shmem_pcontrol(3, "phase", 42);        /* a level with profiler-defined arguments */
  shmem_barrier_all();
  char want = (char)('a' + (me + shmem_n_pes() - 1) % shmem_n_pes());
  int ok = 1;
  for (int i = 0; i < 18; ++i)
    if ((i < 12 || i >= 16) && buf[i] != want) ok = 0;
  printf("app: PE %d data %s\n", me, ok ? "ok" : "WRONG");
  fflush(stdout);
  shmem_finalize();
  return ok ? 0 : 1;
}
SRC
"$cc" -std=c11 -Wall -Werror -fPIC -shared -I"$src/include" -o "$work/libprof.so" "$work/prof.c" \
  -L"$lib" -lshmem -Wl,-rpath,"$lib" 2>"$work/err" || fail "building libprof.so: $(cat "$work/err")"
"$cc" -std=c11 -Wall -Werror -I"$src/include" -o "$work/app_linked" "$work/app.c" -L"$work" -lprof \
  -Wl,-rpath,"$work" -L"$lib" -lshmem -Wl,-rpath,"$lib" 2>"$work/err" || fail "linking app with -lprof: $(cat "$work/err")"
"$cc" -std=c11 -Wall -Werror -I"$src/include" -o "$work/app" "$work/app.c" -L"$lib" -lshmem -Wl,-rpath,"$lib" \
  2>"$work/err" || fail "linking app: $(cat "$work/err")"

expect_prof() { # label npes output-file
  [ "$(grep -c '^app: PE [0-9]* data ok$' "$3")" = "$2" ] || fail "$1: program output: $(cat "$3")"
  [ "$(grep -cE '^prof: PE [0-9]+ putmem calls=2 bytes=10 pcontrol=3 level=3$' "$3")" = "$2" ] ||
    fail "$1: the profiler did not see exactly the enabled calls: $(cat "$3")"
}
timeout 60 "$work/app_linked" >"$work/out" 2>&1 || fail "linked profiler, 1 PE: exit $? $(cat "$work/out")"
expect_prof "linked, 1 PE" 1 "$work/out"
timeout 60 env LD_PRELOAD="$work/libprof.so" "$work/app" >"$work/out" 2>&1 || fail "LD_PRELOAD, 1 PE: $(cat "$work/out")"
expect_prof "LD_PRELOAD, 1 PE" 1 "$work/out"
timeout 60 "$bin/oshrun" -n 2 "$work/app_linked" >"$work/out" 2>&1 || fail "linked, 2 PEs: $(cat "$work/out")"
expect_prof "linked, 2 PEs" 2 "$work/out"
timeout 60 "$bin/oshrun" -n 2 env LD_PRELOAD="$work/libprof.so" "$work/app" >"$work/out" 2>&1 ||
  fail "LD_PRELOAD, 2 PEs: $(cat "$work/out")"
expect_prof "LD_PRELOAD, 2 PEs" 2 "$work/out"
echo "ok - a profiling library intercepts shmem_putmem/pcontrol/finalize (linked and LD_PRELOAD, 1 and 2 PEs)"

timeout 60 "$bin/oshrun" -n 2 "$work/app" >"$work/out" 2>&1 || fail "without profiler: $(cat "$work/out")"
[ "$(grep -c '^app: PE [0-9]* data ok$' "$work/out")" = 2 ] || fail "without profiler: $(cat "$work/out")"
grep -q '^prof:' "$work/out" && fail "without profiler: a prof line appeared"
echo "ok - without a profiler shmem_pcontrol is a no-op at every level"

# 5. the deprecated routines outside the shmem_ namespace have their profiling names too
cat >"$work/prof_old.c" <<'SRC'
#include <pshmem.h>
#include <stdio.h>
static int shmallocs, my_pes;
void* shmalloc(size_t size) { ++shmallocs; return pshmalloc(size); }
int _my_pe(void) { ++my_pes; return p_my_pe(); }
void shmem_finalize(void) {
  printf("prof_old: shmalloc=%d _my_pe=%d\n", shmallocs, my_pes);
  fflush(stdout);
  pshmem_finalize();
}
SRC
cat >"$work/app_old.c" <<'SRC'
#include <shmem.h>
#include <stdio.h>
int main(void) {
  start_pes(0);
  long* p = shmalloc(sizeof(long));
  *p = _my_pe() + 40;
  shmem_barrier_all();
  printf("app_old: PE %d of %d: %ld\n", _my_pe(), _num_pes(), *p);
  shfree(p);
  shmem_finalize();
  return 0;
}
SRC
"$cc" -std=c11 -Wall -Werror -fPIC -shared -I"$src/include" -o "$work/libprof_old.so" "$work/prof_old.c" \
  -L"$lib" -lshmem -Wl,-rpath,"$lib" 2>"$work/err" || fail "building libprof_old.so: $(cat "$work/err")"
"$cc" -std=c11 -Wall -Werror -Wno-deprecated-declarations -I"$src/include" -o "$work/app_old" "$work/app_old.c" \
  -L"$work" -lprof_old -Wl,-rpath,"$work" -L"$lib" -lshmem -Wl,-rpath,"$lib" 2>"$work/err" ||
  fail "linking app_old with -lprof_old: $(cat "$work/err")"
timeout 60 "$work/app_old" >"$work/out" 2>&1 || fail "deprecated names, 1 PE: exit $? $(cat "$work/out")"
grep -q '^app_old: PE 0 of 1: 40$' "$work/out" && grep -q '^prof_old: shmalloc=1 _my_pe=2$' "$work/out" ||
  fail "the profiler did not intercept shmalloc/_my_pe through pshmalloc/p_my_pe: $(cat "$work/out")"
echo "ok - the deprecated start_pes/_my_pe/shmalloc/... have profiling names (pshmalloc, p_my_pe intercepted)"
