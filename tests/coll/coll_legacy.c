/*
 * coll_legacy.c - the deprecated active-set collectives (PE_start, logPE_stride, PE_size, pSync):
 * shmem_barrier, shmem_sync, shmem_broadcast32/64 (dest on the root is NOT written, per the
 * spec's active-set semantics), shmem_collect32/64 (different sizes per PE, zero included),
 * shmem_fcollect32/64, shmem_alltoall32/64, shmem_alltoalls32/64 (strides > 1), and
 * shmem_TYPENAME_OP_to_all for every type and operation of the spec's active-set table (from the
 * header's X-macros), nreduce 0, 1, 37 and large, with pWrk of exactly max(nreduce/2 + 1,
 * SHMEM_REDUCE_MIN_WRKDATA_SIZE) elements (guard bytes after it must stay untouched); and a
 * stream of 100 one-element broadcasts with rotating roots and no synchronisation in between.
 *
 * Active sets: everything, a subset starting at PE 1 with logPE_stride 1 (PEs 1, 3, 5, ...), the
 * evens, stride 4, and a single PE. Non-members skip to the next barrier_all.
 *
 * pSync: the main tests alternate between two pSync arrays (the spec's recommended pattern), so
 * each PE can check right after a call that its pSync is back to SHMEM_SYNC_VALUE. A separate
 * section calls each routine back to back with ONE pSync and no synchronisation in between, then
 * checks the values and, after a barrier_all, that pSync is back to SHMEM_SYNC_VALUE everywhere.
 */
#include <shmem.h>

#include <complex.h>
#include <stdint.h>

#include "check.h"

#define GUARD 256
#define FILL 0xA5
#define MAX_NREDUCE 1000
#define BUF_BYTES (1u << 20)

typedef struct {
  int start, log, size; /* the triplet */
  int idx;              /* my index in the set, -1 if not a member */
  const char* name;
} Set;

static int me, npes;
static char* g_src;
static char* g_dst;
static char* g_wrk;
static unsigned char fill_ref[GUARD];

static long psync[2][SHMEM_SYNC_SIZE];
static long psync_bar[2][SHMEM_BARRIER_SYNC_SIZE];
static long psync_b2b[SHMEM_REDUCE_SYNC_SIZE]; /* >= every *_SYNC_SIZE */
static long ring[2];
static int which; /* alternates between psync[0] and psync[1] */

static int set_world(const Set* s, int k) { return s->start + (k << s->log); }

static Set make_set(int start, int log, int size, const char* name) {
  Set s = {start, log, size, -1, name};
  for (int k = 0; k < size; ++k)
    if (set_world(&s, k) == me) s.idx = k;
  return s;
}

static void check_psync(const long* p, int n, const char* what) {
  for (int i = 0; i < n; ++i) CHECKF(p[i] == SHMEM_SYNC_VALUE, "%s: pSync[%d] = %ld after return", what, i, p[i]);
}

static long* next_psync(void) {
  which ^= 1;
  return psync[which];
}

/* ---- barrier and sync --------------------------------------------------------------------- */
static void test_barrier(const Set* s) {
  /* Put to the next member, shmem_barrier (which includes quiet), read from the previous. */
  const int next = set_world(s, (s->idx + 1) % s->size);
  const int prev = (s->idx - 1 + s->size) % s->size;
  for (int r = 0; r < 8; ++r) {
    shmem_long_p(&ring[r % 2], 1000 * r + s->idx + 1, next);
    long* p = psync_bar[r % 2];
    shmem_barrier(s->start, s->log, s->size, p);
    CHECKF(ring[r % 2] == 1000 * r + prev + 1, "%s barrier round %d: got %ld", s->name, r, ring[r % 2]);
    check_psync(p, SHMEM_BARRIER_SYNC_SIZE, "barrier");
  }
  /* shmem_sync: no quiet implied, so quiet first. */
  for (int r = 8; r < 12; ++r) {
    shmem_long_p(&ring[r % 2], 1000 * r + s->idx + 1, next);
    shmem_quiet();
    long* p = psync_bar[r % 2];
    shmem_sync(s->start, s->log, s->size, p);
    CHECKF(ring[r % 2] == 1000 * r + prev + 1, "%s sync round %d: got %ld", s->name, r, ring[r % 2]);
    check_psync(p, SHMEM_BARRIER_SYNC_SIZE, "sync");
  }
}

/* ---- data movement ------------------------------------------------------------------------- */
/* 32- and 64-bit element values: a the sender, b the receiver/block. */
static uint64_t v64(int a, int b, size_t i) { return 0x0101010100000000ull * (uint64_t)(a + 1) + (uint64_t)(b * 100000 + i); }
static uint32_t v32(int a, int b, size_t i) { return (uint32_t)(a + 1) * 0x01000000u + (uint32_t)(b * 10000 + i); }

#define DEF_MOVE_TESTS(BITS, UT, VAL)                                                                          \
  static void test_move##BITS(const Set* s, size_t ne) {                                                       \
    UT* src = (UT*)g_src;                                                                                      \
    UT* dst = (UT*)g_dst;                                                                                      \
    const int n = s->size, me_i = s->idx;                                                                      \
    /* broadcast: dest on the root untouched */                                                              \
    for (int r = 0; r < 2; ++r) {                                                                              \
      const int root = r ? n - 1 : 0;                                                                          \
      for (size_t i = 0; i < ne; ++i) src[i] = VAL(me_i, 0, i);                                                \
      memset(dst, FILL, ne * sizeof(UT) + GUARD);                                                              \
      long* p = next_psync();                                                                                  \
      shmem_barrier_all(); /* every dest prefilled before anyone writes */                                     \
      shmem_broadcast##BITS(dst, src, ne, root, s->start, s->log, s->size, p);                                 \
      check_psync(p, SHMEM_BCAST_SYNC_SIZE, "broadcast" #BITS);                                               \
      size_t bad = 0;                                                                                          \
      if (me_i == root) {                                                                                      \
        size_t written = 0;                                                                                    \
        for (size_t b = 0; b < ne * sizeof(UT); ++b) written += ((unsigned char*)dst)[b] != FILL;              \
        CHECKF(written == 0, "%s broadcast%d n=%zu: %zu bytes of dest on the root were written", s->name,      \
               BITS, ne, written);                                                                             \
      } else {                                                                                                 \
        for (size_t i = 0; i < ne; ++i)                                                                        \
          if (dst[i] != VAL(root, 0, i)) ++bad;                                                                \
      }                                                                                                        \
      CHECKF(bad == 0, "%s broadcast%d n=%zu root %d: %zu wrong", s->name, BITS, ne, root, bad);              \
      CHECK_BYTES(dst + ne, fill_ref, GUARD, "%s broadcast%d n=%zu guard", s->name, BITS, ne);                 \
    }                                                                                                          \
    /* collect: index k contributes ((k+1)%3)*ne/2 elements */                                               \
    {                                                                                                          \
      const size_t mine = ((size_t)(me_i + 1) % 3) * ne / 2;                                                   \
      size_t total = 0;                                                                                        \
      for (int k = 0; k < n; ++k) total += ((size_t)(k + 1) % 3) * ne / 2;                                     \
      for (size_t i = 0; i < mine; ++i) src[i] = VAL(me_i, 1, i);                                              \
      memset(dst, FILL, total * sizeof(UT) + GUARD);                                                           \
      long* p = next_psync();                                                                                  \
      shmem_barrier_all();                                                                                     \
      shmem_collect##BITS(dst, src, mine, s->start, s->log, s->size, p);                                       \
      check_psync(p, SHMEM_COLLECT_SYNC_SIZE, "collect" #BITS);                                               \
      size_t bad = 0, off = 0;                                                                                 \
      for (int k = 0; k < n; ++k) {                                                                            \
        const size_t c = ((size_t)(k + 1) % 3) * ne / 2;                                                       \
        for (size_t i = 0; i < c; ++i)                                                                         \
          if (dst[off + i] != VAL(k, 1, i)) ++bad;                                                             \
        off += c;                                                                                              \
      }                                                                                                        \
      CHECKF(bad == 0, "%s collect%d n=%zu: %zu wrong", s->name, BITS, ne, bad);                              \
      CHECK_BYTES(dst + total, fill_ref, GUARD, "%s collect%d n=%zu guard", s->name, BITS, ne);                \
    }                                                                                                          \
    /* fcollect */                                                                                             \
    {                                                                                                          \
      for (size_t i = 0; i < ne; ++i) src[i] = VAL(me_i, 2, i);                                                \
      memset(dst, FILL, n * ne * sizeof(UT) + GUARD);                                                          \
      long* p = next_psync();                                                                                  \
      shmem_barrier_all();                                                                                     \
      shmem_fcollect##BITS(dst, src, ne, s->start, s->log, s->size, p);                                        \
      check_psync(p, SHMEM_COLLECT_SYNC_SIZE, "fcollect" #BITS);                                              \
      size_t bad = 0;                                                                                          \
      for (int k = 0; k < n; ++k)                                                                              \
        for (size_t i = 0; i < ne; ++i)                                                                        \
          if (dst[k * ne + i] != VAL(k, 2, i)) ++bad;                                                          \
      CHECKF(bad == 0, "%s fcollect%d n=%zu: %zu wrong", s->name, BITS, ne, bad);                             \
      CHECK_BYTES(dst + n * ne, fill_ref, GUARD, "%s fcollect%d n=%zu guard", s->name, BITS, ne);              \
    }                                                                                                          \
    /* alltoall */                                                                                             \
    {                                                                                                          \
      for (int j = 0; j < n; ++j)                                                                              \
        for (size_t i = 0; i < ne; ++i) src[j * ne + i] = VAL(me_i, j + 3, i);                                 \
      memset(dst, FILL, n * ne * sizeof(UT) + GUARD);                                                          \
      long* p = next_psync();                                                                                  \
      shmem_barrier_all();                                                                                     \
      shmem_alltoall##BITS(dst, src, ne, s->start, s->log, s->size, p);                                        \
      check_psync(p, SHMEM_ALLTOALL_SYNC_SIZE, "alltoall" #BITS);                                             \
      size_t bad = 0;                                                                                          \
      for (int k = 0; k < n; ++k)                                                                              \
        for (size_t i = 0; i < ne; ++i)                                                                        \
          if (dst[k * ne + i] != VAL(k, me_i + 3, i)) ++bad;                                                   \
      CHECKF(bad == 0, "%s alltoall%d n=%zu: %zu wrong", s->name, BITS, ne, bad);                             \
      CHECK_BYTES(dst + n * ne, fill_ref, GUARD, "%s alltoall%d n=%zu guard", s->name, BITS, ne);              \
    }                                                                                                          \
    /* alltoalls, dst 2, sst 3 */                                                                              \
    {                                                                                                          \
      const ptrdiff_t dstr = 2, sstr = 3;                                                                      \
      const size_t span_s = ne ? (n * ne - 1) * sstr + 1 : 0, span_d = ne ? (n * ne - 1) * dstr + 1 : 0;       \
      for (size_t k = 0; k < span_s; ++k) src[k] = VAL(me_i + 20, 99, k);                                      \
      for (int j = 0; j < n; ++j)                                                                              \
        for (size_t i = 0; i < ne; ++i) src[(j * ne + i) * sstr] = VAL(me_i, j + 7, i);                        \
      memset(dst, FILL, span_d * sizeof(UT) + GUARD);                                                          \
      long* p = next_psync();                                                                                  \
      shmem_barrier_all();                                                                                     \
      shmem_alltoalls##BITS(dst, src, dstr, sstr, ne, s->start, s->log, s->size, p);                          \
      check_psync(p, SHMEM_ALLTOALLS_SYNC_SIZE, "alltoalls" #BITS);                                           \
      size_t bad = 0, gaps = 0;                                                                                \
      for (int k = 0; k < n; ++k)                                                                              \
        for (size_t i = 0; i < ne; ++i)                                                                        \
          if (dst[(k * ne + i) * dstr] != VAL(k, me_i + 7, i)) ++bad;                                          \
      for (size_t k = 0; k < span_d; ++k)                                                                      \
        if (k % dstr) {                                                                                        \
          const unsigned char* b = (const unsigned char*)(dst + k);                                            \
          for (size_t c = 0; c < sizeof(UT); ++c) gaps += b[c] != FILL;                                        \
        }                                                                                                      \
      CHECKF(bad == 0 && gaps == 0, "%s alltoalls%d n=%zu: %zu wrong, %zu gap bytes written", s->name, BITS,   \
             ne, bad, gaps);                                                                                   \
      CHECK_BYTES(dst + span_d, fill_ref, GUARD, "%s alltoalls%d n=%zu guard", s->name, BITS, ne);             \
    }                                                                                                          \
  }
DEF_MOVE_TESTS(32, uint32_t, v32)
DEF_MOVE_TESTS(64, uint64_t, v64)

/* ---- reductions -------------------------------------------------------------------------------
 * Values per category; k is the set index, i the element. All results are exact. */
#define BITS_OF(T) ((int)(8 * sizeof(T)) - 1) /* stay clear of the sign bit */
#define G_SUM_I(T, k, i) ((T)(((k) + (i)) % 5 - 2))
#define G_PROD_I(T, k, i) ((T)(((k) + (i)) % 3 == 0 ? -1 : ((k) + (i)) % 3 == 1 ? 2 : 1))
#define G_MM_I(T, k, i) ((T)(((k) * 5 + (i) * 3) % 11 - 5))
#define G_AND_I(T, k, i) ((T) ~((T)1 << (((k) * 3 + (i)) % BITS_OF(T))))
#define G_OR_I(T, k, i) ((T)((T)1 << (((k) * 3 + (i)) % BITS_OF(T))))
#define G_XOR_I(T, k, i) ((T)(((k) * 131 + (i) + 1) * 40503L))
#define G_SUM_R(T, k, i) ((T)(((k) + (i)) % 5) - (T)2 + (T)0.5)
#define G_PROD_R(T, k, i) ((T)(((k) + (i)) % 3 == 0 ? -1.0 : ((k) + (i)) % 3 == 1 ? 2.0 : 0.5))
#define G_MM_R(T, k, i) ((T)(((k) * 5 + (i) * 3) % 11) - (T)5.5)
#define G_SUM_C(T, k, i) ((T)((((k) + (i)) % 5) - 1.5) + (T)(((k) * 2 + (i)) % 3) * (T)I)
#define G_PROD_C(T, k, i) (((k) + (i)) % 3 == 0 ? (T)I : ((k) + (i)) % 3 == 1 ? (T)2 : (T)1)

#define C_SUM(T, a, b) ((T)((a) + (b)))
#define C_PROD(T, a, b) ((T)((a) * (b)))
#define C_MAX(T, a, b) ((a) > (b) ? (a) : (b))
#define C_MIN(T, a, b) ((a) < (b) ? (a) : (b))
#define C_AND(T, a, b) ((T)((a) & (b)))
#define C_OR(T, a, b) ((T)((a) | (b)))
#define C_XOR(T, a, b) ((T)((a) ^ (b)))

static size_t wrk_elems(int nreduce) {
  size_t w = (size_t)nreduce / 2 + 1;
  return w > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? w : SHMEM_REDUCE_MIN_WRKDATA_SIZE;
}

/* One test function per (type, operation): t_<typename>_<op>_to_all(set, nreduce, in_place, pSync). */
#define DEF_TO_ALL(T, N, OPNAME, GEN, COMB)                                                                  \
  static void t_##N##_##OPNAME(const Set* s, int nr, int in_place, long* p) {                                \
    T* src = (T*)g_src;                                                                                      \
    T* dst = in_place ? src : (T*)g_dst;                                                                     \
    T* wrk = (T*)g_wrk;                                                                                      \
    for (int i = 0; i < nr; ++i) src[i] = GEN(T, s->idx, i);                                                 \
    memset(dst + nr, FILL, GUARD);                                                                           \
    if (!in_place) memset(dst, FILL, (size_t)nr * sizeof(T));                                                \
    memset(wrk + wrk_elems(nr), FILL, GUARD);                                                                \
    shmem_##N##_##OPNAME(dst, src, nr, s->start, s->log, s->size, wrk, p);                                   \
    check_psync(p, SHMEM_REDUCE_SYNC_SIZE, #N "_" #OPNAME);                                                  \
    int bad = 0, first = -1;                                                                                 \
    for (int i = 0; i < nr; ++i) {                                                                           \
      T e = GEN(T, 0, i);                                                                                    \
      for (int k = 1; k < s->size; ++k) e = COMB(T, e, GEN(T, k, i));                                        \
      if (!(dst[i] == e)) {                                                                                  \
        if (first < 0) first = i;                                                                            \
        ++bad;                                                                                               \
      }                                                                                                      \
    }                                                                                                        \
    CHECKF(bad == 0, "%s shmem_%s_%s nreduce=%d%s: %d wrong, first at %d", s->name, #N, #OPNAME, nr,          \
           in_place ? " in place" : "", bad, first);                                                         \
    CHECK_BYTES(dst + nr, fill_ref, GUARD, "%s shmem_%s_%s nreduce=%d: guard after dest", s->name, #N,        \
                #OPNAME, nr);                                                                                \
    CHECK_BYTES(wrk + wrk_elems(nr), fill_ref, GUARD, "%s shmem_%s_%s nreduce=%d: written past pWrk", s->name, \
                #N, #OPNAME, nr);                                                                            \
  }

#define DEF_INT(T, N)                              \
  DEF_TO_ALL(T, N, and_to_all, G_AND_I, C_AND)     \
  DEF_TO_ALL(T, N, or_to_all, G_OR_I, C_OR)        \
  DEF_TO_ALL(T, N, xor_to_all, G_XOR_I, C_XOR)     \
  DEF_TO_ALL(T, N, max_to_all, G_MM_I, C_MAX)      \
  DEF_TO_ALL(T, N, min_to_all, G_MM_I, C_MIN)      \
  DEF_TO_ALL(T, N, sum_to_all, G_SUM_I, C_SUM)     \
  DEF_TO_ALL(T, N, prod_to_all, G_PROD_I, C_PROD)
#define DEF_REAL(T, N)                             \
  DEF_TO_ALL(T, N, max_to_all, G_MM_R, C_MAX)      \
  DEF_TO_ALL(T, N, min_to_all, G_MM_R, C_MIN)      \
  DEF_TO_ALL(T, N, sum_to_all, G_SUM_R, C_SUM)     \
  DEF_TO_ALL(T, N, prod_to_all, G_PROD_R, C_PROD)
#define DEF_CPLX(T, N)                             \
  DEF_TO_ALL(T, N, sum_to_all, G_SUM_C, C_SUM)     \
  DEF_TO_ALL(T, N, prod_to_all, G_PROD_C, C_PROD)
SHMEM_TO_ALL_INT_TYPE_TABLE(DEF_INT)
SHMEM_TO_ALL_REAL_TYPE_TABLE(DEF_REAL)
SHMEM_REDUCE_COMPLEX_TYPE_TABLE(DEF_CPLX)

static void test_to_all(const Set* s, int nr, int in_place) {
#define RUN(N, OPNAME)                                     \
  do {                                                     \
    long* p = next_psync();                                \
    shmem_barrier_all(); /* dest and pWrk guards ready */  \
    t_##N##_##OPNAME(s, nr, in_place, p);                  \
  } while (0);
#define RUN_INT(T, N)     \
  RUN(N, and_to_all)      \
  RUN(N, or_to_all)       \
  RUN(N, xor_to_all)      \
  RUN(N, max_to_all)      \
  RUN(N, min_to_all)      \
  RUN(N, sum_to_all)      \
  RUN(N, prod_to_all)
#define RUN_REAL(T, N)    \
  RUN(N, max_to_all)      \
  RUN(N, min_to_all)      \
  RUN(N, sum_to_all)      \
  RUN(N, prod_to_all)
#define RUN_CPLX(T, N)    \
  RUN(N, sum_to_all)      \
  RUN(N, prod_to_all)
  SHMEM_TO_ALL_INT_TYPE_TABLE(RUN_INT)
  SHMEM_TO_ALL_REAL_TYPE_TABLE(RUN_REAL)
  SHMEM_REDUCE_COMPLEX_TYPE_TABLE(RUN_CPLX)
#undef RUN
#undef RUN_INT
#undef RUN_REAL
#undef RUN_CPLX
}

/* Members call the routines back to back with one pSync and no synchronisation; the results go
 * to separate dest regions that were all prefilled before a barrier. */
/* A stream of one-element broadcasts (the broadcast rings' path when PEs have CPUs of their
 * own), more of them than a ring holds, with rotating roots, alternating pSync arrays and no
 * synchronisation in between; each call has its own dest word. */
static void test_tiny_stream(const Set* s) {
  enum { ITERS = 100 };
  const int n = s->size;
  long* src = (long*)g_src;
  long* dst = (long*)g_dst;
  for (int it = 0; it < ITERS; ++it) dst[it] = FILL;
  for (int it = 0; it < ITERS; ++it) src[it] = 1000L * it + s->idx;
  shmem_barrier_all();
  for (int it = 0; it < ITERS; ++it) {
    const int root = (it / 3) % n;
    if (it % 4 == 3)
      shmem_broadcast32(&dst[it], &src[it], 1, root, s->start, s->log, s->size, psync[it % 2]);
    else
      shmem_broadcast64(&dst[it], &src[it], 1, root, s->start, s->log, s->size, psync[it % 2]);
  }
  long bad = 0;
  for (int it = 0; it < ITERS; ++it) {
    const int root = (it / 3) % n;
    if (s->idx == root) continue;
    const long want = 1000L * it + root;
    const size_t bytes = it % 4 == 3 ? 4 : 8; /* broadcast32 moves the first 4 bytes */
    bad += memcmp(&dst[it], &want, bytes) != 0;
  }
  CHECKF(bad == 0, "%s: %ld of %d tiny back-to-back broadcasts wrong", s->name, bad, ITERS);
  shmem_barrier_all();
}

/* Every active set of at least 2 PEs the job allows, twice over (more sets than the library keeps
 * layouts of: it keeps 4, a job of 4 PEs has 8; so cached and recomputed layouts both serve): a
 * broadcast from the set's last member and a max_to_all, each checked; every PE walks the same
 * list in the same order. */
static void test_many_sets(void) {
  static long word, got, lmax, pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
  int count = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (int log = 0; log < 3; ++log)
      for (int start = 0; start < npes; ++start)
        for (int size = 2; start + ((size - 1) << log) < npes; ++size) {
          const Set set = make_set(start, log, size, "many sets");
          const Set* s = &set;
          ++count;
          if (s->idx >= 0) {
            word = 100L * count + s->idx;
            got = FILL;
            shmem_barrier(s->start, s->log, s->size, psync_bar[0]);
            shmem_broadcast64(&got, &word, 1, s->size - 1, s->start, s->log, s->size, psync[1]);
            if (s->idx != s->size - 1)
              CHECKF(got == 100L * count + s->size - 1, "set %d (start %d, logstride %d, size %d): broadcast gave %ld, "
                     "expected %ld", count, start, log, size, got, 100L * count + s->size - 1);
            shmem_barrier(s->start, s->log, s->size, psync_bar[1]);
            shmem_long_max_to_all(&lmax, &word, 1, s->start, s->log, s->size, pwrk, psync_b2b);
            CHECKF(lmax == 100L * count + s->size - 1, "set %d (start %d, logstride %d, size %d): max_to_all gave %ld, "
                   "expected %ld", count, start, log, size, lmax, 100L * count + s->size - 1);
          }
          shmem_barrier_all();
        }
}

static void test_back_to_back(const Set* s) {
  enum { ITERS = 24, NE = 19 };
  const int n = s->size;
  long* src = (long*)g_src;
  long* dst = (long*)g_dst;
  const size_t region = (size_t)n * NE + 64; /* longs per iteration */
  memset(dst, FILL, region * ITERS * sizeof(long));
  shmem_barrier_all();
  long bad = 0;
  for (int it = 0; it < ITERS; ++it) {
    long* d = dst + region * it;
    long* sc = src + (size_t)NE * n * it; /* per-iteration source, never overwritten */
    switch (it % 6) {
      case 0: {
        const int root = (it / 6) % n;
        for (int i = 0; i < NE; ++i) sc[i] = 1000L * it + 10L * s->idx + i;
        shmem_broadcast64(d, sc, NE, root, s->start, s->log, s->size, psync_b2b);
        if (s->idx != root)
          for (int i = 0; i < NE; ++i) bad += d[i] != 1000L * it + 10L * root + i;
        break;
      }
      case 1:
        for (int i = 0; i < NE; ++i) sc[i] = 1000L * it + 10L * s->idx + i;
        shmem_fcollect64(d, sc, NE, s->start, s->log, s->size, psync_b2b);
        for (int k = 0; k < n; ++k)
          for (int i = 0; i < NE; ++i) bad += d[k * NE + i] != 1000L * it + 10L * k + i;
        break;
      case 2: {
        const size_t mine = (size_t)(s->idx % 2 ? NE : 0);
        for (size_t i = 0; i < mine; ++i) sc[i] = 1000L * it + 10L * s->idx + (long)i;
        shmem_collect64(d, sc, mine, s->start, s->log, s->size, psync_b2b);
        size_t off = 0;
        for (int k = 0; k < n; ++k)
          if (k % 2) {
            for (int i = 0; i < NE; ++i) bad += d[off + i] != 1000L * it + 10L * k + i;
            off += NE;
          }
        break;
      }
      case 3:
        for (int i = 0; i < NE; ++i) sc[i] = it + s->idx + i;
        shmem_long_sum_to_all(d, sc, NE, s->start, s->log, s->size, (long*)g_wrk, psync_b2b);
        for (int i = 0; i < NE; ++i) bad += d[i] != (long)n * (it + i) + (long)n * (n - 1) / 2;
        break;
      case 4:
        for (int i = 0; i < NE; ++i) sc[i] = it * 7 + ((s->idx + i) % n);
        shmem_long_max_to_all(d, sc, NE, s->start, s->log, s->size, (long*)g_wrk, psync_b2b);
        for (int i = 0; i < NE; ++i) bad += d[i] != it * 7 + (n - 1);
        break;
      default:
        shmem_barrier(s->start, s->log, s->size, psync_b2b);
        for (int k = 0; k < n; ++k)
          for (int i = 0; i < 2; ++i) sc[k * 2 + i] = 100000L * it + 100L * s->idx + 10L * k + i;
        shmem_alltoall64(d, sc, 2, s->start, s->log, s->size, psync_b2b);
        for (int k = 0; k < n; ++k)
          for (int i = 0; i < 2; ++i) bad += d[k * 2 + i] != 100000L * it + 100L * k + 10L * s->idx + i;
        break;
    }
  }
  CHECKF(bad == 0, "%s back-to-back with one pSync: %ld wrong values", s->name, bad);
}

int main(void) {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  memset(fill_ref, FILL, sizeof fill_ref);
  for (int k = 0; k < 2; ++k) {
    for (int i = 0; i < SHMEM_SYNC_SIZE; ++i) psync[k][i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i) psync_bar[k][i] = SHMEM_SYNC_VALUE;
  }
  for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) psync_b2b[i] = SHMEM_SYNC_VALUE;
  CHECK(SHMEM_SYNC_SIZE >= SHMEM_BCAST_SYNC_SIZE && SHMEM_SYNC_SIZE >= SHMEM_COLLECT_SYNC_SIZE &&
        SHMEM_SYNC_SIZE >= SHMEM_REDUCE_SYNC_SIZE && SHMEM_SYNC_SIZE >= SHMEM_ALLTOALL_SYNC_SIZE &&
        SHMEM_SYNC_SIZE >= SHMEM_ALLTOALLS_SYNC_SIZE && SHMEM_SYNC_SIZE >= SHMEM_BARRIER_SYNC_SIZE);
  CHECK(SHMEM_REDUCE_SYNC_SIZE >= SHMEM_BCAST_SYNC_SIZE && SHMEM_REDUCE_SYNC_SIZE >= SHMEM_COLLECT_SYNC_SIZE &&
        SHMEM_REDUCE_SYNC_SIZE >= SHMEM_ALLTOALL_SYNC_SIZE && SHMEM_REDUCE_SYNC_SIZE >= SHMEM_BARRIER_SYNC_SIZE);
  g_src = (char*)shmem_malloc(BUF_BYTES);
  g_dst = (char*)shmem_malloc(BUF_BYTES);
  g_wrk = (char*)shmem_malloc((MAX_NREDUCE / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE) * 32 + GUARD);
  shmem_barrier_all();

  Set sets[5];
  int nsets = 0;
  sets[nsets++] = make_set(0, 0, npes, "all PEs");
  if (npes >= 2) sets[nsets++] = make_set(1, 1, npes / 2, "start 1 logstride 1");
  sets[nsets++] = make_set(0, 1, (npes + 1) / 2, "evens");
  if (npes > 4) sets[nsets++] = make_set(0, 2, (npes + 3) / 4, "stride 4");
  sets[nsets++] = make_set(npes - 1, 0, 1, "last PE alone");

  const size_t move_sizes[] = {0, 1, 37, 1000};
  const int reduce_sizes[] = {0, 1, 37, MAX_NREDUCE};
  for (int k = 0; k < nsets; ++k) {
    const Set* s = &sets[k];
    /* Non-members still take part in the barrier_alls inside the tests, so every PE runs the
     * same sequence of barrier_all calls: members call the collective in between. */
    if (s->idx >= 0) test_barrier(s);
    shmem_barrier_all();
    for (size_t m = 0; m < sizeof move_sizes / sizeof move_sizes[0]; ++m) {
      if (s->idx >= 0) {
        test_move32(s, move_sizes[m]);
        test_move64(s, move_sizes[m]);
      } else {
        for (int b = 0; b < 2 * 6; ++b) shmem_barrier_all(); /* the barriers the members do */
      }
    }
    for (size_t r = 0; r < sizeof reduce_sizes / sizeof reduce_sizes[0]; ++r)
      for (int in_place = 0; in_place < 2; ++in_place) {
        if (s->idx >= 0) {
          test_to_all(s, reduce_sizes[r], in_place);
        } else {
          /* one barrier_all per to_all call: count them from the tables */
#define COUNT_INT(T, N) c += 7;
#define COUNT_REAL(T, N) c += 4;
#define COUNT_CPLX(T, N) c += 2;
          int c = 0;
          SHMEM_TO_ALL_INT_TYPE_TABLE(COUNT_INT)
          SHMEM_TO_ALL_REAL_TYPE_TABLE(COUNT_REAL)
          SHMEM_REDUCE_COMPLEX_TYPE_TABLE(COUNT_CPLX)
          for (int b = 0; b < c; ++b) shmem_barrier_all();
        }
      }
    /* back to back with one pSync */
    if (s->idx >= 0) {
      test_back_to_back(s);
      test_tiny_stream(s);
    } else {
      for (int b = 0; b < 3; ++b) shmem_barrier_all(); /* back_to_back's, then tiny_stream's two */
    }
    shmem_barrier_all();
    check_psync(psync_b2b, SHMEM_REDUCE_SYNC_SIZE, "after back-to-back calls");
    check_psync(psync[0], SHMEM_SYNC_SIZE, "after the set");
    check_psync(psync[1], SHMEM_SYNC_SIZE, "after the set");
    shmem_barrier_all();
  }
  test_many_sets();
  check_psync(psync_bar[0], SHMEM_BARRIER_SYNC_SIZE, "after the many sets");
  check_psync(psync_bar[1], SHMEM_BARRIER_SYNC_SIZE, "after the many sets");
  check_psync(psync[1], SHMEM_SYNC_SIZE, "after the many sets");
  check_psync(psync_b2b, SHMEM_REDUCE_SYNC_SIZE, "after the many sets");
  shmem_free(g_src);
  shmem_free(g_dst);
  shmem_free(g_wrk);
  return check_finish("coll_legacy");
}
