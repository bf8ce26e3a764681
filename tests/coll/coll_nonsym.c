/*
 * coll_nonsym.c ROUTINE ARG [NELEMS] - a collective called by every PE with one buffer that is
 * not symmetric (a stack array) as ARG (dest or source); the other buffer is symmetric. The
 * library must end the job with a message naming the routine and the argument as the program
 * called them ("shmem_long_sum_reduce: dest=0x7ffd... is not symmetric"), in the team and in the
 * active-set forms alike, for small (default 4 elements) and large transfers. Registered by
 * tests/coll/nonsym.cmake; prints "NOT STOPPED" if the call returns.
 *   ROUTINE: long_broadcast broadcastmem long_sum_reduce long_max_reduce long_fcollect
 *            long_collect long_alltoall (team forms, SHMEM_TEAM_WORLD)
 *            broadcast64 long_sum_to_all fcollect64 collect64 alltoall64 (active-set forms, all PEs)
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PES 8
#define MAX_ELEMS 8192

static long sym_a[MAX_PES * MAX_ELEMS];
static long sym_b[MAX_PES * MAX_ELEMS];
static long psync[SHMEM_REDUCE_SYNC_SIZE > SHMEM_ALLTOALL_SYNC_SIZE ? SHMEM_REDUCE_SYNC_SIZE
                                                                    : SHMEM_ALLTOALL_SYNC_SIZE];
static long pwrk[MAX_ELEMS / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? MAX_ELEMS / 2 + 1
                                                                    : SHMEM_REDUCE_MIN_WRKDATA_SIZE];

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: coll_nonsym ROUTINE dest|source [NELEMS]\n");
    return 2;
  }
  const char* routine = argv[1];
  const int bad_dest = strcmp(argv[2], "dest") == 0;
  const size_t n = argc > 3 ? (size_t)atoi(argv[3]) : 4;
  shmem_init();
  const int npes = shmem_n_pes();
  if (npes > MAX_PES || n == 0 || n > MAX_ELEMS) {
    fprintf(stderr, "coll_nonsym: at most %d PEs and 1..%d elements\n", MAX_PES, MAX_ELEMS);
    return 2;
  }
  for (size_t i = 0; i < sizeof psync / sizeof psync[0]; ++i) psync[i] = SHMEM_SYNC_VALUE;
  /* The private buffer is large enough for every routine's dest (npes * n for fcollect,
   * collect and alltoall). */
  long* private_buf = calloc((size_t)npes * n, sizeof(long));
  long* dest = bad_dest ? private_buf : sym_a;
  long* source = bad_dest ? sym_b : private_buf;
  shmem_barrier_all();

  if (!strcmp(routine, "long_broadcast")) {
    shmem_long_broadcast(SHMEM_TEAM_WORLD, dest, source, n, 0);
  } else if (!strcmp(routine, "broadcastmem")) {
    shmem_broadcastmem(SHMEM_TEAM_WORLD, dest, source, n * sizeof(long), 0);
  } else if (!strcmp(routine, "long_sum_reduce")) {
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dest, source, n);
  } else if (!strcmp(routine, "long_max_reduce")) {
    shmem_long_max_reduce(SHMEM_TEAM_WORLD, dest, source, n);
  } else if (!strcmp(routine, "long_fcollect")) {
    shmem_long_fcollect(SHMEM_TEAM_WORLD, dest, source, n);
  } else if (!strcmp(routine, "long_collect")) {
    shmem_long_collect(SHMEM_TEAM_WORLD, dest, source, n);
  } else if (!strcmp(routine, "long_alltoall")) {
    shmem_long_alltoall(SHMEM_TEAM_WORLD, dest, source, n);
  } else if (!strcmp(routine, "broadcast64")) {
    shmem_broadcast64(dest, source, n, 0, 0, 0, npes, psync);
  } else if (!strcmp(routine, "long_sum_to_all")) {
    shmem_long_sum_to_all(dest, source, (int)n, 0, 0, npes, pwrk, psync);
  } else if (!strcmp(routine, "fcollect64")) {
    shmem_fcollect64(dest, source, n, 0, 0, npes, psync);
  } else if (!strcmp(routine, "collect64")) {
    shmem_collect64(dest, source, n, 0, 0, npes, psync);
  } else if (!strcmp(routine, "alltoall64")) {
    shmem_alltoall64(dest, source, n, 0, 0, npes, psync);
  } else {
    fprintf(stderr, "coll_nonsym: unknown routine '%s'\n", routine);
    return 2;
  }
  shmem_barrier_all();
  printf("PE %d: NOT STOPPED: %s with a non-symmetric %s returned\n", shmem_my_pe(), routine, argv[2]);
  free(private_buf);
  shmem_finalize();
  return 1;
}
