/*
 * pe_scale_check.c - what a big job must be able to do at all (tests/hosts/big_host_tls.sh):
 * initialise, count with an atomic on PE 0 (every PE adds 1), reduce (sum of the PE numbers),
 * synchronise, and finish. PE 0 prints one line with the values it checked.
 */
#include "check.h"

static long counter;
static long mine, total;

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  shmem_long_atomic_add(&counter, 1, 0);
  shmem_barrier_all();
  if (me == 0) CHECK_EQ(shmem_long_atomic_fetch(&counter, 0), (long)n);
  mine = me;
  CHECK_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &total, &mine, 1), 0);
  CHECK_EQ(total, (long)n * (n - 1) / 2);
  if (me == 0) printf("pe_scale_check: %d PEs, counter %ld, sum %ld\n", n, counter, total);
  return check_finish("pe_scale_check");
}
