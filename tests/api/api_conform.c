/*
 * api_conform.c - spec behaviours and compatibility names that programs written for other
 * OpenSHMEM libraries rely on (issue 12), as C11, run as 1..4 PEs:
 *   - test_any / wait_until_any (+ _vector) return, over a series of calls, every satisfying
 *     index (spec 1.6: "a series of calls ... must eventually return i"), for every type of
 *     the multi-element table, which includes short and unsigned short (an extension);
 *   - shmem_ctx_quiet / fence / pe_quiet / destroy / session_{start,stop} on SHMEM_CTX_INVALID
 *     do nothing; shmem_ctx_get_team on it gives SHMEM_TEAM_INVALID and nonzero;
 *   - every collective (team and active-set forms) with nelems 0 and NULL buffers succeeds;
 *   - the C11 generic shmem_signal_{set,add} with and without a leading context;
 *   - Sandia's shmemx_ names (ibput/ibget, signal_add/set, sum_inscan/exscan), SHMEMX_TEAM_NODE.
 */
#include <shmem.h>
#include <shmemx.h>
#include <string.h>

#include "check.h"

#define NV 7
static int me, npes;

/* ---- _any rotation ------------------------------------------------------------------------- */
/* Entries 1, 3 and 4 hold 1 (satisfy EQ 1), the others 0; entry 3 is masked out by status in
 * the second round. 3 * NV calls must return each satisfying index at least once, and only
 * those. */
#define DEFINE_ANY(T, N)                                                                              \
  static T any_iv_##N[NV];                                                                            \
  static void any_rotation_##N(void) {                                                                \
    T* iv = any_iv_##N;                                                                               \
    T ones[NV];                                                                                       \
    int mask[NV] = {0, 0, 0, 1, 0, 0, 0};                                                             \
    for (int i = 0; i < NV; ++i) {                                                                    \
      iv[i] = (T)(i == 1 || i == 3 || i == 4);                                                        \
      ones[i] = (T)1;                                                                                 \
    }                                                                                                 \
    for (int form = 0; form < 4; ++form) {                                                            \
      for (int masked = 0; masked < 2; ++masked) {                                                    \
        const int* st = masked ? mask : NULL;                                                         \
        int seen[NV] = {0};                                                                           \
        for (int call = 0; call < 3 * NV; ++call) {                                                   \
          size_t r = form == 0   ? shmem_##N##_test_any(iv, NV, st, SHMEM_CMP_EQ, (T)1)               \
                     : form == 1 ? shmem_##N##_test_any_vector(iv, NV, st, SHMEM_CMP_EQ, ones)        \
                     : form == 2 ? shmem_##N##_wait_until_any(iv, NV, st, SHMEM_CMP_EQ, (T)1)         \
                                 : shmem_##N##_wait_until_any_vector(iv, NV, st, SHMEM_CMP_EQ, ones); \
          CHECKF(r < NV, "%s form %d returned %zu", #N, form, r);                                     \
          if (r < NV) ++seen[r];                                                                      \
        }                                                                                             \
        for (int i = 0; i < NV; ++i) {                                                                \
          const int want = (i == 1 || i == 4 || (i == 3 && !masked));                                 \
          CHECKF(want ? seen[i] > 0 : seen[i] == 0, "%s form %d masked %d: index %d returned %d times", \
                 #N, form, masked, i, seen[i]);                                                       \
        }                                                                                             \
      }                                                                                               \
    }                                                                                                 \
    /* _some returns every satisfying index at once; _all sees them all. */                           \
    size_t idx[NV];                                                                                   \
    CHECK_EQ(shmem_##N##_test_some(iv, NV, idx, NULL, SHMEM_CMP_EQ, (T)1), 3);                        \
    CHECK_EQ(shmem_##N##_wait_until_some(iv, NV, idx, mask, SHMEM_CMP_EQ, (T)1), 2);                  \
    CHECK(idx[0] == 1 && idx[1] == 4);                                                                \
    CHECK_EQ(shmem_##N##_test_all(iv, NV, NULL, SHMEM_CMP_LE, (T)1), 1);                              \
    shmem_##N##_wait_until_all(iv, NV, NULL, SHMEM_CMP_GE, (T)0);                                     \
  }
SHMEM_P2P_MULTI_TYPE_TABLE(DEFINE_ANY)
#define RUN_ANY(T, N) any_rotation_##N();

/* The short forms across PEs: the left neighbour sets entry 2 and 5 of my array; I wait for any
 * twice and must see both. */
static short remote_iv[NV];
static void short_remote(void) {
  for (int i = 0; i < NV; ++i) remote_iv[i] = 0;
  shmem_barrier_all();
  int right = (me + 1) % npes;
  shmem_short_p(&remote_iv[2], 1, right);
  shmem_short_p(&remote_iv[5], 1, right);
  int seen = 0;
  for (int k = 0; k < 2; ++k) {
    /* each wait returns an entry not yet consumed, so clear it after use */
    size_t r = shmem_short_wait_until_any(remote_iv, NV, NULL, SHMEM_CMP_EQ, 1);
    CHECKF(r == 2 || r == 5, "short wait_until_any returned %zu", r);
    if (r == 2 || r == 5) {
      seen |= 1 << r;
      remote_iv[r] = 0;
    }
  }
  CHECK_EQ(seen, (1 << 2) | (1 << 5));
  shmem_barrier_all();
}

/* ---- SHMEM_CTX_INVALID ----------------------------------------------------------------------- */
static void ctx_invalid(void) {
  const int pes[1] = {0};
  shmem_ctx_quiet(SHMEM_CTX_INVALID);
  shmem_ctx_fence(SHMEM_CTX_INVALID);
  shmem_ctx_pe_quiet(SHMEM_CTX_INVALID, pes, 1);
  shmem_ctx_destroy(SHMEM_CTX_INVALID);
  shmem_ctx_session_start(SHMEM_CTX_INVALID, SHMEM_CTX_SESSION_BATCH, NULL, 0);
  shmem_ctx_session_stop(SHMEM_CTX_INVALID);
  shmem_team_t team = SHMEM_TEAM_WORLD;
  CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &team) != 0);
  CHECK(team == SHMEM_TEAM_INVALID);
  /* The generic form, as a program resetting failed handles would write it. */
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  shmem_ctx_quiet(ctx);
  shmem_ctx_fence(ctx);
}

/* ---- zero-length collectives with NULL buffers -------------------------------------------------- */
static long psync[SHMEM_REDUCE_SYNC_SIZE];
static void zero_length(void) {
  for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;
  shmem_barrier_all();
  shmem_team_t w = SHMEM_TEAM_WORLD;
  CHECK_EQ(shmem_broadcastmem(w, NULL, NULL, 0, 0), 0);
  CHECK_EQ(shmem_collectmem(w, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_fcollectmem(w, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_alltoallmem(w, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_alltoallsmem(w, NULL, NULL, 1, 1, 0), 0);
  CHECK_EQ(shmem_long_broadcast(w, NULL, NULL, 0, 0), 0);
  CHECK_EQ(shmem_long_collect(w, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_long_fcollect(w, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_long_alltoall(w, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_long_alltoalls(w, NULL, NULL, 1, 1, 0), 0);
  CHECK_EQ(shmem_double_alltoalls(SHMEM_TEAM_SHARED, NULL, NULL, 2, 3, 0), 0);
  CHECK_EQ(shmem_long_sum_reduce(w, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_long_prod_reduce(w, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_long_max_reduce(w, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_long_min_reduce(w, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_ulong_and_reduce(w, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_ulong_or_reduce(w, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_ulong_xor_reduce(w, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_double_sum_inscan(w, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_double_sum_exscan(w, NULL, NULL, 0), 0);
  /* generic names */
  CHECK_EQ(shmem_broadcast(w, (int*)NULL, (const int*)NULL, 0, 0), 0);
  CHECK_EQ(shmem_alltoalls(w, (int*)NULL, (const int*)NULL, 1, 1, 0), 0);
  CHECK_EQ(shmem_sum_reduce(w, (int*)NULL, (const int*)NULL, 0), 0);
  /* active-set forms (every PE: start 0, stride 0, size npes) */
  shmem_broadcast32(NULL, NULL, 0, 0, 0, 0, npes, psync);
  shmem_barrier_all();
  shmem_broadcast64(NULL, NULL, 0, 0, 0, 0, npes, psync);
  shmem_barrier_all();
  shmem_collect32(NULL, NULL, 0, 0, 0, npes, psync);
  shmem_barrier_all();
  shmem_fcollect64(NULL, NULL, 0, 0, 0, npes, psync);
  shmem_barrier_all();
  shmem_alltoall64(NULL, NULL, 0, 0, 0, npes, psync);
  shmem_barrier_all();
  shmem_alltoalls32(NULL, NULL, 1, 1, 0, 0, 0, npes, psync);
  shmem_barrier_all();
  shmem_long_sum_to_all(NULL, NULL, 0, 0, 0, npes, NULL, psync);
  shmem_barrier_all();
  shmem_int_max_to_all(NULL, NULL, 0, 0, 0, npes, NULL, psync);
  shmem_barrier_all();
  shmem_double_prod_to_all(NULL, NULL, 0, 0, 0, npes, NULL, psync);
  shmem_barrier_all();
}

/* ---- generic signal_set / signal_add with a context ---------------------------------------------- */
static uint64_t sig;
static void signal_generic(void) {
  int right = (me + 1) % npes;
  shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
  shmem_ctx_t own;
  CHECK_EQ(shmem_ctx_create(0, &own), 0);
  sig = 0;
  shmem_barrier_all();
  shmem_signal_set(ctx, &sig, 10, right);
  shmem_barrier_all();
  CHECK_EQ(sig, 10);
  shmem_barrier_all();
  shmem_signal_add(&sig, 5, right);
  shmem_signal_add(own, &sig, 7, right);
  shmem_ctx_quiet(own);
  shmem_barrier_all();
  CHECK_EQ(sig, 22);
  shmem_barrier_all();
  shmem_signal_set(own, &sig, 3, right);
  shmem_ctx_quiet(own);
  shmem_barrier_all();
  CHECK_EQ(sig, 3);
  shmem_barrier_all();
  shmem_signal_set(&sig, 4, right);
  shmem_barrier_all();
  CHECK_EQ(sig, 4);
  shmem_ctx_destroy(own);
  shmem_barrier_all();
}

/* ---- Sandia shmemx_ names --------------------------------------------------------------------------- */
static long blocks[12], got[12];
static uint64_t xsig;
static int scan_in[3], scan_out[3];
static void shmemx_names(void) {
  int right = (me + 1) % npes, left = (me + npes - 1) % npes;
  long src[12];
  for (int i = 0; i < 12; ++i) {
    src[i] = 100 * me + i;
    blocks[i] = -1;
  }
  shmem_barrier_all();
  /* two blocks of 2 elements, source blocks 3 apart, dest blocks 4 apart */
  shmemx_long_ibput(blocks, src, 4, 3, 2, 2, right);
  shmem_barrier_all();
  CHECK_EQ(blocks[0], 100 * left + 0);
  CHECK_EQ(blocks[1], 100 * left + 1);
  CHECK_EQ(blocks[2], -1);
  CHECK_EQ(blocks[4], 100 * left + 3);
  CHECK_EQ(blocks[5], 100 * left + 4);
  for (int i = 0; i < 12; ++i) got[i] = -1;
  shmemx_ibget64(got, blocks, 2, 4, 2, 2, right); /* right's blocks hold my values; dest blocks adjacent */
  CHECK_EQ(got[0], 100 * me + 0);
  CHECK_EQ(got[1], 100 * me + 1);
  CHECK_EQ(got[2], 100 * me + 3);
  CHECK_EQ(got[3], 100 * me + 4);
  shmemx_ctx_long_ibget(SHMEM_CTX_DEFAULT, got, blocks, 1, 4, 1, 1, right);
  CHECK_EQ(got[0], 100 * me + 0);
  shmem_barrier_all();

  xsig = 0;
  shmem_barrier_all();
  shmemx_signal_set(&xsig, 40, right);
  shmem_barrier_all();
  CHECK_EQ(xsig, 40);
  shmem_barrier_all();
  shmemx_signal_add(&xsig, 2, right);
  shmemx_ctx_signal_add(SHMEM_CTX_DEFAULT, &xsig, 1, right);
  shmem_barrier_all();
  CHECK_EQ(xsig, 43);
  shmem_barrier_all();

  for (int i = 0; i < 3; ++i) scan_in[i] = me + i;
  shmem_barrier_all();
  CHECK_EQ(shmemx_int_sum_inscan(SHMEM_TEAM_WORLD, scan_out, scan_in, 3), 0);
  for (int i = 0; i < 3; ++i) CHECK_EQ(scan_out[i], me * (me + 1) / 2 + (me + 1) * i);
  CHECK_EQ(shmemx_int_sum_exscan(SHMEM_TEAM_WORLD, scan_out, scan_in, 3), 0);
  for (int i = 0; me > 0 && i < 3; ++i) CHECK_EQ(scan_out[i], (me - 1) * me / 2 + me * i);

  /* The generic names (issue 32): shmemx_ibput/ibget by type, signal_set/add with a context. */
  for (int i = 0; i < 12; ++i) blocks[i] = -1;
  shmem_barrier_all();
  shmemx_ibput(blocks, src, 4, 3, 2, 2, right);
  shmem_barrier_all();
  CHECK_EQ(blocks[0], 100 * left + 0);
  CHECK_EQ(blocks[5], 100 * left + 4);
  for (int i = 0; i < 12; ++i) got[i] = -1;
  shmemx_ibget(SHMEM_CTX_DEFAULT, got, blocks, 2, 4, 2, 2, right);
  CHECK_EQ(got[2], 100 * me + 3);
  shmem_barrier_all();
  xsig = 0;
  shmem_barrier_all();
  shmemx_signal_set(SHMEM_CTX_DEFAULT, &xsig, 7, right);
  shmem_barrier_all();
  CHECK_EQ(xsig, 7);
  shmem_barrier_all();
  shmemx_signal_add(SHMEM_CTX_DEFAULT, &xsig, 5, right);
  shmemx_signal_add(&xsig, 1, right);
  shmem_barrier_all();
  CHECK_EQ(xsig, 13);
  shmem_barrier_all();

  long* hinted = (long*)shmem_malloc_with_hints(4 * sizeof(long), SHMEMX_MALLOC_NO_BARRIER);
  CHECK(hinted != NULL);
  hinted[0] = -1;
  shmem_barrier_all();
  shmem_long_p(hinted, me, right);
  shmem_barrier_all();
  CHECK_EQ(hinted[0], left);
  shmem_free(hinted);

  CHECK(SHMEMX_TEAM_NODE == SHMEM_TEAM_SHARED);
  CHECK_EQ(shmem_team_n_pes(SHMEMX_TEAM_NODE), npes); /* one host */
  CHECK_EQ(shmem_team_my_pe(SHMEMX_TEAM_NODE), me);
  shmem_barrier_all();
}

/* ---- Sandia's performance counters: exact counts on a context of its own ------------------------- */
static uint64_t test_gettid(void) { return 42; }
static long counted[4];
static void pcntr(void) {
  int right = (me + 1) % npes;
  shmemx_register_gettid(test_gettid);
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
  if (ctx == SHMEM_CTX_INVALID) return;
  uint64_t v = 99;
  shmemx_pcntr_get_issued_write(ctx, &v);
  CHECK_EQ(v, 0);
  long one = 1, back[2];
  shmem_ctx_long_p(ctx, &counted[0], 5, right);             /* write 1 */
  shmem_ctx_long_put(ctx, &counted[1], &one, 1, right);     /* write 2 */
  shmem_ctx_long_put_nbi(ctx, &counted[2], &one, 1, right); /* write 3 */
  (void)shmem_ctx_long_g(ctx, &counted[0], right);          /* read 1 */
  shmem_ctx_long_get(ctx, back, counted, 2, right);         /* read 2 */
  shmem_ctx_quiet(ctx);
  shmemx_pcntr_t all;
  memset(&all, 0xff, sizeof all);
  shmemx_pcntr_get_all(ctx, &all);
  CHECK_EQ(all.pending_put, 3);
  CHECK_EQ(all.pending_get, 2);
  CHECK_EQ(all.completed_put, 3);
  CHECK_EQ(all.completed_get, 2);
  CHECK_EQ(all.target, 0);
  shmemx_pcntr_get_issued_read(ctx, &v);
  CHECK_EQ(v, 2);
  shmemx_pcntr_get_completed_write(ctx, &v);
  CHECK_EQ(v, 3);
  shmemx_pcntr_get_completed_read(ctx, &v);
  CHECK_EQ(v, 2);
  shmemx_pcntr_get_completed_target(&v);
  CHECK_EQ(v, 0);
  shmem_ctx_destroy(ctx);
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  SHMEM_P2P_MULTI_TYPE_TABLE(RUN_ANY)
  short_remote();
  ctx_invalid();
  zero_length();
  signal_generic();
  shmemx_names();
  pcntr();
  if (me == 0 && check_failures_ == 0) printf("api_conform: OK\n");
  return check_finish(NULL);
}
