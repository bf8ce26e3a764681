/*
 * coll_teams.c - team management: the predefined teams, shmem_team_split_strided (positive,
 * negative and zero strides, start offsets, invalid triplets), shmem_team_split_2d (including a
 * ragged last row and xrange > npes), nested splits, translate_pe, my_pe/n_pes, get_config,
 * team_sync and team_ptr. Every team is checked against the membership computed here from the
 * spec's formulas; team_sync is exercised with a put ring whose values must be exact.
 *
 * Run with any number of PEs (registered at 1, 2, 3, 4 and 8).
 */
#include <shmem.h>

#include "check.h"

enum { MAX_PES = 64 };

typedef struct {
  int n;
  int world[MAX_PES];
} PeList;

static int me, npes;

/* Ring mailboxes for exercise_sync; one pair per "lane" so that a PE exercising two teams
 * (2-D rows and columns) never shares a mailbox between them. */
static long ring[4][2];
static long probe;

static int index_in(const PeList* l, int world_pe) {
  for (int i = 0; i < l->n; ++i)
    if (l->world[i] == world_pe) return i;
  return -1;
}

/* The PEs of parent (given as world PEs) selected by the triplet, or n = -1 if invalid per the
 * spec (start + stride*i must lie in [0, N) for all i < size; size > 0; stride 0 only with
 * size 1). */
static PeList triplet(const PeList* parent, int start, int stride, int size) {
  PeList out = {0, {0}};
  if (size <= 0 || (stride == 0 && size != 1) || size > MAX_PES) {
    out.n = -1;
    return out;
  }
  for (int i = 0; i < size; ++i) {
    long long p = start + (long long)stride * i;
    if (p < 0 || p >= parent->n) {
      out.n = -1;
      return out;
    }
    out.world[out.n++] = parent->world[p];
  }
  return out;
}

static PeList world_list(void) {
  PeList l = {npes, {0}};
  for (int i = 0; i < npes; ++i) l.world[i] = i;
  return l;
}

/* SHMEM_TEAM_SHARED as it must be: the PEs whose memory this PE maps (its host's PEs), in
 * world order; on one host that is every PE. */
static PeList shared_list(void) {
  PeList l = {0, {0}};
  for (int i = 0; i < npes; ++i)
    if (shmem_ptr(&probe, i) != NULL) l.world[l.n++] = i;
  return l;
}

/* Each member puts a tagged value to the next member; after quiet + team_sync every member must
 * see exactly its predecessor's value. Two alternating mailboxes make one sync per round enough. */
static void exercise_sync(shmem_team_t t, const PeList* exp, int lane, long tag) {
  const int idx = index_in(exp, me), n = exp->n;
  const int next = exp->world[(idx + 1) % n];
  const int prev_idx = (idx - 1 + n) % n;
  for (int r = 0; r < 6; ++r) {
    shmem_long_p(&ring[lane][r % 2], tag * 100000 + r * 100 + idx, next);
    shmem_quiet();
    CHECK_EQ(shmem_team_sync(t), 0);
    CHECK_EQ_AT(ring[lane][r % 2], tag * 100000 + r * 100 + prev_idx, "tag %ld round %d", tag, r);
  }
  CHECK_EQ(shmem_team_sync(t), 0);
}

/* Checks handle t (as seen by this PE) against the expected membership exp. */
static void check_team(shmem_team_t t, const PeList* exp, int lane, long tag, const char* what) {
  const int idx = index_in(exp, me);
  if (idx < 0) {
    CHECKF(t == SHMEM_TEAM_INVALID, "%s: non-member PE %d did not get SHMEM_TEAM_INVALID", what, me);
    return;
  }
  CHECKF(t != SHMEM_TEAM_INVALID, "%s: member PE %d got SHMEM_TEAM_INVALID", what, me);
  if (t == SHMEM_TEAM_INVALID) return;
  CHECK_EQ_AT(shmem_team_my_pe(t), idx, "%s", what);
  CHECK_EQ_AT(shmem_team_n_pes(t), exp->n, "%s", what);
  for (int i = 0; i < exp->n; ++i) {
    CHECK_EQ_AT(shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD), exp->world[i], "%s: team PE %d -> world", what, i);
    CHECK_PTR_EQ(shmem_team_ptr(t, &probe, i), shmem_ptr(&probe, exp->world[i]));
  }
  for (int w = 0; w < npes; ++w)
    CHECK_EQ_AT(shmem_team_translate_pe(SHMEM_TEAM_WORLD, w, t), index_in(exp, w), "%s: world PE %d -> team", what, w);
  CHECK_EQ_AT(shmem_team_translate_pe(t, exp->n, SHMEM_TEAM_WORLD), -1, "%s: PE past the end", what);
  CHECK_EQ_AT(shmem_team_translate_pe(t, -1, SHMEM_TEAM_WORLD), -1, "%s: negative PE", what);
  CHECK_EQ_AT(shmem_team_translate_pe(t, 0, SHMEM_TEAM_INVALID), -1, "%s: to INVALID", what);
  CHECK_PTR_EQ(shmem_team_ptr(t, &probe, idx), &probe);
  exercise_sync(t, exp, lane, tag);
}

static void test_predefined(void) {
  CHECK(SHMEM_TEAM_WORLD != SHMEM_TEAM_INVALID);
  CHECK(SHMEM_TEAM_SHARED != SHMEM_TEAM_INVALID);
  CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_WORLD), me);
  CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), npes);
  /* SHARED: this host's PEs (every PE when the job runs on one host). */
  const PeList sh = shared_list();
  CHECK(sh.n >= 1 && index_in(&sh, me) >= 0);
  CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_SHARED), sh.n);
  CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_SHARED), index_in(&sh, me));
  CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_INVALID), -1);
  CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_INVALID), -1);
  CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD), -1);
  CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID), -1);
  CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, npes, SHMEM_TEAM_WORLD), -1);
  for (int p = 0; p < npes; ++p) {
    CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, p, SHMEM_TEAM_SHARED), index_in(&sh, p));
    CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, p, SHMEM_TEAM_WORLD), p);
    if (index_in(&sh, p) >= 0) CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, &probe, p) != NULL);
    CHECK_PTR_EQ(shmem_team_ptr(SHMEM_TEAM_WORLD, &probe, p), shmem_ptr(&probe, p));
  }
  for (int q = 0; q < sh.n; ++q) {
    CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_SHARED, q, SHMEM_TEAM_WORLD), sh.world[q]);
    CHECK_PTR_EQ(shmem_team_ptr(SHMEM_TEAM_SHARED, &probe, q), shmem_ptr(&probe, sh.world[q]));
  }
  CHECK_PTR_EQ(shmem_team_ptr(SHMEM_TEAM_WORLD, &probe, me), &probe);
  shmem_team_config_t cfg;
  cfg.num_contexts = 12345;
  CHECK_EQ(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
  CHECK(cfg.num_contexts >= 0);
  /* With an empty mask nothing is read back, so the field keeps its value. */
  cfg.num_contexts = 777;
  CHECK_EQ(shmem_team_get_config(SHMEM_TEAM_WORLD, 0, &cfg), 0);
  CHECK_EQ(cfg.num_contexts, 777);
  PeList w = world_list();
  check_team(SHMEM_TEAM_WORLD, &w, 0, 1, "WORLD");
  shmem_barrier_all();
  check_team(SHMEM_TEAM_SHARED, &sh, 0, 2, "SHARED");
  shmem_barrier_all();
}

/* Splits parent (whose members are parent_list) with the triplet and checks the result; returns
 * the new team for further use (the caller destroys it). */
static shmem_team_t split_and_check(shmem_team_t parent, const PeList* parent_list, int start, int stride,
                                    int size, long tag, const char* what) {
  PeList exp = triplet(parent_list, start, stride, size);
  shmem_team_t t = SHMEM_TEAM_WORLD; /* must be overwritten */
  shmem_team_config_t cfg = {0};
  int rc = shmem_team_split_strided(parent, start, stride, size, &cfg, 0, &t);
  char label[160];
  snprintf(label, sizeof label, "%s (start %d, stride %d, size %d of %d)", what, start, stride, size, parent_list->n);
  if (exp.n < 0) {
    CHECKF(rc != 0, "%s: invalid triplet accepted", label);
    CHECKF(t == SHMEM_TEAM_INVALID, "%s: invalid triplet did not give SHMEM_TEAM_INVALID", label);
    return SHMEM_TEAM_INVALID;
  }
  CHECKF(rc == 0, "%s: returned %d", label, rc);
  check_team(t, &exp, 1, tag, label);
  return t;
}

static void test_split_strided(void) {
  PeList w = world_list();
  const int half_up = (npes + 1) / 2, half_down = npes / 2;
  struct {
    int start, stride, size;
  } valid[] = {
      {0, 1, npes},                  /* a copy of WORLD */
      {0, 2, half_up},               /* evens */
      {1, 2, half_down},             /* odds (size 0: invalid at 1 PE) */
      {npes - 1, -1, npes},          /* reversed */
      {npes - 1, -2, half_up},       /* every other PE from the top, reversed */
      {npes - 1, 0, 1},              /* zero stride: one PE */
      {0, 0, 1},                     /* zero stride at 0 */
      {npes / 2, 1, npes - npes / 2}, /* the upper half (start offset) */
      {1, 3, (npes + 1) / 3},        /* 1, 4, 7, ... */
      {npes - 2, -3, (npes + 1) / 3}, /* negative stride with an offset start */
      {npes - 1, npes, 1},           /* stride larger than the team, one PE */
  };
  for (size_t k = 0; k < sizeof valid / sizeof valid[0]; ++k) {
    shmem_team_t t = split_and_check(SHMEM_TEAM_WORLD, &w, valid[k].start, valid[k].stride, valid[k].size,
                                     (long)(10 + k), "split_strided(WORLD)");
    shmem_team_destroy(t);
    shmem_barrier_all();
  }
  /* Invalid triplets: nonzero and SHMEM_TEAM_INVALID on every PE. */
  struct {
    int start, stride, size;
  } invalid[] = {
      {0, 1, 0},            /* size 0 */
      {0, 1, -1},           /* negative size */
      {0, 1, npes + 1},     /* runs past the end */
      {-1, 1, 1},           /* negative start */
      {npes, 1, 1},         /* start past the end */
      {1, 1, npes},         /* would wrap around */
      {0, -1, 2},           /* negative stride from the lowest PE: below 0 */
      {0, 0, 2},            /* zero stride needs size 1 */
      {npes - 1, 2, 2},     /* past the end */
  };
  for (size_t k = 0; k < sizeof invalid / sizeof invalid[0]; ++k) {
    shmem_team_t t = split_and_check(SHMEM_TEAM_WORLD, &w, invalid[k].start, invalid[k].stride, invalid[k].size,
                                     (long)(30 + k), "invalid split_strided(WORLD)");
    CHECK(t == SHMEM_TEAM_INVALID);
    shmem_barrier_all();
  }
  /* An invalid parent: nonzero and SHMEM_TEAM_INVALID (not collective). */
  shmem_team_t t = SHMEM_TEAM_WORLD;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) != 0);
  CHECK(t == SHMEM_TEAM_INVALID);
  /* Splitting SHARED (reversed): a team within this host. */
  const PeList sh = shared_list();
  t = split_and_check(SHMEM_TEAM_SHARED, &sh, sh.n - 1, -1, sh.n, 50, "split_strided(SHARED)");
  shmem_team_destroy(t);
  shmem_barrier_all();
  /* Destroying SHMEM_TEAM_INVALID does nothing. */
  shmem_team_destroy(SHMEM_TEAM_INVALID);
}

/* Expected 2-D split of parent_list: rows are xteams, columns yteams. */
static void expected_2d(const PeList* parent, int xrange, int my_idx, PeList* row, PeList* col) {
  const int n = parent->n;
  const int x = my_idx % xrange, y = my_idx / xrange;
  row->n = col->n = 0;
  for (int p = 0; p < n; ++p) {
    if (p / xrange == y) row->world[row->n++] = parent->world[p];
    if (p % xrange == x) col->world[col->n++] = parent->world[p];
  }
}

static void split_2d_and_check(shmem_team_t parent, const PeList* parent_list, int xrange, long tag, const char* what) {
  const int idx = index_in(parent_list, me);
  if (idx < 0) return;
  shmem_team_t xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;
  shmem_team_config_t xc = {0}, yc = {0};
  xc.num_contexts = 2;
  yc.num_contexts = 3;
  int rc = shmem_team_split_2d(parent, xrange, &xc, SHMEM_TEAM_NUM_CONTEXTS, &xt, &yc, 0, &yt);
  char label[160];
  snprintf(label, sizeof label, "%s (xrange %d of %d)", what, xrange, parent_list->n);
  CHECKF(rc == 0, "%s: returned %d", label, rc);
  if (rc != 0) return;
  PeList row, col;
  expected_2d(parent_list, xrange, idx, &row, &col);
  CHECK_EQ_AT(shmem_team_my_pe(xt), idx % xrange, "%s: x coordinate", label);
  CHECK_EQ_AT(shmem_team_my_pe(yt), idx / xrange, "%s: y coordinate", label);
  char xl[200], yl[200];
  snprintf(xl, sizeof xl, "%s xteam", label);
  snprintf(yl, sizeof yl, "%s yteam", label);
  check_team(xt, &row, 2, tag, xl);
  check_team(yt, &col, 3, tag + 1, yl);
  shmem_team_config_t cfg;
  cfg.num_contexts = -1;
  CHECK_EQ(shmem_team_get_config(xt, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
  CHECK_EQ_AT(cfg.num_contexts, 2, "%s", xl);
  cfg.num_contexts = -1;
  CHECK_EQ(shmem_team_get_config(yt, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
  CHECK_EQ_AT(cfg.num_contexts, 0, "%s (mask 0: the default)", yl);
  /* Rows and columns relate through the parent: translate between them. */
  for (int i = 0; i < row.n; ++i) {
    const int in_col = index_in(&col, row.world[i]);
    CHECK_EQ_AT(shmem_team_translate_pe(xt, i, yt), in_col, "%s: row PE %d -> column", label, i);
  }
  /* Every row splits itself (reversed) at the same time as the other rows: the new teams of
   * different rows are created concurrently and must not interfere. */
  shmem_team_t rrev = split_and_check(xt, &row, row.n - 1, -1, row.n, tag + 2, "reversed row");
  shmem_team_destroy(rrev);
  shmem_team_destroy(xt);
  shmem_team_destroy(yt);
}

static void test_split_2d(void) {
  PeList w = world_list();
  const int xranges[] = {1, 2, 3, npes, npes + 3};
  for (size_t k = 0; k < sizeof xranges / sizeof xranges[0]; ++k) {
    split_2d_and_check(SHMEM_TEAM_WORLD, &w, xranges[k], (long)(60 + 2 * k), "split_2d(WORLD)");
    shmem_barrier_all();
  }
  /* xrange 0 cannot describe a grid: nonzero, both teams INVALID. */
  shmem_team_t xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;
  CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &xt, NULL, 0, &yt) != 0);
  CHECK(xt == SHMEM_TEAM_INVALID);
  CHECK(yt == SHMEM_TEAM_INVALID);
  shmem_barrier_all();
  /* An invalid parent: both INVALID. */
  xt = yt = SHMEM_TEAM_WORLD;
  CHECK(shmem_team_split_2d(SHMEM_TEAM_INVALID, 2, NULL, 0, &xt, NULL, 0, &yt) != 0);
  CHECK(xt == SHMEM_TEAM_INVALID);
  CHECK(yt == SHMEM_TEAM_INVALID);
  shmem_barrier_all();
}

/* Splits of splits: evens -> (drop the first) and evens -> 2-D; reversed -> strided. */
static void test_nested(void) {
  PeList w = world_list();
  const int half_up = (npes + 1) / 2;
  shmem_team_t evens = split_and_check(SHMEM_TEAM_WORLD, &w, 0, 2, half_up, 80, "evens");
  PeList evens_list = triplet(&w, 0, 2, half_up);
  if (evens != SHMEM_TEAM_INVALID) {
    if (half_up > 1) {
      shmem_team_t sub = split_and_check(evens, &evens_list, 1, 1, half_up - 1, 81, "evens minus the first");
      PeList sub_list = triplet(&evens_list, 1, 1, half_up - 1);
      if (sub != SHMEM_TEAM_INVALID) {
        /* translate sub -> evens and evens -> sub */
        for (int i = 0; i < sub_list.n; ++i)
          CHECK_EQ(shmem_team_translate_pe(sub, i, evens), index_in(&evens_list, sub_list.world[i]));
        for (int i = 0; i < evens_list.n; ++i)
          CHECK_EQ(shmem_team_translate_pe(evens, i, sub), index_in(&sub_list, evens_list.world[i]));
        /* A third level: reversed. */
        shmem_team_t rev = split_and_check(sub, &sub_list, sub_list.n - 1, -1, sub_list.n, 82, "reversed(evens minus first)");
        shmem_team_destroy(rev);
      }
      shmem_team_destroy(sub);
    }
    split_2d_and_check(evens, &evens_list, 2, 84, "split_2d(evens)");
    /* Invalid triplet against the smaller parent. */
    shmem_team_t bad = split_and_check(evens, &evens_list, 0, 1, half_up + 1, 86, "invalid split of evens");
    CHECK(bad == SHMEM_TEAM_INVALID);
  }
  shmem_team_destroy(evens);
  shmem_barrier_all();
  /* Reversed WORLD, then every other PE of it. */
  shmem_team_t rev = split_and_check(SHMEM_TEAM_WORLD, &w, npes - 1, -1, npes, 90, "reversed");
  PeList rev_list = triplet(&w, npes - 1, -1, npes);
  shmem_team_t sub = split_and_check(rev, &rev_list, 1, 2, npes / 2, 91, "odd positions of reversed");
  if (sub != SHMEM_TEAM_INVALID) {
    PeList sub_list = triplet(&rev_list, 1, 2, npes / 2);
    for (int i = 0; i < sub_list.n; ++i) {
      CHECK_EQ(shmem_team_translate_pe(sub, i, rev), 1 + 2 * i);
      CHECK_EQ(shmem_team_translate_pe(sub, i, SHMEM_TEAM_WORLD), npes - 2 - 2 * i);
    }
  }
  shmem_team_destroy(sub);
  split_2d_and_check(rev, &rev_list, 3, 92, "split_2d(reversed)");
  shmem_team_destroy(rev);
  shmem_barrier_all();
}

/* Configuration: num_contexts is kept when its mask bit is given, default 0 otherwise. */
static void test_config(void) {
  PeList w = world_list();
  shmem_team_config_t cfg = {0};
  cfg.num_contexts = 4;
  shmem_team_t a = SHMEM_TEAM_INVALID, b = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &a), 0);
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &cfg, 0, &b), 0);
  shmem_team_config_t got;
  got.num_contexts = -1;
  CHECK_EQ(shmem_team_get_config(a, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
  CHECK_EQ(got.num_contexts, 4);
  got.num_contexts = -1;
  CHECK_EQ(shmem_team_get_config(b, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
  CHECK_EQ(got.num_contexts, 0);
  /* A NULL config with mask 0 is allowed (the defaults). */
  shmem_team_t c = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &c), 0);
  check_team(c, &w, 1, 95, "NULL config");
  shmem_team_destroy(a);
  shmem_team_destroy(b);
  shmem_team_destroy(c);
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  if (npes > MAX_PES) {
    if (me == 0) fprintf(stderr, "coll_teams: at most %d PEs\n", MAX_PES);
    shmem_finalize();
    return 1;
  }
  test_predefined();
  test_split_strided();
  test_split_2d();
  test_nested();
  test_config();
  return check_finish("coll_teams");
}
