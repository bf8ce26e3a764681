/*
 * pe_ring.c - a job whose PEs talk only to their ring neighbours: each puts its number to the
 * next PE and increments a counter there, then a barrier, and each checks what it got.
 * tests/hosts/boot_scale.sh runs it at two sizes across hosts: the bootstrap store's bytes per
 * PE and the UCX endpoints per PE must not grow with the job (endpoints are made on first use).
 */
#include "check.h"

static long from_left = -1, hits;

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int right = (me + 1) % n;
  shmem_long_p(&from_left, me, right);
  shmem_long_atomic_inc(&hits, right);
  shmem_barrier_all(); /* completes both, and orders them before the reads below */
  CHECK_EQ(from_left, (long)((me + n - 1) % n));
  CHECK_EQ(hits, 1L);
  if (me == 0) printf("pe_ring: %d PEs, each heard from its left neighbour\n", n);
  return check_finish("pe_ring");
}
