/*
 * pe_scale.c - a job of many PEs (tests/hosts/scale.sh: 257 + 1 PEs on two hosts, 16 hosts x 4):
 * it initialises, counts with an atomic on PE 0, and agrees through collectives on the world
 * team (a sum reduction, a broadcast from the last PE, an fcollect), on a team split from it
 * (every other PE, which spans the hosts too) and on a legacy active set (pSync); each PE checks
 * the values, and PE 0 prints one line.
 */
#include "check.h"

static long counter;
static long pe_src, pe_sum, team_sum, bcast_src, bcast_dst, set_src, set_dst;
static long psync[SHMEM_REDUCE_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  long* all = shmem_malloc(sizeof(long) * (size_t)n);
  for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;

  shmem_long_atomic_inc(&counter, 0);
  pe_src = me + 1;
  bcast_src = 1000 + me;
  shmem_barrier_all(); /* the increments are complete and visible */
  CHECK_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &pe_sum, &pe_src, 1), 0);
  CHECK_EQ(pe_sum, (long)n * (n + 1) / 2);
  CHECK_EQ(shmem_long_broadcast(SHMEM_TEAM_WORLD, &bcast_dst, &bcast_src, 1, n - 1), 0);
  CHECK_EQ(bcast_dst, 1000L + n - 1);
  CHECK_EQ(shmem_long_fcollect(SHMEM_TEAM_WORLD, all, &pe_src, 1), 0);
  long bad = 0;
  for (int i = 0; i < n; ++i) bad += all[i] != i + 1;
  CHECK_EQ(bad, 0L);

  /* Every other PE: a team that also spans both hosts. */
  shmem_team_t evens = SHMEM_TEAM_INVALID;
  const int n_evens = (n + 1) / 2;
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, n_evens, NULL, 0, &evens), 0);
  if (me % 2 == 0) {
    CHECK_EQ(shmem_long_sum_reduce(evens, &team_sum, &pe_src, 1), 0);
    CHECK_EQ(team_sum, (long)n_evens * n_evens); /* 1 + 3 + 5 + ... */
    shmem_team_destroy(evens);
  }

  /* The same sum over the world as a legacy active set (the active-set channel). */
  set_src = me + 1;
  shmem_long_sum_to_all(&set_dst, &set_src, 1, 0, 0, n, pwrk, psync);
  CHECK_EQ(set_dst, (long)n * (n + 1) / 2);

  shmem_barrier_all();
  if (me == 0) CHECK_EQ(shmem_long_atomic_fetch(&counter, 0), (long)n);
  if (me == 0) printf("pe_scale: %d PEs, the counter and every collective exact\n", n);
  shmem_free(all);
  return check_finish("pe_scale");
}
