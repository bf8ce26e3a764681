/*
 * pe_exit.c - PEs that leave without shmem_finalize, through the real exit paths (exit
 * handlers run, unlike the _exit of pe_fail.c). tests/support/expect_run.sh (under oshrun) and
 * torchrun_exit.sh (no launcher) check the exit status, the message, the time and leftovers.
 * The PE that leaves is the last one, or PE_EXIT_VICTIM.
 *   exit N        the last PE calls exit(N) while the others wait in shmem_barrier_all
 *   return N      the last PE returns N from main while the others wait in shmem_barrier_all
 *   signal SIG    the last PE raises SIG (TERM, KILL, INT) while the others wait in a barrier
 *   exit0-barrier the last PE returns 0 from main without shmem_finalize while the others call
 *                 shmem_barrier_all: that barrier must never complete ("NOT STOPPED" if it does)
 *   exit0-sync    the same with shmem_sync_all, and exit0-reduce with a sum reduction
 *   exit0-all     every PE writes to its right neighbour, then returns 0 without finalize: the
 *                 implicit finalize completes and the job succeeds
 *   exit0-mixed   the odd PEs return 0 without finalize, the even ones call shmem_finalize
 * With PE_EXIT_INIT=start_pes the program starts with the deprecated start_pes(0) instead of
 * shmem_init: such programs rely on the implicit finalize at exit (spec 1.2), which must behave
 * exactly as after shmem_init (never hang, never complete a user barrier).
 */
#include <signal.h>
#include <unistd.h>

#include "check.h"

static long right_value = -1;
static long src_value, dst_value;

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  const char* arg = argc > 2 ? argv[2] : "0";
  const char* init = getenv("PE_EXIT_INIT");
  if (init && !strcmp(init, "start_pes")) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    start_pes(0);
#pragma GCC diagnostic pop
  } else {
    shmem_init();
  }
  const int me = shmem_my_pe(), n = shmem_n_pes();
  /* PE_EXIT_VICTIM=0 makes the PE that hosts a launcher-less job's store the one that leaves. */
  const int victim = getenv("PE_EXIT_VICTIM") ? atoi(getenv("PE_EXIT_VICTIM")) : n - 1;
  shmem_barrier_all(); /* everyone is up */

  if (!strcmp(mode, "exit") || !strcmp(mode, "return")) {
    if (me == victim) {
      if (!strcmp(mode, "exit")) exit(atoi(arg));
      return atoi(arg);
    }
    shmem_barrier_all();
  } else if (!strcmp(mode, "signal")) {
    if (me == victim) {
      int sig = !strcmp(arg, "KILL") ? SIGKILL : !strcmp(arg, "INT") ? SIGINT : SIGTERM;
      raise(sig);
    }
    shmem_barrier_all();
  } else if (!strncmp(mode, "exit0-", 6) && strcmp(mode, "exit0-all") && strcmp(mode, "exit0-mixed")) {
    if (me == victim) return 0;
    if (!strcmp(mode, "exit0-barrier")) {
      shmem_barrier_all();
    } else if (!strcmp(mode, "exit0-sync")) {
      shmem_sync_all();
    } else {
      src_value = me;
      shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &dst_value, &src_value, 1);
    }
  } else if (!strcmp(mode, "exit0-all") || !strcmp(mode, "exit0-mixed")) {
    shmem_long_p(&right_value, me, (me + 1) % n);
    shmem_barrier_all();
    const long want = (me + n - 1) % n;
    if (right_value != want) {
      fprintf(stderr, "PE %d: FAIL: got %ld from the left neighbour, expected %ld\n", me, right_value, want);
      return 1;
    }
    if (!strcmp(mode, "exit0-mixed") && me % 2 == 0) shmem_finalize();
    printf("PE %d: %s: OK\n", me, mode);
    return 0; /* no shmem_finalize (or, in exit0-mixed on even PEs, after it) */
  } else {
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  fprintf(stderr, "PE %d: NOT STOPPED: passed the collective in mode %s %s\n", me, mode, arg);
  shmem_finalize();
  return 0;
}
