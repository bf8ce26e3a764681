/*
 * coll_team_lifecycle.c - teams are created and destroyed many times without running out of
 * anything, and running out of teams fails cleanly.
 *
 *  1. 300 cycles of split_strided + split_2d + a context on the new team (some left for the
 *     team's destroy to destroy) + team_sync + destroy,
 *     each cycle checking the new teams' numbering, a reduction-free sync ring, and 1-3 small
 *     reductions and fcollects (pushed through the team slot's lines, which a destroyed team
 *     must leave clean for the next team in its slot).
 *  2. Up to 200 live teams: creation must eventually fail (the library has a fixed number of
 *     team slots) with a nonzero return and SHMEM_TEAM_INVALID on every PE, at the same
 *     attempt on every PE, and keep failing; split_2d must fail cleanly too. After destroying
 *     every team, creation succeeds again and the new teams work.
 *  3. Slots taken on some PEs only: a team of the even PEs and one of the odd PEs live while
 *     copies of WORLD are created; every copy must get a slot free on every PE (the parent's
 *     agreement, Team::and_words, across hosts too), checked by collectives on all teams,
 *     interleaved.
 */
#include <shmem.h>

#include "check.h"

enum { CYCLES = 300, LIVE_ATTEMPTS = 200 };

static int me, npes;
static long box[2];
static long red_src, red_dst, fc_dst[64];
static int first_failure[64];

static void ring_sync(shmem_team_t t, long tag) {
  const int n = shmem_team_n_pes(t), idx = shmem_team_my_pe(t);
  const int next = shmem_team_translate_pe(t, (idx + 1) % n, SHMEM_TEAM_WORLD);
  for (int r = 0; r < 2; ++r) {
    shmem_long_p(&box[r], tag * 1000 + r * 100 + idx, next);
    shmem_quiet();
    CHECK_EQ(shmem_team_sync(t), 0);
    CHECK_EQ_AT(box[r], tag * 1000 + r * 100 + (idx - 1 + n) % n, "tag %ld", tag);
  }
  CHECK_EQ(shmem_team_sync(t), 0);
}

static void small_collectives(shmem_team_t t, long tag, int calls) {
  const int n = shmem_team_n_pes(t), idx = shmem_team_my_pe(t);
  for (int k = 0; k < calls; ++k) {
    red_src = tag * 100 + k * 10 + idx;
    CHECK_EQ(shmem_long_sum_reduce(t, &red_dst, &red_src, 1), 0);
    CHECK_EQ_AT(red_dst, n * (tag * 100 + k * 10) + (long)n * (n - 1) / 2, "tag %ld call %d", tag, k);
    CHECK_EQ(shmem_long_fcollect(t, fc_dst, &red_src, 1), 0);
    for (int p = 0; p < n && p < 64; ++p) CHECK_EQ_AT(fc_dst[p], tag * 100 + k * 10 + p, "tag %ld call %d", tag, k);
  }
}

static void cycles(void) {
  for (int c = 0; c < CYCLES; ++c) {
    /* Alternate between a copy of WORLD, the upper part, and a reversed team. */
    int start, stride, size;
    switch (c % 3) {
      case 0: start = 0, stride = 1, size = npes; break;
      case 1: start = npes / 2, stride = 1, size = npes - npes / 2; break;
      default: start = npes - 1, stride = -1, size = npes; break;
    }
    shmem_team_config_t cfg = {1};
    shmem_team_t t = SHMEM_TEAM_INVALID;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &t);
    CHECKF(rc == 0, "cycle %d: split_strided returned %d", c, rc);
    const int member = stride > 0 ? (me >= start && me < start + size) : 1;
    if (member) {
      CHECKF(t != SHMEM_TEAM_INVALID, "cycle %d: member got INVALID", c);
      const int expected_idx = stride > 0 ? me - start : start - me;
      CHECK_EQ_AT(shmem_team_my_pe(t), expected_idx, "cycle %d", c);
      CHECK_EQ_AT(shmem_team_n_pes(t), size, "cycle %d", c);
      if (c % 10 == 0) {
        shmem_ctx_t ctx = SHMEM_CTX_INVALID;
        CHECK_EQ(shmem_team_create_ctx(t, 0, &ctx), 0);
        if (ctx != SHMEM_CTX_INVALID) shmem_ctx_destroy(ctx);
      }
      if (c % 10 == 5) { /* left to shmem_team_destroy, which destroys the team's shareable contexts */
        shmem_ctx_t ctx = SHMEM_CTX_INVALID;
        CHECK_EQ(shmem_team_create_ctx(t, 0, &ctx), 0);
        if (ctx != SHMEM_CTX_INVALID) shmem_ctx_quiet(ctx);
      }
      if (t != SHMEM_TEAM_INVALID) {
        ring_sync(t, c);
        small_collectives(t, c, 1 + c % 3);
      }
    } else {
      CHECKF(t == SHMEM_TEAM_INVALID, "cycle %d: non-member got a team", c);
    }
    /* 2-D split of the new team (members only) or of WORLD. */
    shmem_team_t parent = (c % 2 && member) ? t : SHMEM_TEAM_WORLD;
    if (c % 2 == 0 || member) {
      const int pn = shmem_team_n_pes(parent), pidx = shmem_team_my_pe(parent);
      const int xrange = 1 + c % (pn + 1);
      shmem_team_t xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID;
      rc = shmem_team_split_2d(parent, xrange, NULL, 0, &xt, NULL, 0, &yt);
      CHECKF(rc == 0, "cycle %d: split_2d(xrange %d) returned %d", c, xrange, rc);
      CHECK_EQ_AT(shmem_team_my_pe(xt), pidx % xrange, "cycle %d", c);
      CHECK_EQ_AT(shmem_team_my_pe(yt), pidx / xrange, "cycle %d", c);
      const int rows = (pn + xrange - 1) / xrange;
      const int row_len = (pidx / xrange == rows - 1) ? pn - (rows - 1) * xrange : xrange;
      const int xr = xrange < pn ? xrange : pn;
      const int col_len = (pn - pidx % xr + xr - 1) / xr;
      CHECK_EQ_AT(shmem_team_n_pes(xt), row_len, "cycle %d", c);
      CHECK_EQ_AT(shmem_team_n_pes(yt), col_len, "cycle %d", c);
      CHECK_EQ(shmem_team_sync(xt), 0);
      CHECK_EQ(shmem_team_sync(yt), 0);
      small_collectives(xt, c + 1000, 1 + (c / 2) % 3);
      small_collectives(yt, c + 2000, 1 + (c / 3) % 3);
      shmem_team_destroy(xt);
      shmem_team_destroy(yt);
    }
    shmem_team_destroy(t);
    if (c % 50 == 49) shmem_barrier_all();
  }
  shmem_barrier_all();
}

static void live_limit(void) {
  static shmem_team_t teams[LIVE_ATTEMPTS];
  int created = 0, failed_at = -1, inconsistent = 0;
  for (int i = 0; i < LIVE_ATTEMPTS; ++i) {
    shmem_team_t t = SHMEM_TEAM_WORLD;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
    if (rc == 0) {
      if (failed_at >= 0) inconsistent = 1; /* succeeded again without any destroy */
      CHECKF(t != SHMEM_TEAM_INVALID, "attempt %d: success but INVALID", i);
      teams[created++] = t;
    } else {
      CHECKF(t == SHMEM_TEAM_INVALID, "attempt %d: failure without SHMEM_TEAM_INVALID", i);
      if (failed_at < 0) failed_at = i;
    }
  }
  CHECKF(!inconsistent, "team creation succeeded again after a failure with no team destroyed");
  CHECKF(failed_at >= 0, "all %d live teams were created: expected the team limit to be reached", LIVE_ATTEMPTS);
  CHECKF(created >= 64, "only %d live teams could be created", created);
  /* Every PE failed at the same attempt. */
  shmem_int_p(&first_failure[me], failed_at, 0);
  shmem_barrier_all();
  if (me == 0)
    for (int p = 1; p < npes; ++p) CHECK_EQ_AT(first_failure[p], first_failure[0], "PE %d vs PE 0", p);
  /* At the limit, split_2d fails cleanly as well. */
  shmem_team_t xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;
  int rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &xt, NULL, 0, &yt);
  CHECKF(rc != 0, "split_2d at the team limit returned 0");
  CHECK(xt == SHMEM_TEAM_INVALID || rc == 0);
  CHECK(yt == SHMEM_TEAM_INVALID || rc == 0);
  if (rc == 0) {
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
  }
  /* The live teams still work: sync on the last and the first. */
  if (created) {
    CHECK_EQ(shmem_team_sync(teams[created - 1]), 0);
    CHECK_EQ(shmem_team_sync(teams[0]), 0);
    ring_sync(teams[created / 2], 7);
  }
  /* Destroy in an order that is neither creation nor reverse order. */
  for (int i = 0; i < created; i += 2) shmem_team_destroy(teams[i]);
  for (int i = 1; i < created; i += 2) shmem_team_destroy(teams[i]);
  shmem_barrier_all();
  /* Creation works again, as many times as before. */
  int again = 0;
  for (int i = 0; i < created; ++i) {
    shmem_team_t t = SHMEM_TEAM_INVALID;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &t) == 0) teams[again++] = t;
  }
  CHECK_EQ(again, created);
  if (again) {
    CHECK_EQ(shmem_team_my_pe(teams[again - 1]), npes - 1 - me);
    ring_sync(teams[again - 1], 8);
  }
  for (int i = again - 1; i >= 0; --i) shmem_team_destroy(teams[i]);
  xt = yt = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &xt, NULL, 0, &yt), 0);
  CHECK_EQ(shmem_team_my_pe(xt), me % 2);
  CHECK_EQ(shmem_team_my_pe(yt), me / 2);
  shmem_team_destroy(xt);
  shmem_team_destroy(yt);
  shmem_barrier_all();
}

static void partial_slots(void) {
  if (npes < 2) return;
  shmem_team_t evens = SHMEM_TEAM_INVALID, odds = SHMEM_TEAM_INVALID, copies[3];
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens), 0);
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odds), 0);
  shmem_team_t half = me % 2 ? odds : evens;
  CHECKF(half != SHMEM_TEAM_INVALID, "PE %d: not in its half", me);
  CHECKF((me % 2 ? evens : odds) == SHMEM_TEAM_INVALID, "PE %d: in the other half", me);
  for (int i = 0; i < 3; ++i) {
    copies[i] = SHMEM_TEAM_INVALID;
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &copies[i]), 0);
    CHECK_EQ(shmem_team_my_pe(copies[i]), me);
  }
  for (int round = 0; round < 4; ++round) {
    small_collectives(half, 3000 + round, 1);
    for (int i = 0; i < 3; ++i) {
      ring_sync(copies[i], 4000 + 10 * round + i);
      small_collectives(copies[i], 5000 + 10 * round + i, 2);
    }
  }
  for (int i = 0; i < 3; ++i) shmem_team_destroy(copies[i]);
  shmem_team_destroy(half);
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  cycles();
  live_limit();
  partial_slots();
  return check_finish("coll_team_lifecycle");
}
