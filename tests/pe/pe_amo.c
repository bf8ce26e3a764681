/*
 * pe_amo.c - every atomic of the spec's tables for every type (standard, extended, bitwise),
 * plain, ctx (SHMEM_CTX_DEFAULT) and _nbi fetching forms, and the deprecated 1.4 names, on a
 * shmem_malloc'd target and on a static target, at the right neighbour and at self; and
 * thousands of fetching nbi atomics in flight at once, completed by one quiet.
 *
 * Exactly one PE (the left neighbour, or the owner itself) operates on each PE's variable, so
 * the caller keeps a local model of the remote value: every fetched value must equal the model,
 * and after a barrier the owner checks that its variable holds the model's final value.
 */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

#define AMOCHK(got, exp, op) \
  CHECK_EQ_AT(got, exp, "%s %s on %s, shift %d", tn, op, mem, shift)

/* A value that needs all the bits of 64-bit types (so truncation shows). */
#define BIG(T) ((T)(sizeof(T) >= 8 && (T)0.5 == 0 ? (1ull << 40) : 0))
#define VAL(T, k) ((T)(BIG(T) + (k) * 3 + 0.5))

static void* heap_var; /* 16 bytes, big enough for every AMO type */

/* ---- standard AMO types: compare_swap, fetch_inc, inc, fetch_add, add ----------------------- */
#define DEFINE_STD(T, N)                                                                     \
  static T std_static_##N;                                                                   \
  static void amo_std_##N(T* v, int shift, const char* mem) {                                \
    const char* tn = #N;                                                                     \
    const int me = shmem_my_pe(), n = shmem_n_pes(), tgt = (me + shift) % n;                 \
    const T base = VAL(T, 1000);                                                             \
    T m = base, f;                                                                           \
    *v = base;                                                                               \
    shmem_barrier_all();                                                                     \
    AMOCHK(shmem_##N##_atomic_fetch_inc(v, tgt), m, "fetch_inc"); m = (T)(m + 1);            \
    shmem_##N##_atomic_inc(v, tgt); m = (T)(m + 1);                                          \
    AMOCHK(shmem_##N##_atomic_fetch_add(v, (T)5, tgt), m, "fetch_add"); m = (T)(m + 5);      \
    shmem_##N##_atomic_add(v, (T)3, tgt); m = (T)(m + 3);                                    \
    AMOCHK(shmem_##N##_atomic_compare_swap(v, (T)(m - 1), (T)99, tgt), m, "compare_swap (no)"); \
    AMOCHK(shmem_##N##_atomic_compare_swap(v, m, (T)(base + 100), tgt), m, "compare_swap");  \
    m = (T)(base + 100);                                                                     \
    AMOCHK(shmem_##N##_atomic_fetch(v, tgt), m, "fetch");                                    \
    AMOCHK(shmem_ctx_##N##_atomic_fetch_inc(SHMEM_CTX_DEFAULT, v, tgt), m, "ctx_fetch_inc"); \
    m = (T)(m + 1);                                                                          \
    shmem_ctx_##N##_atomic_inc(SHMEM_CTX_DEFAULT, v, tgt); m = (T)(m + 1);                   \
    AMOCHK(shmem_ctx_##N##_atomic_fetch_add(SHMEM_CTX_DEFAULT, v, (T)7, tgt), m,             \
           "ctx_fetch_add");                                                                 \
    m = (T)(m + 7);                                                                          \
    shmem_ctx_##N##_atomic_add(SHMEM_CTX_DEFAULT, v, (T)2, tgt); m = (T)(m + 2);             \
    AMOCHK(shmem_ctx_##N##_atomic_compare_swap(SHMEM_CTX_DEFAULT, v, m, (T)(base + 200), tgt), \
           m, "ctx_compare_swap");                                                           \
    m = (T)(base + 200);                                                                     \
    f = 0; shmem_##N##_atomic_fetch_inc_nbi(&f, v, tgt); shmem_quiet();                      \
    AMOCHK(f, m, "fetch_inc_nbi"); m = (T)(m + 1);                                           \
    f = 0; shmem_##N##_atomic_fetch_add_nbi(&f, v, (T)11, tgt); shmem_quiet();               \
    AMOCHK(f, m, "fetch_add_nbi"); m = (T)(m + 11);                                          \
    f = 0; shmem_##N##_atomic_compare_swap_nbi(&f, v, (T)(m + 1), (T)1, tgt); shmem_quiet(); \
    AMOCHK(f, m, "compare_swap_nbi (no)");                                                   \
    f = 0; shmem_##N##_atomic_compare_swap_nbi(&f, v, m, (T)(base + 300), tgt); shmem_quiet(); \
    AMOCHK(f, m, "compare_swap_nbi"); m = (T)(base + 300);                                   \
    f = 0; shmem_ctx_##N##_atomic_fetch_inc_nbi(SHMEM_CTX_DEFAULT, &f, v, tgt);              \
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);                                                      \
    AMOCHK(f, m, "ctx_fetch_inc_nbi"); m = (T)(m + 1);                                       \
    f = 0; shmem_ctx_##N##_atomic_fetch_add_nbi(SHMEM_CTX_DEFAULT, &f, v, (T)13, tgt);       \
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);                                                      \
    AMOCHK(f, m, "ctx_fetch_add_nbi"); m = (T)(m + 13);                                      \
    f = 0; shmem_ctx_##N##_atomic_compare_swap_nbi(SHMEM_CTX_DEFAULT, &f, v, m, (T)(base + 400), \
                                                  tgt);                                      \
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);                                                      \
    AMOCHK(f, m, "ctx_compare_swap_nbi"); m = (T)(base + 400);                               \
    /* A fetch_add whose result needs the high bits. */                                      \
    if (sizeof(T) >= 8) {                                                                    \
      AMOCHK(shmem_##N##_atomic_fetch_add(v, (T)(1ull << 36), tgt), m, "fetch_add (wide)");  \
      m = (T)(m + (T)(1ull << 36));                                                          \
    }                                                                                        \
    shmem_barrier_all();                                                                     \
    AMOCHK(*v, m, "final value at owner");                                                   \
    shmem_barrier_all();                                                                     \
  }
SHMEM_AMO_STD_TYPE_TABLE(DEFINE_STD)

/* ---- extended AMO types: fetch, set, swap ---------------------------------------------------- */
#define DEFINE_EXT(T, N)                                                                     \
  static T ext_static_##N;                                                                   \
  static void amo_ext_##N(T* v, int shift, const char* mem) {                                \
    const char* tn = #N;                                                                     \
    const int me = shmem_my_pe(), n = shmem_n_pes(), tgt = (me + shift) % n;                 \
    const int from = ((me - shift) % n + n) % n;                                             \
    T f;                                                                                     \
    *v = VAL(T, me);                                                                         \
    shmem_barrier_all();                                                                     \
    AMOCHK(shmem_##N##_atomic_fetch(v, tgt), VAL(T, tgt), "fetch");                          \
    shmem_##N##_atomic_set(v, VAL(T, 101), tgt);                                             \
    AMOCHK(shmem_##N##_atomic_fetch(v, tgt), VAL(T, 101), "set+fetch");                      \
    AMOCHK(shmem_##N##_atomic_swap(v, VAL(T, 102), tgt), VAL(T, 101), "swap");               \
    AMOCHK(shmem_ctx_##N##_atomic_fetch(SHMEM_CTX_DEFAULT, v, tgt), VAL(T, 102), "ctx_fetch"); \
    shmem_ctx_##N##_atomic_set(SHMEM_CTX_DEFAULT, v, VAL(T, 103), tgt);                      \
    AMOCHK(shmem_ctx_##N##_atomic_swap(SHMEM_CTX_DEFAULT, v, VAL(T, 104), tgt), VAL(T, 103), \
           "ctx_swap");                                                                      \
    f = 0; shmem_##N##_atomic_fetch_nbi(&f, v, tgt); shmem_quiet();                          \
    AMOCHK(f, VAL(T, 104), "fetch_nbi");                                                     \
    f = 0; shmem_##N##_atomic_swap_nbi(&f, v, VAL(T, 105), tgt); shmem_quiet();              \
    AMOCHK(f, VAL(T, 104), "swap_nbi");                                                      \
    f = 0; shmem_ctx_##N##_atomic_fetch_nbi(SHMEM_CTX_DEFAULT, &f, v, tgt);                  \
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);                                                      \
    AMOCHK(f, VAL(T, 105), "ctx_fetch_nbi");                                                 \
    f = 0; shmem_ctx_##N##_atomic_swap_nbi(SHMEM_CTX_DEFAULT, &f, v, VAL(T, 106 + me), tgt); \
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);                                                      \
    AMOCHK(f, VAL(T, 105), "ctx_swap_nbi");                                                  \
    shmem_barrier_all();                                                                     \
    AMOCHK(*v, VAL(T, 106 + from), "final value at owner");                                  \
    shmem_barrier_all();                                                                     \
  }
SHMEM_AMO_EXT_TYPE_TABLE(DEFINE_EXT)

/* ---- bitwise AMO types: fetch_and/or/xor, and/or/xor ------------------------------------------ */
#define DEFINE_BIT(T, N)                                                                     \
  static T bit_static_##N;                                                                   \
  static void amo_bit_##N(T* v, int shift, const char* mem) {                                \
    const char* tn = #N;                                                                     \
    const int me = shmem_my_pe(), n = shmem_n_pes(), tgt = (me + shift) % n;                 \
    const T a = (T)0xA5A5A5A5A5A5A5A5ull, b = (T)0x0FF00FF00FF00FF0ull,                      \
            c = (T)0x3C3C3C3C3C3C3C3Cull, d = (T)0x8000000180000001ull;                      \
    T m = (T)0xF0F0F0F0F0F0F0F0ull, f;                                                       \
    *v = m;                                                                                  \
    shmem_barrier_all();                                                                     \
    AMOCHK(shmem_##N##_atomic_fetch_and(v, a, tgt), m, "fetch_and"); m &= a;                 \
    AMOCHK(shmem_##N##_atomic_fetch_or(v, b, tgt), m, "fetch_or"); m |= b;                   \
    AMOCHK(shmem_##N##_atomic_fetch_xor(v, c, tgt), m, "fetch_xor"); m ^= c;                 \
    shmem_##N##_atomic_xor(v, d, tgt); m ^= d;                                               \
    shmem_##N##_atomic_or(v, a, tgt); m |= a;                                                \
    shmem_##N##_atomic_and(v, c, tgt); m &= c;                                               \
    AMOCHK(shmem_##N##_atomic_fetch(v, tgt), m, "and/or/xor then fetch");                    \
    AMOCHK(shmem_ctx_##N##_atomic_fetch_xor(SHMEM_CTX_DEFAULT, v, a, tgt), m, "ctx_fetch_xor"); \
    m ^= a;                                                                                  \
    AMOCHK(shmem_ctx_##N##_atomic_fetch_or(SHMEM_CTX_DEFAULT, v, d, tgt), m, "ctx_fetch_or"); \
    m |= d;                                                                                  \
    AMOCHK(shmem_ctx_##N##_atomic_fetch_and(SHMEM_CTX_DEFAULT, v, b, tgt), m, "ctx_fetch_and"); \
    m &= b;                                                                                  \
    shmem_ctx_##N##_atomic_or(SHMEM_CTX_DEFAULT, v, c, tgt); m |= c;                         \
    shmem_ctx_##N##_atomic_xor(SHMEM_CTX_DEFAULT, v, b, tgt); m ^= b;                        \
    shmem_ctx_##N##_atomic_and(SHMEM_CTX_DEFAULT, v, d | a, tgt); m &= (T)(d | a);           \
    f = 0; shmem_##N##_atomic_fetch_or_nbi(&f, v, b, tgt); shmem_quiet();                    \
    AMOCHK(f, m, "fetch_or_nbi"); m |= b;                                                    \
    f = 0; shmem_##N##_atomic_fetch_xor_nbi(&f, v, d, tgt); shmem_quiet();                   \
    AMOCHK(f, m, "fetch_xor_nbi"); m ^= d;                                                   \
    f = 0; shmem_##N##_atomic_fetch_and_nbi(&f, v, a, tgt); shmem_quiet();                   \
    AMOCHK(f, m, "fetch_and_nbi"); m &= a;                                                   \
    f = 0; shmem_ctx_##N##_atomic_fetch_or_nbi(SHMEM_CTX_DEFAULT, &f, v, c, tgt);            \
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);                                                      \
    AMOCHK(f, m, "ctx_fetch_or_nbi"); m |= c;                                                \
    f = 0; shmem_ctx_##N##_atomic_fetch_xor_nbi(SHMEM_CTX_DEFAULT, &f, v, b, tgt);           \
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);                                                      \
    AMOCHK(f, m, "ctx_fetch_xor_nbi"); m ^= b;                                               \
    f = 0; shmem_ctx_##N##_atomic_fetch_and_nbi(SHMEM_CTX_DEFAULT, &f, v, d | b, tgt);       \
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);                                                      \
    AMOCHK(f, m, "ctx_fetch_and_nbi"); m &= (T)(d | b);                                      \
    shmem_barrier_all();                                                                     \
    AMOCHK(*v, m, "final value at owner");                                                   \
    shmem_barrier_all();                                                                     \
  }
SHMEM_AMO_BIT_TYPE_TABLE(DEFINE_BIT)

/* ---- deprecated (1.4) names ------------------------------------------------------------------- */
#define DEFINE_DEP_STD(T, N)                                                                 \
  static T dep_static_##N;                                                                   \
  static void amo_dep_std_##N(T* v, int shift, const char* mem) {                            \
    const char* tn = #N;                                                                     \
    const int me = shmem_my_pe(), n = shmem_n_pes(), tgt = (me + shift) % n;                 \
    T m = VAL(T, 500);                                                                       \
    *v = m;                                                                                  \
    shmem_barrier_all();                                                                     \
    AMOCHK(shmem_##N##_finc(v, tgt), m, "finc"); m = (T)(m + 1);                             \
    shmem_##N##_inc(v, tgt); m = (T)(m + 1);                                                 \
    AMOCHK(shmem_##N##_fadd(v, (T)9, tgt), m, "fadd"); m = (T)(m + 9);                       \
    shmem_##N##_add(v, (T)4, tgt); m = (T)(m + 4);                                           \
    AMOCHK(shmem_##N##_cswap(v, (T)(m + 1), (T)0, tgt), m, "cswap (no)");                    \
    AMOCHK(shmem_##N##_cswap(v, m, VAL(T, 600), tgt), m, "cswap"); m = VAL(T, 600);          \
    shmem_barrier_all();                                                                     \
    AMOCHK(*v, m, "final value at owner");                                                   \
    shmem_barrier_all();                                                                     \
  }
SHMEM_AMO_DEPRECATED_STD_TYPE_TABLE(DEFINE_DEP_STD)

#define DEFINE_DEP_EXT(T, N)                                                                 \
  static T depx_static_##N;                                                                  \
  static void amo_dep_ext_##N(T* v, int shift, const char* mem) {                            \
    const char* tn = #N;                                                                     \
    const int me = shmem_my_pe(), n = shmem_n_pes(), tgt = (me + shift) % n;                 \
    const int from = ((me - shift) % n + n) % n;                                             \
    *v = VAL(T, me + 10);                                                                    \
    shmem_barrier_all();                                                                     \
    AMOCHK(shmem_##N##_fetch(v, tgt), VAL(T, tgt + 10), "fetch");                            \
    shmem_##N##_set(v, VAL(T, 700), tgt);                                                    \
    AMOCHK(shmem_##N##_fetch(v, tgt), VAL(T, 700), "set+fetch");                             \
    AMOCHK(shmem_##N##_swap(v, VAL(T, 800 + me), tgt), VAL(T, 700), "swap");                 \
    shmem_barrier_all();                                                                     \
    AMOCHK(*v, VAL(T, 800 + from), "final value at owner");                                  \
    shmem_barrier_all();                                                                     \
  }
SHMEM_AMO_DEPRECATED_EXT_TYPE_TABLE(DEFINE_DEP_EXT)

/* Runs one family on the heap and the static variable, at the neighbour and at self. */
#define RUN(FAMILY, STATIC_PREFIX, T, N)                                   \
  for (int shift = 1; shift >= 0; --shift) {                               \
    amo_##FAMILY##_##N((T*)heap_var, shift, "heap");                       \
    amo_##FAMILY##_##N(&STATIC_PREFIX##_static_##N, shift, "static");      \
  }
#define RUN_STD(T, N) RUN(std, std, T, N)
#define RUN_EXT(T, N) RUN(ext, ext, T, N)
#define RUN_BIT(T, N) RUN(bit, bit, T, N)
#define RUN_DEP_STD(T, N) RUN(dep_std, dep, T, N)
#define RUN_DEP_EXT(T, N) RUN(dep_ext, depx, T, N)

/* Many fetching nbi atomics in flight at once (more than a transport keeps pending before it
 * waits for the oldest), completed by one quiet: each PE's stream of fetch_inc_nbi (64-bit) and
 * fetch_add_nbi (32-bit, ctx form) to its right neighbour must fetch every value of the
 * sequence exactly once (nbi AMOs are unordered among themselves), and the owner's counters
 * must end at the streams' totals. */
#define IN_FLIGHT 70000 /* past the 65536 a transport may leave unanswered per peer */
static int cmp_long(const void* a, const void* b) {
  const long x = *(const long*)a, y = *(const long*)b;
  return (x > y) - (x < y);
}
static int cmp_int(const void* a, const void* b) {
  const int x = *(const int*)a, y = *(const int*)b;
  return (x > y) - (x < y);
}
static void amo_in_flight(void) {
  static long lcount;
  static int icount;
  static long lgot[IN_FLIGHT];
  static int igot[IN_FLIGHT];
  const int me = shmem_my_pe(), n = shmem_n_pes(), tgt = (me + 1) % n;
  lcount = 0;
  icount = 0;
  for (int k = 0; k < IN_FLIGHT; ++k) lgot[k] = igot[k] = -1;
  shmem_barrier_all();
  for (int k = 0; k < IN_FLIGHT; ++k) {
    shmem_long_atomic_fetch_inc_nbi(&lgot[k], &lcount, tgt);
    shmem_ctx_int_atomic_fetch_add_nbi(SHMEM_CTX_DEFAULT, &igot[k], &icount, 2, tgt);
  }
  shmem_quiet();
  qsort(lgot, IN_FLIGHT, sizeof lgot[0], cmp_long);
  qsort(igot, IN_FLIGHT, sizeof igot[0], cmp_int);
  int lbad = 0, ibad = 0;
  for (int k = 0; k < IN_FLIGHT; ++k) {
    lbad += lgot[k] != k;
    ibad += igot[k] != 2 * k;
  }
  CHECKF(lbad == 0, "%d of %d fetch_inc_nbi in flight fetched a wrong value (sorted: first %ld, last %ld)", lbad,
         IN_FLIGHT, lgot[0], lgot[IN_FLIGHT - 1]);
  CHECKF(ibad == 0, "%d of %d ctx_int_fetch_add_nbi in flight fetched a wrong value (sorted: first %d, last %d)", ibad,
         IN_FLIGHT, igot[0], igot[IN_FLIGHT - 1]);
  shmem_barrier_all();
  CHECK_EQ(lcount, (long)IN_FLIGHT);
  CHECK_EQ(icount, 2 * IN_FLIGHT);
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  heap_var = shmem_malloc(16);
  CHECK(heap_var != NULL);
  if (!heap_var) shmem_global_exit(1);

  SHMEM_AMO_STD_TYPE_TABLE(RUN_STD)
  SHMEM_AMO_EXT_TYPE_TABLE(RUN_EXT)
  SHMEM_AMO_BIT_TYPE_TABLE(RUN_BIT)
  SHMEM_AMO_DEPRECATED_STD_TYPE_TABLE(RUN_DEP_STD)
  SHMEM_AMO_DEPRECATED_EXT_TYPE_TABLE(RUN_DEP_EXT)
  amo_in_flight();

  shmem_free(heap_var);
  if (shmem_my_pe() == 0 && check_failures_ == 0) printf("pe_amo: all AMO forms OK\n");
  return check_finish(NULL);
}
