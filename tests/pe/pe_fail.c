/*
 * pe_fail.c - programs that fail on purpose; tests/support/expect_run.sh runs them under oshrun and
 * checks the exit status, the messages, the time taken and that nothing is left behind.
 *   crash segv|abort|null   the last PE crashes while the others wait in a barrier
 *   exit-code               the last PE exits 3 without finalizing while the others wait
 *   global-exit             the last PE calls shmem_global_exit(7) while the others are
 *                           blocked in a barrier or in wait_until
 *   wait-timeout            PE 0 waits for a value (42) that never comes (the others block in
 *                           pause(), outside the library); run with SHMEM_WAIT_TIMEOUT=1
 *   barrier-timeout         PE 0 never reaches the barrier the others wait in
 *   reduce-wait             PE 0 never reaches the sum reduction (SHMEM_TEAM_WORLD) the others wait in
 *   set-absent              PEs 1 and 3 (on two hosts: h1:2,h2:2) are an active set; PE 3 broadcasts
 *                           to it, PE 1 never arrives (nor registers its collective area);
 *                           run with SHMEM_WAIT_TIMEOUT
 *   debug-pe | debug-pe-neg | debug-addr-put | debug-addr-get | debug-addr-amo
 *                           the last PE passes a bad PE number or a non-symmetric address;
 *                           run with SHMEM_DEBUG=1
 * With PE_FAIL_READY=DIR each PE creates DIR/ready.<pe> once every PE is past shmem_init (after
 * the first barrier), so a test can act on a job that is known to be up. With PE_FAIL_FORK=<pe>
 * as well, that PE first forks a child that outlives it (it waits in pause() for at most 30 s)
 * and writes the child's pid to DIR/forked.<pe>.
 */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"

static long never_set;
static long sym_target;

static void block_forever_in_library(int me) {
  if (me % 2)
    shmem_long_wait_until(&never_set, SHMEM_CMP_EQ, 1);
  else
    shmem_barrier_all();
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  const char* arg = argc > 2 ? argv[2] : "";
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int victim = n - 1;
  shmem_barrier_all(); /* everyone is up */
  const char* ready_dir = getenv("PE_FAIL_READY");
  const char* fork_pe = getenv("PE_FAIL_FORK");
  if (ready_dir && *ready_dir && fork_pe && atoi(fork_pe) == me) {
    const pid_t child = fork();
    if (child < 0) shmem_global_exit(2);
    if (child == 0) {
      alarm(30); /* bounded, should the test not end it */
      for (;;) pause();
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/forked.%d", ready_dir, me);
    FILE* f = fopen(path, "w");
    if (!f) shmem_global_exit(2);
    fprintf(f, "%d\n", (int)child);
    fclose(f);
  }
  if (ready_dir && *ready_dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/ready.%d", ready_dir, me);
    FILE* f = fopen(path, "w");
    if (!f) {
      fprintf(stderr, "rank %d: cannot create %s\n", me, path);
      shmem_global_exit(2);
    }
    fclose(f);
  }

  if (!strcmp(mode, "crash")) {
    if (me == victim) {
      if (!strcmp(arg, "abort")) abort();
      if (!strcmp(arg, "null")) {
        volatile int* volatile nowhere = NULL;
        *nowhere = 1;
      }
      raise(SIGSEGV);
    }
    shmem_barrier_all();
  } else if (!strcmp(mode, "exit-code")) {
    if (me == victim) _exit(3);
    shmem_barrier_all();
  } else if (!strcmp(mode, "global-exit")) {
    if (me == victim) {
      /* Give the others a chance to really block first: wait until they announced it. */
      shmem_long_wait_until(&sym_target, SHMEM_CMP_GE, n - 1);
      shmem_global_exit(7);
    }
    shmem_long_atomic_inc(&sym_target, victim);
    block_forever_in_library(me);
  } else if (!strcmp(mode, "wait-timeout")) {
    if (me == 0)
      shmem_long_wait_until(&never_set, SHMEM_CMP_EQ, 42);
    else
      for (;;) pause();
  } else if (!strcmp(mode, "barrier-timeout")) {
    if (me == 0)
      for (;;) pause();
    shmem_barrier_all();
  } else if (!strcmp(mode, "reduce-wait")) {
    static long src[64], dst[64];
    if (me == 0)
      for (;;) pause();
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 64);
  } else if (!strcmp(mode, "set-absent")) {
    static long src = 7, dst, psync[SHMEM_BCAST_SYNC_SIZE];
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    if (me != 3)
      for (;;) pause();
    shmem_broadcast64(&dst, &src, 1, 1, 1, 1, 2, psync);
  } else if (!strncmp(mode, "debug-", 6)) {
    if (me == victim) {
      long local = 5;
      long* private_heap = malloc(64);
      if (!strcmp(mode, "debug-pe"))
        shmem_long_p(&sym_target, 1, n);
      else if (!strcmp(mode, "debug-pe-neg"))
        (void)shmem_int_atomic_fetch_add((int*)&sym_target, 1, -1);
      else if (!strcmp(mode, "debug-addr-put"))
        shmem_putmem(&local, &local, sizeof local, 0);
      else if (!strcmp(mode, "debug-addr-get"))
        shmem_getmem(&local, private_heap, sizeof local, 0);
      else if (!strcmp(mode, "debug-addr-amo"))
        shmem_long_atomic_inc(&local, 0);
      fprintf(stderr, "rank %d: NOT STOPPED: %s returned\n", me, mode);
      free(private_heap);
      shmem_global_exit(0); /* reaching here is the failure the wrapper reports */
    }
    shmem_barrier_all();
  } else {
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  fprintf(stderr, "rank %d: NOT STOPPED: returned from mode %s\n", me, mode);
  shmem_finalize();
  return 0;
}
