/*
 * pe_ring.c - a job whose PEs talk only to their ring neighbours: each puts its number to the
 * next PE and increments a counter there, then a barrier, and each checks what it got.
 * tests/hosts/boot_scale.sh runs it at two sizes across hosts: the bootstrap store's bytes per
 * PE and the UCX endpoints per PE must not grow with the job (endpoints are made on first use).
 * "pe_ring all": every PE puts its number to every PE instead (each PE then talks to all), and
 * each checks it heard from every PE: the store's bytes per PE must not grow with the job
 * either (peers' transport addresses come from the host's table, core/addr_table.hpp).
 */
#include <string.h>

#include "check.h"

static long from_left = -1, hits;

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
  const int right = (me + 1) % n;
  shmem_long_p(&from_left, me, right);
  shmem_long_atomic_inc(&hits, right);
  shmem_barrier_all(); /* completes both, and orders them before the reads below */
  CHECK_EQ(from_left, (long)((me + n - 1) % n));
  CHECK_EQ(hits, 1L);
  if (me == 0) printf("pe_ring: %d PEs, each heard from its left neighbour\n", n);
  return check_finish("pe_ring");
}
