/*
 * coll_ctx.c - communication contexts.
 *
 *  - shmem_ctx_create with 0, SERIALIZED, PRIVATE, NOSTORE and their combinations: RMA, AMO,
 *    put_signal, nbi + ctx_quiet, ctx_fence ordering, ctx_get_team (WORLD), ctx_destroy.
 *  - invalid options return nonzero and leave the handle untouched.
 *  - shmem_team_create_ctx on strided teams whose numbering differs from WORLD's (reversed with
 *    stride -2, and an offset subset): every PE number given to the context is team-relative,
 *    and each put/get/AMO/put_signal must land on (or read from) the world PE that
 *    shmem_team_translate_pe names.
 *  - the default context and SHMEM_CTX_INVALID with ctx_get_team.
 */
#include <shmem.h>

#include "check.h"

enum { NE = 37 };

static int me, npes;
static long data[4][NE];
static long counter;
static long fetch_target;
static long ordered_data[NE];
static long ordered_flag;
static uint64_t sig;
static long from_pe[64];

static void check_get_team(shmem_ctx_t ctx, shmem_team_t expected, const char* what) {
  shmem_team_t t = SHMEM_TEAM_INVALID;
  CHECKF(shmem_ctx_get_team(ctx, &t) == 0, "%s: ctx_get_team failed", what);
  CHECKF(t == expected, "%s: ctx_get_team gave a different team", what);
}

/* A context from shmem_ctx_create: exercise every kind of operation on WORLD numbering. */
static void exercise_world_ctx(shmem_ctx_t ctx, long options, int round) {
  const int right = (me + 1) % npes, left = (me - 1 + npes) % npes;
  const long base = 1000000L * round + 1000L * me;
  long src[NE];
  for (int i = 0; i < NE; ++i) src[i] = base + i;

  /* put + quiet, then a world barrier (no NOSTORE on the barrier's context) */
  shmem_ctx_long_put(ctx, data[0], src, NE, right);
  shmem_ctx_long_put_nbi(ctx, data[1], src, NE, right);
  shmem_ctx_long_p(ctx, &data[2][0], base + 7, right);
  shmem_ctx_quiet(ctx);
  shmem_ctx_long_atomic_add(ctx, &counter, me + 1, 0);
  shmem_ctx_quiet(ctx);
  if (options & SHMEM_CTX_NOSTORE) shmem_quiet(); /* store completion needs a non-NOSTORE context */
  shmem_barrier_all();
  const long lbase = 1000000L * round + 1000L * left;
  for (int i = 0; i < NE; ++i) {
    CHECK_EQ_AT(data[0][i], lbase + i, "options %ld put", options);
    CHECK_EQ_AT(data[1][i], lbase + i, "options %ld put_nbi", options);
  }
  CHECK_EQ_AT(data[2][0], lbase + 7, "options %ld p", options);
  if (me == 0) CHECK_EQ_AT(counter, (long)npes * (npes + 1) / 2, "options %ld atomic_add", options);

  /* get / g / get_nbi from the right neighbour (what it received from me) */
  long back[NE];
  shmem_ctx_long_get(ctx, back, data[0], NE, right);
  for (int i = 0; i < NE; ++i) CHECK_EQ_AT(back[i], base + i, "options %ld get", options);
  CHECK_EQ_AT(shmem_ctx_long_g(ctx, &data[2][0], right), base + 7, "options %ld g", options);
  memset(back, 0, sizeof back);
  shmem_ctx_long_get_nbi(ctx, back, data[1], NE, right);
  shmem_ctx_quiet(ctx);
  for (int i = 0; i < NE; ++i) CHECK_EQ_AT(back[i], base + i, "options %ld get_nbi", options);

  /* fetching AMOs: every PE increments PE 0's counter; the fetched values are all different */
  long old = shmem_ctx_long_atomic_fetch_add(ctx, &fetch_target, 1, 0);
  CHECK(old >= 0 && old < npes);
  shmem_ctx_long_p(ctx, &from_pe[old], me + 1, 0); /* each slot written by exactly one PE */
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  if (me == 0) {
    CHECK_EQ_AT(fetch_target, npes, "options %ld fetch_add", options);
    long seen = 0;
    for (int p = 0; p < npes; ++p) seen += from_pe[p] != 0;
    CHECK_EQ_AT(seen, npes, "options %ld fetched values distinct", options);
    for (int p = 0; p < npes; ++p) from_pe[p] = 0;
    fetch_target = 0;
    counter = 0;
  }

  /* put_signal: data then signal, the receiver waits on the signal only */
  sig = 0;
  shmem_barrier_all();
  shmem_ctx_long_put_signal(ctx, data[3], src, NE, &sig, 1, SHMEM_SIGNAL_ADD, right);
  shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1);
  for (int i = 0; i < NE; ++i) CHECK_EQ_AT(data[3][i], lbase + i, "options %ld put_signal", options);

  /* fence: data before flag on the same context; the receiver waits on the flag. With NOSTORE
   * the fence need not order stores, so it is skipped there. */
  if (!(options & SHMEM_CTX_NOSTORE)) {
    ordered_flag = 0;
    shmem_barrier_all();
    shmem_ctx_long_put(ctx, ordered_data, src, NE, right);
    shmem_ctx_fence(ctx);
    shmem_ctx_long_atomic_set(ctx, &ordered_flag, round + 1, right);
    shmem_long_wait_until(&ordered_flag, SHMEM_CMP_EQ, round + 1);
    for (int i = 0; i < NE; ++i) CHECK_EQ_AT(ordered_data[i], lbase + i, "options %ld fence", options);
  }
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
}

static void test_ctx_create(void) {
  const long options[] = {0,
                          SHMEM_CTX_SERIALIZED,
                          SHMEM_CTX_PRIVATE,
                          SHMEM_CTX_NOSTORE,
                          SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE,
                          SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE,
                          SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE};
  for (int k = 0; k < (int)(sizeof options / sizeof options[0]); ++k) {
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    int rc = shmem_ctx_create(options[k], &ctx);
    CHECKF(rc == 0, "ctx_create(%ld) returned %d", options[k], rc);
    if (rc != 0) {
      shmem_barrier_all();
      continue;
    }
    CHECK(ctx != SHMEM_CTX_INVALID);
    CHECK(ctx != SHMEM_CTX_DEFAULT);
    check_get_team(ctx, SHMEM_TEAM_WORLD, "ctx_create");
    exercise_world_ctx(ctx, options[k], k);
    shmem_ctx_destroy(ctx);
  }
  /* Several contexts alive at once, destroyed out of order. */
  shmem_ctx_t many[16];
  for (int i = 0; i < 16; ++i) CHECK_EQ(shmem_ctx_create(i % 2 ? SHMEM_CTX_PRIVATE : 0, &many[i]), 0);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < i; ++j) CHECK(many[i] != many[j]);
  exercise_world_ctx(many[5], 0, 20);
  for (int i = 0; i < 16; i += 2) shmem_ctx_destroy(many[i]);
  exercise_world_ctx(many[7], SHMEM_CTX_PRIVATE, 21);
  for (int i = 1; i < 16; i += 2) shmem_ctx_destroy(many[i]);

  /* The default context works through the ctx routines too. */
  exercise_world_ctx(SHMEM_CTX_DEFAULT, 0, 22);
  check_get_team(SHMEM_CTX_DEFAULT, SHMEM_TEAM_WORLD, "default context");

  /* Invalid options: nonzero, handle untouched. */
  const long bad_options[] = {1L << 3, 1L << 10, -1L};
  for (int k = 0; k < 3; ++k) {
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    CHECKF(shmem_ctx_create(bad_options[k], &ctx) != 0, "ctx_create(%#lx) accepted", bad_options[k]);
    CHECK(ctx == SHMEM_CTX_INVALID);
  }
  /* SHMEM_CTX_INVALID: get_team gives nonzero and SHMEM_TEAM_INVALID; destroy is a no-op. */
  shmem_team_t t = SHMEM_TEAM_WORLD;
  CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0);
  CHECK(t == SHMEM_TEAM_INVALID);
  shmem_ctx_destroy(SHMEM_CTX_INVALID);
  shmem_barrier_all();
}

/* A context on team `team` (members: world PEs from world_of(i)); PE numbers are team-relative. */
static void exercise_team_ctx(shmem_team_t team, long options, int round, const char* what) {
  const int n = shmem_team_n_pes(team), tme = shmem_team_my_pe(team);
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  int rc = shmem_team_create_ctx(team, options, &ctx);
  CHECKF(rc == 0, "%s: team_create_ctx(%ld) returned %d", what, options, rc);
  if (rc != 0) return;
  check_get_team(ctx, team, what);
  const int tright = (tme + 1) % n, tleft = (tme - 1 + n) % n;
  const int wright = shmem_team_translate_pe(team, tright, SHMEM_TEAM_WORLD);
  const int wleft = shmem_team_translate_pe(team, tleft, SHMEM_TEAM_WORLD);
  const int wroot = shmem_team_translate_pe(team, 0, SHMEM_TEAM_WORLD);
  long src[NE];
  const long base = 1000000L * round + 1000L * me; /* tagged with the WORLD PE of the sender */
  for (int i = 0; i < NE; ++i) src[i] = base + i;

  /* put to team PE tright: must arrive at world PE wright, from world PE wleft into mine. */
  shmem_ctx_long_put(ctx, data[0], src, NE, tright);
  shmem_ctx_long_p(ctx, &data[1][0], base + 5, tright);
  shmem_ctx_long_atomic_add(ctx, &counter, me + 1, 0); /* team PE 0 = world PE wroot */
  shmem_ctx_quiet(ctx);
  if (options & SHMEM_CTX_NOSTORE) shmem_quiet(); /* store completion needs a non-NOSTORE context */
  CHECK_EQ(shmem_team_sync(team), 0);
  const long lbase = 1000000L * round + 1000L * wleft;
  for (int i = 0; i < NE; ++i) CHECK_EQ_AT(data[0][i], lbase + i, "%s put", what);
  CHECK_EQ_AT(data[1][0], lbase + 5, "%s p", what);
  if (me == wroot) {
    long expect = 0;
    for (int i = 0; i < n; ++i) expect += shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD) + 1;
    CHECK_EQ_AT(counter, expect, "%s atomic_add on team PE 0 (world PE %d)", what, wroot);
  }
  /* Cross-check through the WORLD numbering with the default context. */
  CHECK_EQ_AT(shmem_long_g(&data[0][0], wright), base, "%s world get", what);
  /* get and fetching AMO through the team numbering */
  long back[NE];
  shmem_ctx_long_get(ctx, back, data[0], NE, tright);
  for (int i = 0; i < NE; ++i) CHECK_EQ_AT(back[i], base + i, "%s get", what);
  CHECK_EQ_AT(shmem_ctx_long_g(ctx, &data[1][0], tright), base + 5, "%s g", what);
  const long old = shmem_ctx_long_atomic_fetch_add(ctx, &fetch_target, 1, n - 1);
  CHECK(old >= 0 && old < n);
  CHECK_EQ(shmem_team_sync(team), 0);
  const int wlast = shmem_team_translate_pe(team, n - 1, SHMEM_TEAM_WORLD);
  if (me == wlast) CHECK_EQ_AT(fetch_target, n, "%s fetch_add on team PE %d (world PE %d)", what, n - 1, wlast);
  /* put_signal to the team-relative neighbour */
  sig = 0;
  CHECK_EQ(shmem_team_sync(team), 0);
  shmem_ctx_long_put_signal(ctx, data[2], src, NE, &sig, (uint64_t)me + 1, SHMEM_SIGNAL_SET, tright);
  shmem_signal_wait_until(&sig, SHMEM_CMP_NE, 0);
  CHECK_EQ_AT(sig, (uint64_t)wleft + 1, "%s put_signal signal from world PE", what);
  for (int i = 0; i < NE; ++i) CHECK_EQ_AT(data[2][i], lbase + i, "%s put_signal data", what);
  /* fence ordering on the team context (not promised for stores under NOSTORE) */
  if (!(options & SHMEM_CTX_NOSTORE)) {
    ordered_flag = 0;
    CHECK_EQ(shmem_team_sync(team), 0);
    shmem_ctx_long_put(ctx, ordered_data, src, NE, tright);
    shmem_ctx_fence(ctx);
    shmem_ctx_long_atomic_set(ctx, &ordered_flag, 1, tright);
    shmem_long_wait_until(&ordered_flag, SHMEM_CMP_EQ, 1);
    for (int i = 0; i < NE; ++i) CHECK_EQ_AT(ordered_data[i], lbase + i, "%s fence", what);
  }
  shmem_ctx_quiet(ctx);
  CHECK_EQ(shmem_team_sync(team), 0);
  if (me == wroot) counter = 0;
  if (me == wlast) fetch_target = 0;
  CHECK_EQ(shmem_team_sync(team), 0);
  shmem_ctx_destroy(ctx);
}

static void test_team_ctx(void) {
  shmem_team_config_t cfg = {0};
  cfg.num_contexts = 2;
  /* Reversed, every other PE from the top: team PE i = world PE npes-1-2i. */
  shmem_team_t rev = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -2, (npes + 1) / 2, &cfg, SHMEM_TEAM_NUM_CONTEXTS,
                                    &rev),
           0);
  if (rev != SHMEM_TEAM_INVALID) {
    CHECK_EQ(shmem_team_my_pe(rev), (npes - 1 - me) / 2);
    exercise_team_ctx(rev, 0, 30, "reversed stride -2");
    exercise_team_ctx(rev, SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED, 31, "reversed stride -2, private");
  }
  shmem_barrier_all();
  /* Offset subset: world PEs 1..npes-1 (PE 0 alone at 1 PE). */
  const int start = npes > 1 ? 1 : 0;
  shmem_team_t sub = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, 1, npes - start, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &sub),
           0);
  if (sub != SHMEM_TEAM_INVALID) exercise_team_ctx(sub, 0, 32, "offset subset");
  shmem_barrier_all();
  /* 2-D columns with xrange 2. */
  shmem_team_t xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &xt, &cfg,
                               SHMEM_TEAM_NUM_CONTEXTS, &yt),
           0);
  exercise_team_ctx(yt, SHMEM_CTX_NOSTORE, 33, "2-D column");
  shmem_barrier_all();
  exercise_team_ctx(xt, 0, 34, "2-D row");
  shmem_barrier_all();
  /* A context on SHMEM_TEAM_WORLD and on SHMEM_TEAM_SHARED behaves like WORLD numbering. */
  shmem_ctx_t wctx = SHMEM_CTX_INVALID;
  CHECK_EQ(shmem_team_create_ctx(SHMEM_TEAM_WORLD, 0, &wctx), 0);
  check_get_team(wctx, SHMEM_TEAM_WORLD, "team_create_ctx(WORLD)");
  exercise_world_ctx(wctx, 0, 35);
  shmem_ctx_destroy(wctx);
  shmem_ctx_t sctx = SHMEM_CTX_INVALID;
  CHECK_EQ(shmem_team_create_ctx(SHMEM_TEAM_SHARED, 0, &sctx), 0);
  check_get_team(sctx, SHMEM_TEAM_SHARED, "team_create_ctx(SHARED)");
  if (shmem_team_n_pes(SHMEM_TEAM_SHARED) == npes) exercise_world_ctx(sctx, 0, 36);
  shmem_ctx_destroy(sctx);
  /* Across hosts SHARED is this host's PEs, numbered within it. */
  if (shmem_team_n_pes(SHMEM_TEAM_SHARED) != npes) exercise_team_ctx(SHMEM_TEAM_SHARED, 0, 36, "SHARED (this host)");
  /* team_create_ctx on SHMEM_TEAM_INVALID: nonzero and SHMEM_CTX_INVALID. */
  shmem_ctx_t bad = SHMEM_CTX_DEFAULT;
  CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &bad) != 0);
  CHECK(bad == SHMEM_CTX_INVALID);
  /* Invalid options on a team: nonzero. */
  if (rev != SHMEM_TEAM_INVALID) {
    shmem_ctx_t c = SHMEM_CTX_INVALID;
    CHECK(shmem_team_create_ctx(rev, 1L << 12, &c) != 0);
  }
  shmem_barrier_all();
  shmem_team_destroy(rev);
  shmem_team_destroy(sub);
  shmem_team_destroy(xt);
  shmem_team_destroy(yt);
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  if (npes > 64) {
    shmem_finalize();
    return 1;
  }
  test_ctx_create();
  test_team_ctx();
  return check_finish("coll_ctx");
}
