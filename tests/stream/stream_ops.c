/*
 * stream_ops.c - the C stream API (C11): ordering, overlap with host work, error surfacing,
 * the default stream, several streams at once, and every on-stream collective with exact values.
 * Run under oshrun with any number of PEs; exits non-zero on any failed check.
 */
#include <shmemx.h>

#include <stdint.h>
#include <string.h>

#include "check.h"

enum { kOrderN = 2000, kBig = 8 << 20, kStreams = 3, kPerStream = 200 };

static int me, npes, right, left;

/* A long sequence of put-with-signal (SET) on one stream: the receiver checks that the signal
 * only ever grows and that, once it shows i, slots 0..i-1 hold their values. */
static void test_order(void) {
  uint64_t* data = shmem_calloc(kOrderN, sizeof(uint64_t));
  uint64_t* sig = shmem_calloc(1, sizeof(uint64_t));
  uint64_t* src = malloc(kOrderN * sizeof(uint64_t));
  for (int i = 0; i < kOrderN; ++i) src[i] = ((uint64_t)me << 32) | (uint64_t)(i + 1);
  shmemx_stream_t s;
  CHECK_EQ(shmemx_stream_create(&s), 0);
  for (int i = 0; i < kOrderN; ++i)
    shmemx_putmem_signal_on_stream(&data[i], &src[i], sizeof(uint64_t), sig, (uint64_t)(i + 1), SHMEM_SIGNAL_SET,
                                   right, s);
  /* Receive from the left neighbour while our own stream sends. */
  uint64_t last = 0;
  long regressions = 0, holes = 0;
  while (last < kOrderN) {
    uint64_t v = shmem_signal_fetch(sig);
    if (v < last) ++regressions;
    if (v > last) {
      for (uint64_t i = last; i < v; ++i)
        if (data[i] != (((uint64_t)left << 32) | (i + 1))) ++holes;
      last = v;
    }
  }
  CHECK_EQ(regressions, 0);
  CHECK_EQ(holes, 0);
  CHECK_EQ(shmemx_stream_synchronize(s), 0);
  CHECK_EQ(shmemx_stream_query(s), 0);

  /* put, then get of the same remote words, then quiet, on one stream: the get sees the put. */
  uint64_t back[16] = {0};
  uint64_t vals[16];
  for (int i = 0; i < 16; ++i) vals[i] = 1000u * (uint64_t)me + (uint64_t)i;
  shmem_barrier_all(); /* nobody still reads data[] */
  shmemx_putmem_on_stream(data, vals, sizeof vals, right, s);
  shmemx_getmem_on_stream(back, data, sizeof back, right, s);
  shmemx_quiet_on_stream(s);
  CHECK_EQ(shmemx_stream_synchronize(s), 0);
  CHECK_BYTES(back, vals, sizeof vals, "get after put on one stream");
  CHECK_EQ(shmemx_stream_destroy(s), 0);
  shmem_barrier_all();
  free(src);
  shmem_free(sig);
  shmem_free(data);
}

/* The host computes while the stream moves a large buffer; correctness only. */
static void test_overlap(void) {
  unsigned char* dst = shmem_malloc(kBig);
  unsigned char* src = malloc(kBig);
  uint64_t* sig = shmem_calloc(1, sizeof(uint64_t));
  for (size_t i = 0; i < kBig; ++i) src[i] = (unsigned char)(i * 7 + (size_t)me);
  shmemx_stream_t s;
  CHECK_EQ(shmemx_stream_create(&s), 0);
  shmem_barrier_all();
  for (int rep = 0; rep < 4; ++rep) shmemx_putmem_on_stream(dst, src, kBig, right, s);
  shmemx_signal_op_on_stream(sig, 1, SHMEM_SIGNAL_ADD, right, s);
  /* host work meanwhile */
  volatile double acc = 0;
  for (int i = 1; i < 2000000; ++i) acc += 1.0 / i;
  CHECK(acc > 1.0);
  shmem_uint64_wait_until(sig, SHMEM_CMP_EQ, 1);
  long bad = 0;
  for (size_t i = 0; i < kBig; ++i)
    if (dst[i] != (unsigned char)(i * 7 + (size_t)left)) ++bad;
  CHECK_EQ(bad, 0);
  CHECK_EQ(shmemx_stream_synchronize(s), 0);
  CHECK_EQ(shmemx_stream_destroy(s), 0);
  shmem_barrier_all();
  shmem_free(sig);
  free(src);
  shmem_free(dst);
}

/* Errors inside a stream: the bad operation is skipped, later ones run, synchronize returns the
 * first error once. */
static void test_errors(void) {
  long* x = shmem_calloc(4, sizeof(long));
  long local_only[4] = {0};
  long one = 1, two = 2;
  shmemx_stream_t s;
  CHECK_EQ(shmemx_stream_create(&s), 0);
  shmemx_putmem_on_stream(&x[0], &one, sizeof one, npes, s);          /* PE out of range */
  shmemx_putmem_on_stream(&local_only[0], &one, sizeof one, me, s);   /* not symmetric */
  shmemx_putmem_on_stream(&x[1], &two, sizeof two, me, s);            /* fine: still runs */
  CHECK_EQ(shmemx_stream_synchronize(s), SHMEMX_ERR_INVALID_ARGUMENT);
  CHECK_EQ(x[0], 0);
  CHECK_EQ(x[1], 2);
  CHECK_EQ(shmemx_stream_synchronize(s), 0); /* cleared after reporting */

  shmemx_signal_op_on_stream((uint64_t*)(void*)&x[2], 1, 7 /* bad sig_op */, me, s);
  CHECK_EQ(shmemx_stream_synchronize(s), SHMEMX_ERR_INVALID_ARGUMENT);
  shmemx_signal_wait_until_on_stream((uint64_t*)(void*)&x[2], 42 /* bad cmp */, 0, s);
  CHECK_EQ(shmemx_stream_synchronize(s), SHMEMX_ERR_INVALID_ARGUMENT);
  shmemx_barrier_on_stream(SHMEM_TEAM_INVALID, s);
  CHECK_EQ(shmemx_stream_synchronize(s), SHMEMX_ERR_INVALID_ARGUMENT);
  shmemx_broadcastmem_on_stream(SHMEM_TEAM_WORLD, x, x, sizeof(long), npes /* bad root */, s);
  CHECK_EQ(shmemx_stream_synchronize(s), SHMEMX_ERR_INVALID_ARGUMENT);
  CHECK_EQ(shmemx_stream_destroy(s), 0);
  CHECK_EQ(shmemx_stream_destroy(SHMEMX_STREAM_DEFAULT), SHMEMX_ERR_INVALID_ARGUMENT);
  shmem_barrier_all();
  shmem_free(x);
}

/* Several streams at once, plus the default stream, all sending to the right neighbour. */
static void test_many_streams(void) {
  uint64_t* data = shmem_calloc((kStreams + 1) * kPerStream, sizeof(uint64_t));
  uint64_t* sig = shmem_calloc(kStreams + 1, sizeof(uint64_t));
  uint64_t* src = malloc((kStreams + 1) * kPerStream * sizeof(uint64_t));
  for (int i = 0; i < (kStreams + 1) * kPerStream; ++i) src[i] = (uint64_t)me * 1000003u + (uint64_t)i;
  shmemx_stream_t s[kStreams + 1];
  for (int k = 0; k < kStreams; ++k) CHECK_EQ(shmemx_stream_create(&s[k]), 0);
  s[kStreams] = SHMEMX_STREAM_DEFAULT;
  shmem_barrier_all();
  for (int i = 0; i < kPerStream; ++i)
    for (int k = 0; k <= kStreams; ++k) {
      const int slot = k * kPerStream + i;
      shmemx_putmem_signal_on_stream(&data[slot], &src[slot], sizeof(uint64_t), &sig[k], 1, SHMEM_SIGNAL_ADD, right,
                                     s[k]);
    }
  for (int k = 0; k <= kStreams; ++k) shmem_uint64_wait_until(&sig[k], SHMEM_CMP_EQ, kPerStream);
  long bad = 0;
  for (int i = 0; i < (kStreams + 1) * kPerStream; ++i)
    if (data[i] != (uint64_t)left * 1000003u + (uint64_t)i) ++bad;
  CHECK_EQ(bad, 0);
  for (int k = 0; k < kStreams; ++k) CHECK_EQ(shmemx_stream_destroy(s[k]), 0);
  CHECK_EQ(shmemx_stream_synchronize(SHMEMX_STREAM_DEFAULT), 0);
  shmem_barrier_all();
  free(src);
  shmem_free(sig);
  shmem_free(data);
}

/* Every on-stream collective with exact values; the stream's signal_wait_until gates one. */
static void test_collectives(void) {
  enum { N = 5 };
  long* src = shmem_malloc(N * sizeof(long) * (size_t)npes);
  long* dst = shmem_malloc(N * sizeof(long) * (size_t)npes);
  double* dsrc = shmem_malloc(N * sizeof(double));
  double* ddst = shmem_malloc(N * sizeof(double));
  uint64_t* usrc = shmem_malloc(N * sizeof(uint64_t));
  uint64_t* udst = shmem_malloc(N * sizeof(uint64_t));
  int* isrc = shmem_malloc(N * sizeof(int));
  int* idst = shmem_malloc(N * sizeof(int));
  uint64_t* gate = shmem_calloc(1, sizeof(uint64_t));
  shmemx_stream_t s;
  CHECK_EQ(shmemx_stream_create(&s), 0);

  /* broadcast from the last PE */
  for (int i = 0; i < N; ++i) src[i] = 100 * me + i, dst[i] = -1;
  shmem_barrier_all();
  shmemx_broadcastmem_on_stream(SHMEM_TEAM_WORLD, dst, src, N * sizeof(long), npes - 1, s);
  CHECK_EQ(shmemx_stream_synchronize(s), 0);
  for (int i = 0; i < N; ++i) CHECK_EQ_AT(dst[i], 100 * (npes - 1) + i, "broadcast i=%d", i);

  /* fcollect and collect */
  shmemx_fcollectmem_on_stream(SHMEM_TEAM_WORLD, dst, src, N * sizeof(long), s);
  CHECK_EQ(shmemx_stream_synchronize(s), 0);
  for (int p = 0; p < npes; ++p)
    for (int i = 0; i < N; ++i) CHECK_EQ_AT(dst[p * N + i], 100 * p + i, "fcollect p=%d i=%d", p, i);
  shmemx_collectmem_on_stream(SHMEM_TEAM_WORLD, dst, src, sizeof(long), s); /* one long per PE */
  CHECK_EQ(shmemx_stream_synchronize(s), 0);
  for (int p = 0; p < npes; ++p) CHECK_EQ_AT(dst[p], 100 * p, "collect p=%d", p);

  /* alltoall: block j of PE p's source goes to PE j's block p */
  for (int j = 0; j < npes; ++j)
    for (int i = 0; i < N; ++i) src[j * N + i] = 10000 * me + 100 * j + i;
  shmem_barrier_all();
  shmemx_alltoallmem_on_stream(SHMEM_TEAM_WORLD, dst, src, N * sizeof(long), s);
  CHECK_EQ(shmemx_stream_synchronize(s), 0);
  for (int p = 0; p < npes; ++p)
    for (int i = 0; i < N; ++i) CHECK_EQ_AT(dst[p * N + i], 10000 * p + 100 * me + i, "alltoall p=%d i=%d", p, i);

  /* reductions: long sum/prod/max/min, double max, uint64 xor/or/and, int sum; in order on one
   * stream, with the stream waiting for a local gate signal first */
  for (int i = 0; i < N; ++i) {
    src[i] = me + i + 1;
    dsrc[i] = (double)(me * i) - 0.5;
    usrc[i] = (uint64_t)1 << ((me + i) % 64);
    isrc[i] = me * 3 - i;
  }
  shmem_barrier_all();
  shmemx_signal_wait_until_on_stream(gate, SHMEM_CMP_GE, 1, s);
  shmemx_long_sum_reduce_on_stream(SHMEM_TEAM_WORLD, dst, src, N, s);
  shmemx_double_max_reduce_on_stream(SHMEM_TEAM_WORLD, ddst, dsrc, N, s);
  shmemx_uint64_xor_reduce_on_stream(SHMEM_TEAM_WORLD, udst, usrc, N, s);
  shmemx_int_min_reduce_on_stream(SHMEM_TEAM_WORLD, idst, isrc, N, s);
  CHECK_EQ(shmemx_stream_query(s), SHMEMX_STREAM_PENDING); /* held by the gate */
  shmem_uint64_atomic_set(gate, 1, me);
  CHECK_EQ(shmemx_stream_synchronize(s), 0);
  for (int i = 0; i < N; ++i) {
    long sum = 0;
    double mx = -1e300;
    uint64_t x = 0;
    int mn = 1 << 30;
    for (int p = 0; p < npes; ++p) {
      sum += p + i + 1;
      if ((double)(p * i) - 0.5 > mx) mx = (double)(p * i) - 0.5;
      x ^= (uint64_t)1 << ((p + i) % 64);
      if (p * 3 - i < mn) mn = p * 3 - i;
    }
    CHECK_EQ_AT(dst[i], sum, "long sum i=%d", i);
    CHECK_EQ_AT(ddst[i], mx, "double max i=%d", i);
    CHECK_EQ_AT(udst[i], x, "uint64 xor i=%d", i);
    CHECK_EQ_AT(idst[i], mn, "int min i=%d", i);
  }
  shmemx_long_prod_reduce_on_stream(SHMEM_TEAM_WORLD, dst, src, N, s);
  shmemx_uint64_or_reduce_on_stream(SHMEM_TEAM_WORLD, udst, usrc, N, s);
  CHECK_EQ(shmemx_stream_synchronize(s), 0);
  for (int i = 0; i < N; ++i) {
    long prod = 1;
    uint64_t o = 0;
    for (int p = 0; p < npes; ++p) prod *= p + i + 1, o |= (uint64_t)1 << ((p + i) % 64);
    CHECK_EQ_AT(dst[i], prod, "long prod i=%d", i);
    CHECK_EQ_AT(udst[i], o, "uint64 or i=%d", i);
  }

  /* barrier and sync on a split team (even PEs), and barrier_all, on the stream */
  shmem_team_t even = SHMEM_TEAM_INVALID;
  shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
  if (even != SHMEM_TEAM_INVALID) {
    int tn = shmem_team_n_pes(even);
    for (int i = 0; i < N; ++i) src[i] = shmem_team_my_pe(even) + i;
    shmemx_barrier_on_stream(even, s);
    shmemx_long_sum_reduce_on_stream(even, dst, src, N, s);
    shmemx_sync_on_stream(even, s);
    CHECK_EQ(shmemx_stream_synchronize(s), 0);
    for (int i = 0; i < N; ++i) CHECK_EQ_AT(dst[i], (long)tn * (tn - 1) / 2 + (long)tn * i, "team sum i=%d", i);
  }
  shmemx_barrier_all_on_stream(s);
  CHECK_EQ(shmemx_stream_synchronize(s), 0);
  if (even != SHMEM_TEAM_INVALID) shmem_team_destroy(even);
  CHECK_EQ(shmemx_stream_destroy(s), 0);
  shmem_barrier_all();
  shmem_free(gate);
  shmem_free(idst);
  shmem_free(isrc);
  shmem_free(udst);
  shmem_free(usrc);
  shmem_free(ddst);
  shmem_free(dsrc);
  shmem_free(dst);
  shmem_free(src);
}

int main(void) {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  right = (me + 1) % npes;
  left = (me + npes - 1) % npes;
  test_order();
  test_overlap();
  test_errors();
  test_many_streams();
  test_collectives();
  /* Finalize and exit with streams still alive (idle): a stream of our own and the default
   * stream, both with threads running. (stream_kernels ends with shmemx_stream_destroy_all.) */
  shmemx_stream_t live;
  CHECK_EQ(shmemx_stream_create(&live), 0);
  shmemx_barrier_all_on_stream(live);
  CHECK_EQ(shmemx_stream_synchronize(live), 0);
  shmemx_quiet_on_stream(SHMEMX_STREAM_DEFAULT);
  CHECK_EQ(shmemx_stream_synchronize(SHMEMX_STREAM_DEFAULT), 0);
  if (me == 0) printf("stream_ops: %d PEs OK\n", npes);
  return check_finish(NULL);
}
