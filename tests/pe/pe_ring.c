/*
 * pe_ring.c - a job whose PEs talk only to their ring neighbours: each puts its number to the
 * next PE and increments a counter there, then a barrier, and each checks what it got.
 * tests/hosts/boot_scale.sh runs it at two sizes across hosts: the bootstrap store's bytes per
 * PE and the UCX endpoints per PE must not grow with the job (endpoints are made on first use).
 * "pe_ring all": every PE puts its number to every PE instead (each PE then talks to all), and
 * each checks it heard from every PE: the store's bytes per PE must not grow with the job
 * either (peers' transport addresses come from the host's table, core/addr_table.hpp).
 * "pe_ring lead K" (K PEs per host, hosts in blocks of K): the ring, then a team of one PE per
 * host (split strided from PE 1, stride K) sums its members' numbers, and an active set of one
 * PE per host (from PE 2, stride K, K a power of two) broadcasts from its first PE. Each PE says
 * whether it led a team or set across hosts; only those, and the world's host leaders, may
 * register their collective area with the transport (tests/hosts/boot_scale.sh counts them).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static long from_left = -1, hits;
static long sum_src, sum_dst, bcast_src, bcast_dst = -1;
static long psync[SHMEM_BCAST_SYNC_SIZE];

/* The team and active-set collectives of "pe_ring lead K" (see above). */
static void lead(int k) {
  const int me = shmem_my_pe(), n = shmem_n_pes(), hosts = n / k;
  CHECK(k >= 3 && n % k == 0 && (k & (k - 1)) == 0 && hosts >= 2);
  shmem_team_t across;
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, k, hosts, NULL, 0, &across), 0);
  if (me % k == 1) {
    sum_src = me;
    CHECK_EQ(shmem_long_sum_reduce(across, &sum_dst, &sum_src, 1), 0);
    long want = 0;
    for (int h = 0; h < hosts; ++h) want += h * k + 1;
    CHECK_EQ(sum_dst, want);
    shmem_team_destroy(across);
  }
  for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;
  bcast_src = 1000 + me;
  shmem_barrier_all(); /* psync is ready everywhere */
  int log_k = 0;
  while ((1 << log_k) < k) ++log_k;
  if (me % k == 2) {
    shmem_broadcast64(&bcast_dst, &bcast_src, 1, 0, 2, log_k, hosts, psync);
    if (me != 2) CHECK_EQ(bcast_dst, 1002L);
  }
  shmem_barrier_all();
  if (me == 0) printf("pe_ring lead: %d PEs, a team and an active set of one PE per host exact\n", n);
}

int main(int argc, char** argv) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  if (argc > 1 && strcmp(argv[1], "all") == 0) {
    long* heard = shmem_calloc((size_t)n, sizeof(long));
    for (int i = 1; i <= n; ++i) shmem_long_p(&heard[me], me + 1, (me + i) % n);
    shmem_barrier_all(); /* completes the puts, and orders them before the reads below */
    for (int pe = 0; pe < n; ++pe) CHECK_EQ(heard[pe], (long)pe + 1);
    shmem_free(heard);
    if (me == 0) printf("pe_ring all: %d PEs, each heard from every PE\n", n);
    return check_finish("pe_ring");
  }
  if (argc > 2 && strcmp(argv[1], "lead") == 0) {
    lead(atoi(argv[2]));
    return check_finish("pe_ring");
  }
  const int right = (me + 1) % n;
  shmem_long_p(&from_left, me, right);
  shmem_long_atomic_inc(&hits, right);
  shmem_barrier_all(); /* completes both, and orders them before the reads below */
  CHECK_EQ(from_left, (long)((me + n - 1) % n));
  CHECK_EQ(hits, 1L);
  if (me == 0) printf("pe_ring: %d PEs, each heard from its left neighbour\n", n);
  return check_finish("pe_ring");
}
