/*
 * coll_generic_body.h - the generic-name test, compiled as C11 (coll_generic_c.c: _Generic
 * macros) and as C++ (coll_generic_cxx.cpp: overloads). Only generic names are called for the
 * operations under test; the values are checked at run time for several types each.
 *
 *   RMA:   shmem_put/get/p/g/put_nbi/get_nbi/iput/iget, with and without a leading context;
 *          shmem_put_signal
 *   AMO:   shmem_atomic_fetch_add/add/fetch_inc/inc/fetch/set/swap/compare_swap/fetch_or/xor/and
 *   sync:  shmem_wait_until, shmem_test, shmem_wait_until_all
 *   coll:  shmem_broadcast/collect/fcollect/alltoall/alltoalls, shmem_sum/prod/max/min/and/or/
 *          xor_reduce, shmem_sum_inscan/exscan, shmem_sync(team)
 */
#ifndef COLL_GENERIC_BODY_H
#define COLL_GENERIC_BODY_H

#include <shmem.h>

#include "check.h"

#ifdef __cplusplus
#define COLL_LANG "C++"
typedef std::complex<double> coll_complexd;
typedef std::complex<float> coll_complexf;
#define COLL_CPLX(re, im) coll_complexd((re), (im))
#define COLL_CPLXF(re, im) coll_complexf((re), (im))
#define COLL_RE(z) ((z).real())
#define COLL_IM(z) ((z).imag())
#else
#include <complex.h>
#define COLL_LANG "C11"
typedef double _Complex coll_complexd;
typedef float _Complex coll_complexf;
#define COLL_CPLX(re, im) ((double)(re) + (double)(im) * (coll_complexd)I)
#define COLL_CPLXF(re, im) ((float)(re) + (float)(im) * (coll_complexf)I)
#define COLL_RE(z) creal(z)
#define COLL_IM(z) cimag(z)
#endif

static int g_me, g_npes, g_right, g_left;

/* ---- RMA ------------------------------------------------------------------------------------- */
#define COLL_VAL(T, pe, i) ((T)((pe) * 10 + (i) + 1))
#define DEF_RMA(T, N)                                                                            \
  static void rma_##N(void) {                                                                    \
    static T dst[8], dst_ctx[8], strided[16], scalar;                                           \
    T src[8], back[8];                                                                           \
    for (int i = 0; i < 8; ++i) src[i] = COLL_VAL(T, g_me, i);                                   \
    shmem_put(dst, src, 8, g_right);                                                             \
    shmem_put(SHMEM_CTX_DEFAULT, dst_ctx, src, 8, g_right);                                      \
    shmem_iput(strided, src, 2, 1, 8, g_right);                                                  \
    shmem_p(&scalar, COLL_VAL(T, g_me, 50), g_right);                                            \
    shmem_barrier_all();                                                                         \
    for (int i = 0; i < 8; ++i) {                                                                \
      CHECK_EQ_AT(dst[i], COLL_VAL(T, g_left, i), "%s %s put [%d]", COLL_LANG, #N, i);           \
      CHECK_EQ_AT(dst_ctx[i], COLL_VAL(T, g_left, i), "%s %s ctx put [%d]", COLL_LANG, #N, i);   \
      CHECK_EQ_AT(strided[2 * i], COLL_VAL(T, g_left, i), "%s %s iput [%d]", COLL_LANG, #N, i);  \
    }                                                                                            \
    CHECK_EQ_AT(scalar, COLL_VAL(T, g_left, 50), "%s %s p", COLL_LANG, #N);                      \
    CHECK_EQ_AT(shmem_g(&dst[3], g_right), COLL_VAL(T, g_me, 3), "%s %s g", COLL_LANG, #N);      \
    CHECK_EQ_AT(shmem_g(SHMEM_CTX_DEFAULT, &dst[4], g_right), COLL_VAL(T, g_me, 4), "%s %s ctx g", \
                COLL_LANG, #N);                                                                  \
    shmem_get(back, dst, 8, g_right);                                                            \
    for (int i = 0; i < 8; ++i) CHECK_EQ_AT(back[i], src[i], "%s %s get [%d]", COLL_LANG, #N, i); \
    memset(back, 0, sizeof back);                                                                \
    shmem_get_nbi(SHMEM_CTX_DEFAULT, back, dst_ctx, 8, g_right);                                 \
    shmem_quiet();                                                                               \
    for (int i = 0; i < 8; ++i) CHECK_EQ_AT(back[i], src[i], "%s %s ctx get_nbi [%d]", COLL_LANG, #N, i); \
    memset(back, 0, sizeof back);                                                                \
    shmem_iget(back, strided, 1, 2, 8, g_right);                                                 \
    for (int i = 0; i < 8; ++i) CHECK_EQ_AT(back[i], src[i], "%s %s iget [%d]", COLL_LANG, #N, i); \
    shmem_barrier_all();                                                                         \
    shmem_put_nbi(dst, back, 8, g_left); /* back == src: dst gets my values from the left */     \
    shmem_barrier_all();                                                                         \
    for (int i = 0; i < 8; ++i)                                                                  \
      CHECK_EQ_AT(dst[i], COLL_VAL(T, g_right, i), "%s %s put_nbi [%d]", COLL_LANG, #N, i);      \
    shmem_barrier_all();                                                                         \
  }
DEF_RMA(char, char)
DEF_RMA(signed char, schar)
DEF_RMA(short, short)
DEF_RMA(int, int)
DEF_RMA(long, long)
DEF_RMA(long long, longlong)
DEF_RMA(unsigned char, uchar)
DEF_RMA(unsigned int, uint)
DEF_RMA(unsigned long long, ulonglong)
DEF_RMA(float, float)
DEF_RMA(double, double)
DEF_RMA(long double, longdouble)

static void signal_test(void) {
  static long payload[4];
  static uint64_t sig;
  long src[4] = {g_me * 4L, g_me * 4L + 1, g_me * 4L + 2, g_me * 4L + 3};
  shmem_put_signal(payload, src, 4, &sig, (uint64_t)g_me + 1, SHMEM_SIGNAL_SET, g_right);
  shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, (uint64_t)g_left + 1);
  for (int i = 0; i < 4; ++i) CHECK_EQ_AT(payload[i], g_left * 4L + i, "%s put_signal [%d]", COLL_LANG, i);
  shmem_barrier_all();
}

/* ---- AMO ------------------------------------------------------------------------------------- */
#define DEF_AMO(T, N)                                                                              \
  static void amo_##N(void) {                                                                      \
    static T counter, bits, cell, seen_fetch;                                                      \
    counter = 0;                                                                                   \
    bits = 0;                                                                                      \
    cell = 0;                                                                                      \
    shmem_barrier_all();                                                                           \
    T old = shmem_atomic_fetch_add(&counter, (T)(g_me + 1), 0);                                    \
    CHECK(old < (T)(g_npes * (g_npes + 1) / 2 + 3 * g_npes)); /* others' adds may come first */    \
    shmem_atomic_add(SHMEM_CTX_DEFAULT, &counter, (T)1, 0);                                        \
    shmem_atomic_inc(&counter, 0);                                                                 \
    (void)shmem_atomic_fetch_inc(SHMEM_CTX_DEFAULT, &counter, 0);                                  \
    shmem_atomic_or(&bits, (T)((T)1 << (g_me % 16)), 0);                                           \
    shmem_barrier_all();                                                                           \
    if (g_me == 0) {                                                                               \
      CHECK_EQ_AT(counter, (T)(g_npes * (g_npes + 1) / 2 + 3 * g_npes), "%s %s fetch_add/add/inc", \
                  COLL_LANG, #N);                                                                  \
      T expect = 0;                                                                                \
      for (int p = 0; p < g_npes; ++p) expect = (T)(expect | ((T)1 << (p % 16)));                  \
      CHECK_EQ_AT(bits, expect, "%s %s atomic_or", COLL_LANG, #N);                                 \
    }                                                                                              \
    CHECK_EQ_AT(shmem_atomic_fetch(&counter, 0), (T)(g_npes * (g_npes + 1) / 2 + 3 * g_npes),      \
                "%s %s atomic_fetch", COLL_LANG, #N);                                              \
    shmem_barrier_all();                                                                           \
    /* swap/compare_swap on the right neighbour's cell: each cell is touched by one PE */          \
    shmem_atomic_set(&cell, (T)(g_me + 5), g_right);                                               \
    shmem_barrier_all();                                                                           \
    CHECK_EQ_AT(cell, (T)(g_left + 5), "%s %s atomic_set", COLL_LANG, #N);                         \
    shmem_barrier_all();                                                                           \
    CHECK_EQ_AT(shmem_atomic_swap(&cell, (T)(g_me + 9), g_right), (T)(g_me + 5), "%s %s swap",     \
                COLL_LANG, #N);                                                                    \
    CHECK_EQ_AT(shmem_atomic_compare_swap(&cell, (T)(g_me + 9), (T)(g_me + 11), g_right),          \
                (T)(g_me + 9), "%s %s compare_swap", COLL_LANG, #N);                               \
    CHECK_EQ_AT(shmem_atomic_compare_swap(&cell, (T)0, (T)99, g_right), (T)(g_me + 11),            \
                "%s %s compare_swap (no match)", COLL_LANG, #N);                                   \
    CHECK_EQ_AT(shmem_atomic_fetch_xor(&cell, (T)3, g_right), (T)(g_me + 11), "%s %s fetch_xor",    \
                COLL_LANG, #N);                                                                    \
    CHECK_EQ_AT(shmem_atomic_fetch_and(&cell, (T)0xff, g_right), (T)((g_me + 11) ^ 3),             \
                "%s %s fetch_and", COLL_LANG, #N);                                                 \
    shmem_barrier_all();                                                                           \
    CHECK_EQ_AT(cell, (T)(((g_left + 11) ^ 3) & 0xff), "%s %s after and", COLL_LANG, #N);         \
    (void)seen_fetch;                                                                              \
    shmem_barrier_all();                                                                           \
  }
/* The bitwise AMO types that are also standard AMO types. */
DEF_AMO(unsigned int, uint)
DEF_AMO(unsigned long, ulong)
DEF_AMO(unsigned long long, ulonglong)

#define DEF_AMO_STD(T, N)                                                                         \
  static void amo_std_##N(void) {                                                                 \
    static T counter;                                                                             \
    counter = 0;                                                                                  \
    shmem_barrier_all();                                                                          \
    T old = shmem_atomic_fetch_add(&counter, (T)(g_me + 1), g_npes - 1);                          \
    CHECK(old >= 0 && old < (T)(g_npes * (g_npes + 1) / 2 + 2 * g_npes));                         \
    shmem_atomic_add(&counter, (T)2, g_npes - 1);                                                 \
    shmem_barrier_all();                                                                          \
    if (g_me == g_npes - 1)                                                                       \
      CHECK_EQ_AT(counter, (T)(g_npes * (g_npes + 1) / 2 + 2 * g_npes), "%s %s", COLL_LANG, #N);   \
    shmem_barrier_all();                                                                          \
  }
DEF_AMO_STD(int, int)
DEF_AMO_STD(long, long)
DEF_AMO_STD(long long, longlong)

static void amo_float(void) {
  static float f;
  static double d;
  shmem_atomic_set(&f, (float)g_me + 0.5f, g_right);
  shmem_atomic_set(&d, (double)g_me + 0.25, g_right);
  shmem_barrier_all();
  CHECK_EQ(f, (float)g_left + 0.5f);
  CHECK_EQ(d, (double)g_left + 0.25);
  CHECK_EQ(shmem_atomic_fetch(&d, g_right), (double)g_me + 0.25);
  shmem_barrier_all();
  CHECK_EQ(shmem_atomic_swap(&f, 1.5f, g_right), (float)g_me + 0.5f);
  shmem_barrier_all();
  CHECK_EQ(f, 1.5f);
  shmem_barrier_all();
}

/* ---- point-to-point synchronisation ------------------------------------------------------------ */
#define DEF_WAIT(T, N)                                                                             \
  static void wait_##N(void) {                                                                     \
    static T flag, flags[4];                                                                       \
    flag = 0;                                                                                      \
    for (int i = 0; i < 4; ++i) flags[i] = 0;                                                      \
    shmem_barrier_all();                                                                           \
    shmem_atomic_set(&flag, (T)(g_me + 1), g_right);                                              \
    shmem_wait_until(&flag, SHMEM_CMP_NE, (T)0);                                                   \
    CHECK_EQ_AT(flag, (T)(g_left + 1), "%s %s wait_until", COLL_LANG, #N);                         \
    CHECK(shmem_test(&flag, SHMEM_CMP_EQ, (T)(g_left + 1)));                                       \
    CHECK(!shmem_test(&flag, SHMEM_CMP_GT, (T)(g_left + 1)));                                      \
    for (int i = 0; i < 4; ++i) shmem_atomic_set(&flags[i], (T)(i + 1), g_right);                  \
    shmem_wait_until_all(flags, 4, NULL, SHMEM_CMP_GT, (T)0);                                      \
    for (int i = 0; i < 4; ++i) CHECK_EQ_AT(flags[i], (T)(i + 1), "%s %s wait_until_all", COLL_LANG, #N); \
    shmem_barrier_all();                                                                           \
  }
DEF_WAIT(int, int)
DEF_WAIT(long, long)
DEF_WAIT(unsigned long long, ulonglong)

static void wait_short(void) {
  static short s;
  s = 0;
  shmem_barrier_all();
  shmem_short_p(&s, (short)(g_me + 1), g_right);
  shmem_wait_until(&s, SHMEM_CMP_EQ, (short)(g_left + 1));
  CHECK_EQ(s, g_left + 1);
  shmem_barrier_all();
}

/* ---- collectives ------------------------------------------------------------------------------- */
#define DEF_COLL(T, N)                                                                                   \
  static void coll_##N(void) {                                                                           \
    static T src[64], dst[64 * 16];                                                                      \
    const int n = g_npes;                                                                                \
    for (int i = 0; i < 5; ++i) src[i] = (T)(g_me * 10 + i + 1);                                         \
    CHECK_EQ(shmem_broadcast(SHMEM_TEAM_WORLD, dst, src, 5, n - 1), 0);                                  \
    for (int i = 0; i < 5; ++i) CHECK_EQ_AT(dst[i], (T)((n - 1) * 10 + i + 1), "%s %s broadcast", COLL_LANG, #N); \
    CHECK_EQ(shmem_fcollect(SHMEM_TEAM_WORLD, dst, src, 3), 0);                                          \
    for (int p = 0; p < n; ++p)                                                                          \
      for (int i = 0; i < 3; ++i) CHECK_EQ_AT(dst[p * 3 + i], (T)(p * 10 + i + 1), "%s %s fcollect", COLL_LANG, #N); \
    CHECK_EQ(shmem_collect(SHMEM_TEAM_WORLD, dst, src, (size_t)(g_me % 2 + 1)), 0);                      \
    {                                                                                                    \
      int off = 0;                                                                                       \
      for (int p = 0; p < n; ++p)                                                                        \
        for (int i = 0; i < p % 2 + 1; ++i, ++off)                                                       \
          CHECK_EQ_AT(dst[off], (T)(p * 10 + i + 1), "%s %s collect", COLL_LANG, #N);                    \
    }                                                                                                    \
    for (int j = 0; j < n; ++j) src[j] = (T)(g_me * 10 + j + 1);                                         \
    CHECK_EQ(shmem_alltoall(SHMEM_TEAM_WORLD, dst, src, 1), 0);                                          \
    for (int p = 0; p < n; ++p) CHECK_EQ_AT(dst[p], (T)(p * 10 + g_me + 1), "%s %s alltoall", COLL_LANG, #N); \
    for (int j = 0; j < n; ++j) src[2 * j] = (T)(g_me * 10 + j + 1);                                     \
    CHECK_EQ(shmem_alltoalls(SHMEM_TEAM_WORLD, dst, src, 3, 2, 1), 0);                                   \
    for (int p = 0; p < n; ++p) CHECK_EQ_AT(dst[3 * p], (T)(p * 10 + g_me + 1), "%s %s alltoalls", COLL_LANG, #N); \
    for (int i = 0; i < 4; ++i) src[i] = (T)(g_me + i);                                                  \
    CHECK_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 4), 0);                                        \
    for (int i = 0; i < 4; ++i) CHECK_EQ_AT(dst[i], (T)(n * i + n * (n - 1) / 2), "%s %s sum_reduce", COLL_LANG, #N); \
    CHECK_EQ(shmem_max_reduce(SHMEM_TEAM_WORLD, dst, src, 4), 0);                                        \
    for (int i = 0; i < 4; ++i) CHECK_EQ_AT(dst[i], (T)(n - 1 + i), "%s %s max_reduce", COLL_LANG, #N); \
    CHECK_EQ(shmem_min_reduce(SHMEM_TEAM_WORLD, src, src, 4), 0); /* in place */                        \
    for (int i = 0; i < 4; ++i) CHECK_EQ_AT(src[i], (T)i, "%s %s min_reduce", COLL_LANG, #N);            \
    for (int i = 0; i < 4; ++i) src[i] = (T)(g_me == i % n ? 2 : 1);                                     \
    CHECK_EQ(shmem_prod_reduce(SHMEM_TEAM_WORLD, dst, src, 4), 0);                                       \
    for (int i = 0; i < 4; ++i) CHECK_EQ_AT(dst[i], (T)2, "%s %s prod_reduce", COLL_LANG, #N);           \
    for (int i = 0; i < 4; ++i) src[i] = (T)(g_me + 1);                                                  \
    CHECK_EQ(shmem_sum_inscan(SHMEM_TEAM_WORLD, dst, src, 4), 0);                                        \
    for (int i = 0; i < 4; ++i) CHECK_EQ_AT(dst[i], (T)((g_me + 1) * (g_me + 2) / 2), "%s %s sum_inscan", COLL_LANG, #N); \
    CHECK_EQ(shmem_sum_exscan(SHMEM_TEAM_WORLD, dst, src, 4), 0);                                        \
    for (int i = 0; i < 4; ++i) CHECK_EQ_AT(dst[i], (T)(g_me * (g_me + 1) / 2), "%s %s sum_exscan", COLL_LANG, #N); \
    CHECK_EQ(shmem_sync(SHMEM_TEAM_WORLD), 0);                                                           \
  }
DEF_COLL(int, int)
DEF_COLL(long, long)
DEF_COLL(double, double)
DEF_COLL(float, float)
DEF_COLL(unsigned char, uchar)
DEF_COLL(long double, longdouble)

#define DEF_BITCOLL(T, N)                                                                              \
  static void bitcoll_##N(void) {                                                                      \
    static T src[3], dst[3];                                                                           \
    src[0] = (T)((T)1 << (g_me % 8));                                                                  \
    src[1] = (T) ~((T)1 << (g_me % 8));                                                                \
    src[2] = (T)(g_me + 1);                                                                            \
    T e_or = 0, e_and = (T)~(T)0, e_xor = 0;                                                           \
    for (int p = 0; p < g_npes; ++p) {                                                                 \
      e_or = (T)(e_or | ((T)1 << (p % 8)));                                                            \
      e_and = (T)(e_and & (T) ~((T)1 << (p % 8)));                                                     \
      e_xor = (T)(e_xor ^ (T)(p + 1));                                                                 \
    }                                                                                                  \
    CHECK_EQ(shmem_or_reduce(SHMEM_TEAM_WORLD, dst, src, 1), 0);                                       \
    CHECK_EQ_AT(dst[0], e_or, "%s %s or_reduce", COLL_LANG, #N);                                       \
    CHECK_EQ(shmem_and_reduce(SHMEM_TEAM_WORLD, dst + 1, src + 1, 1), 0);                              \
    CHECK_EQ_AT(dst[1], e_and, "%s %s and_reduce", COLL_LANG, #N);                                     \
    CHECK_EQ(shmem_xor_reduce(SHMEM_TEAM_WORLD, dst + 2, src + 2, 1), 0);                              \
    CHECK_EQ_AT(dst[2], e_xor, "%s %s xor_reduce", COLL_LANG, #N);                                     \
  }
DEF_BITCOLL(unsigned int, uint)
DEF_BITCOLL(unsigned long long, ulonglong)
DEF_BITCOLL(uint8_t, uint8)
DEF_BITCOLL(int32_t, int32)
DEF_BITCOLL(int64_t, int64)

static void complex_coll(void) {
  static coll_complexd zs[2], zd[2];
  static coll_complexf fs[2], fd[2];
  zs[0] = COLL_CPLX(g_me, 1);
  zs[1] = (g_me % 2) ? COLL_CPLX(0, 1) : COLL_CPLX(1, 0);
  fs[0] = COLL_CPLXF(0.5, g_me);
  fs[1] = COLL_CPLXF(2, 0);
  CHECK_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, zd, zs, 1), 0);
  CHECK_EQ(COLL_RE(zd[0]), g_npes * (g_npes - 1) / 2);
  CHECK_EQ(COLL_IM(zd[0]), g_npes);
  CHECK_EQ(shmem_prod_reduce(SHMEM_TEAM_WORLD, zd + 1, zs + 1, 1), 0);
  /* i^(number of odd PEs) */
  const int odd = g_npes / 2;
  const double re[4] = {1, 0, -1, 0}, im[4] = {0, 1, 0, -1};
  CHECK_EQ(COLL_RE(zd[1]), re[odd % 4]);
  CHECK_EQ(COLL_IM(zd[1]), im[odd % 4]);
  CHECK_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, fd, fs, 1), 0);
  CHECK_EQ(COLL_RE(fd[0]), 0.5 * g_npes);
  CHECK_EQ(COLL_IM(fd[0]), g_npes * (g_npes - 1) / 2);
  CHECK_EQ(shmem_prod_reduce(SHMEM_TEAM_WORLD, fd + 1, fs + 1, 1), 0);
  CHECK_EQ(COLL_RE(fd[1]), (double)(1L << g_npes));
  CHECK_EQ(COLL_IM(fd[1]), 0);
}

/* A team other than WORLD through the generic names. */
static void team_coll(void) {
  static long src[4], dst[64];
  shmem_team_t rev = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, g_npes - 1, -1, g_npes, NULL, 0, &rev), 0);
  const int tme = shmem_team_my_pe(rev);
  CHECK_EQ(tme, g_npes - 1 - g_me);
  src[0] = g_me;
  CHECK_EQ(shmem_fcollect(rev, dst, src, 1), 0);
  for (int p = 0; p < g_npes; ++p) CHECK_EQ_AT(dst[p], g_npes - 1 - p, "%s fcollect on reversed team [%d]", COLL_LANG, p);
  CHECK_EQ(shmem_sync(rev), 0); /* everyone has checked dst: it is ready for the broadcast */
  CHECK_EQ(shmem_broadcast(rev, dst, src, 1, 0), 0); /* team PE 0 = world PE npes-1 */
  CHECK_EQ(dst[0], g_npes - 1);
  src[0] = 1;
  CHECK_EQ(shmem_sum_exscan(rev, dst, src, 1), 0);
  CHECK_EQ(dst[0], tme);
  CHECK_EQ(shmem_sync(rev), 0);
  shmem_team_destroy(rev);
}

static int run_generic_test(const char* name) {
  shmem_init();
  g_me = shmem_my_pe();
  g_npes = shmem_n_pes();
  g_right = (g_me + 1) % g_npes;
  g_left = (g_me - 1 + g_npes) % g_npes;
  rma_char();
  rma_schar();
  rma_short();
  rma_int();
  rma_long();
  rma_longlong();
  rma_uchar();
  rma_uint();
  rma_ulonglong();
  rma_float();
  rma_double();
  rma_longdouble();
  signal_test();
  amo_uint();
  amo_ulong();
  amo_ulonglong();
  amo_std_int();
  amo_std_long();
  amo_std_longlong();
  amo_float();
  wait_int();
  wait_long();
  wait_ulonglong();
  wait_short();
  coll_int();
  coll_long();
  coll_double();
  coll_float();
  coll_uchar();
  coll_longdouble();
  bitcoll_uint();
  bitcoll_ulonglong();
  bitcoll_uint8();
  bitcoll_int32();
  bitcoll_int64();
  complex_coll();
  team_coll();
  return check_finish(name);
}

#endif /* COLL_GENERIC_BODY_H */
