/*
 * coll_mismatch.c - PEs that call collectives which cannot meet (run through
 * tests/support/expect_run.sh by tests/coll/mismatch.cmake): the job must end with one message
 * naming each PE's call and its arguments (SHMEM_COLL_CHECK_AFTER, or SHMEM_DEBUG=1 at once).
 *   routine   PE 0 in shmem_long_sum_reduce, the others in shmem_barrier_all
 *   count     the last PE reduces 8 elements, the others 4
 *   root      the last PE broadcasts from PE_root 1, the others from 0
 *   team      PE 0 in shmem_barrier_all, the others in shmem_team_sync of a team of every PE
 *   teams     two copies of WORLD, A and B: PE 0 syncs A then B, the others B then A
 *   malloc    PE 0 in shmem_malloc(64), the others in shmem_long_sum_reduce on WORLD
 *   split     PE 0 in shmem_team_split_strided on WORLD, the others in shmem_long_sum_reduce
 *   set       PE 0 in the active-set shmem_barrier of every PE, the others in shmem_team_sync(WORLD)
 *   split_args PE 0 splits WORLD as (0, 1, n), the others as (1, 1, n-1): every PE's split must
 *             fail at once naming both (it returns, so this mode ends normally: exit 0)
 *   slow      agreeing calls, the last PE arrives late: must not be reported (exit 0)
 *   teams_slow A then B on every PE, the last PE late to B: must not be reported (exit 0)
 * Each mismatch mode prints "NOT STOPPED" if the calls return.
 */
#include <shmem.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#if defined(__GNUC__)
/* The active-set barrier is deprecated; a program mixing it with team calls is the point. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

static long dest[8];
static long source[8];
static long psync[SHMEM_BARRIER_SYNC_SIZE];

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  shmem_init();
  const int me = shmem_my_pe();
  const int last = shmem_n_pes() - 1;
  for (int i = 0; i < 8; ++i) source[i] = me + i;
  shmem_barrier_all();
  if (strcmp(mode, "routine") == 0) {
    if (me == 0)
      shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dest, source, 4);
    else
      shmem_barrier_all();
  } else if (strcmp(mode, "count") == 0) {
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dest, source, me == last ? 8 : 4);
    shmem_barrier_all();
  } else if (strcmp(mode, "root") == 0) {
    shmem_long_broadcast(SHMEM_TEAM_WORLD, dest, source, 4, me == last ? 1 : 0);
    shmem_barrier_all();
  } else if (strcmp(mode, "team") == 0) {
    shmem_team_t all = SHMEM_TEAM_INVALID;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, last + 1, NULL, 0, &all) != 0) return 3;
    if (me == 0)
      shmem_barrier_all();
    else
      shmem_team_sync(all);
  } else if (strcmp(mode, "teams") == 0) {
    shmem_team_t a = SHMEM_TEAM_INVALID, b = SHMEM_TEAM_INVALID;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, last + 1, NULL, 0, &a) != 0) return 3;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, last + 1, NULL, 0, &b) != 0) return 3;
    shmem_team_sync(me == 0 ? a : b);
    shmem_team_sync(me == 0 ? b : a);
  } else if (strcmp(mode, "malloc") == 0) {
    if (me == 0)
      (void)shmem_malloc(64);
    else
      shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dest, source, 4);
  } else if (strcmp(mode, "split") == 0) {
    shmem_team_t t = SHMEM_TEAM_INVALID;
    if (me == 0)
      (void)shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, last + 1, NULL, 0, &t);
    else
      shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dest, source, 4);
  } else if (strcmp(mode, "split_args") == 0) {
    shmem_team_t t = SHMEM_TEAM_INVALID;
    const int rc = me == 0 ? shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, last + 1, NULL, 0, &t)
                           : shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, last, NULL, 0, &t);
    CHECK(rc != 0 && t == SHMEM_TEAM_INVALID);
    shmem_team_t all = SHMEM_TEAM_INVALID; /* agreeing splits work afterwards */
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, last + 1, NULL, 0, &all) == 0);
    shmem_long_sum_reduce(all, dest, source, 1);
    CHECK_EQ(dest[0], (long)last * (last + 1) / 2);
    return check_finish("coll_mismatch split_args");
  } else if (strcmp(mode, "set") == 0) {
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    if (me == 0)
      shmem_barrier(0, 0, last + 1, psync);
    else
      shmem_team_sync(SHMEM_TEAM_WORLD);
  } else if (strcmp(mode, "teams_slow") == 0) {
    shmem_team_t a = SHMEM_TEAM_INVALID, b = SHMEM_TEAM_INVALID;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, last + 1, NULL, 0, &a) != 0) return 3;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, last + 1, NULL, 0, &b) != 0) return 3;
    shmem_long_sum_reduce(a, dest, source, 4);
    CHECK_EQ(dest[0], (long)last * (last + 1) / 2);
    if (me == last) sleep(3); /* the others wait in B for it */
    shmem_long_sum_reduce(b, dest, source, 2);
    CHECK_EQ(dest[1], (long)(last + 1) + (long)last * (last + 1) / 2);
    shmem_team_sync(a);
    return check_finish("coll_mismatch teams_slow");
  } else if (strcmp(mode, "slow") == 0) {
    /* The last PE computes (sleeps) past the check's bound, then makes the same calls. */
    if (me == last) sleep(3);
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dest, source, 4);
    CHECK_EQ(dest[0], (long)last * (last + 1) / 2);
    if (me == last) sleep(3);
    shmem_barrier_all();
    return check_finish("coll_mismatch slow");
  } else {
    return 2;
  }
  printf("PE %d: NOT STOPPED\n", me);
  shmem_finalize();
  return 0;
}
