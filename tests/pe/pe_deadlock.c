/*
 * pe_deadlock.c - programs whose PEs end up waiting for each other (run through
 * tests/support/expect_run.sh by tests/pe/deadlock.cmake, with SHMEM_COLL_CHECK_AFTER=1): the job
 * must end with one message naming where each PE waits (core/deadlock.hpp); and programs that
 * only look like it, which must run to their end.
 *   barrier_flag  PE 0 is in shmem_barrier_all; the others wait in shmem_int_wait_until for a
 *                 flag that PE 0 sets only after the barrier
 *   cycle         every PE waits in shmem_long_wait_until for a flag that the next PE sets only
 *                 after its own wait
 *   lock          PE 0 takes a lock and enters shmem_barrier_all before it clears it; the others
 *                 wait in shmem_set_lock
 *   finalize      PE 0 finalizes; the others wait in shmem_signal_wait_until for a signal that
 *                 PE 0 never sends
 *   all           every PE waits in shmem_int_wait_until_all on 4 flags; every PE sets the
 *                 first 3 of every PE's, never the last one
 *   self          (1 PE) PE 0 waits for a flag of its own that nothing sets
 *   late          PE 0 computes outside the library for 1.5 s while the others wait in
 *                 shmem_barrier_all; then the last PE computes for 3.5 s and sets every other
 *                 PE's flag, which they wait for: must not be reported (exit 0)
 *   left          (2 PEs, SHMEM_WAIT_TIMEOUT) PE 1 waits long for a flag that PE 0 sets after
 *                 computing for 1.5 s, then computes; PE 0 then waits for a flag nobody sets and
 *                 times out: its report must not name PE 1's finished wait
 *   threads       SHMEM_THREAD_MULTIPLE: PE 0 waits in shmem_barrier_all while a thread of its
 *                 own sets the other PEs' flags 3.5 s later; they wait for the flag, then make
 *                 the barrier: must not be reported (exit 0)
 * A deadlock mode prints "NOT STOPPED" if its waits return.
 */
#include <pthread.h>
#include <shmem.h>
#include <string.h>
#include <time.h>

#include "check.h"

static int flag;
static int flag2;
static long cycle_flag;
static long lock;
static uint64_t sig;
static int flags4[4];

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Work outside the library for `s` seconds (a PE that computes: it is not waiting). */
static void compute_for(double s) {
  const double end = now_s() + s;
  volatile unsigned long x = 0;
  while (now_s() < end)
    for (int i = 0; i < 1000; ++i) x += (unsigned long)i;
}

static void* set_flags_later(void* arg) {
  (void)arg;
  compute_for(3.5);
  for (int pe = 1; pe < shmem_n_pes(); ++pe) shmem_int_atomic_set(&flag, 1, pe);
  return NULL;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "threads") == 0) {
    int provided = SHMEM_THREAD_SINGLE;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0 || provided != SHMEM_THREAD_MULTIPLE) return 3;
  } else {
    shmem_init();
  }
  const int me = shmem_my_pe(), n = shmem_n_pes(), last = n - 1;
  shmem_barrier_all(); /* every PE is up */

  if (strcmp(mode, "barrier_flag") == 0) {
    if (me == 0) {
      shmem_barrier_all();
      for (int pe = 1; pe < n; ++pe) shmem_int_atomic_set(&flag, 1, pe);
    } else {
      shmem_int_wait_until(&flag, SHMEM_CMP_EQ, 1);
      shmem_barrier_all();
    }
  } else if (strcmp(mode, "cycle") == 0) {
    shmem_long_wait_until(&cycle_flag, SHMEM_CMP_GE, 1);
    shmem_long_atomic_add(&cycle_flag, 1, (me + 1) % n);
  } else if (strcmp(mode, "lock") == 0) {
    if (me == 0) shmem_set_lock(&lock);
    shmem_barrier_all(); /* PE 0 holds the lock */
    if (me == 0) {
      shmem_barrier_all();
      shmem_clear_lock(&lock);
    } else {
      shmem_set_lock(&lock);
      shmem_clear_lock(&lock);
      shmem_barrier_all();
    }
  } else if (strcmp(mode, "finalize") == 0) {
    if (me != 0) shmem_signal_wait_until(&sig, SHMEM_CMP_NE, 0);
  } else if (strcmp(mode, "all") == 0) {
    for (int pe = 0; pe < n; ++pe)
      for (int i = 0; i < 3; ++i) shmem_int_atomic_set(&flags4[i], 1, pe);
    shmem_int_wait_until_all(flags4, 4, NULL, SHMEM_CMP_EQ, 1);
  } else if (strcmp(mode, "self") == 0) {
    shmem_int_wait_until(&flag, SHMEM_CMP_EQ, 1);
  } else if (strcmp(mode, "late") == 0) {
    /* First the others wait long in a barrier while PE 0 computes, so that the last PE has
     * published a long wait of its own; then the last PE computes while the others wait. */
    if (me == 0) compute_for(1.5);
    shmem_barrier_all();
    if (me == last) {
      compute_for(3.5);
      for (int pe = 0; pe < last; ++pe) shmem_int_atomic_set(&flag, 1, pe);
    } else {
      shmem_int_wait_until(&flag, SHMEM_CMP_EQ, 1);
      CHECK_EQ(flag, 1);
    }
    shmem_barrier_all();
    return check_finish("pe_deadlock late");
  } else if (strcmp(mode, "left") == 0) {
    if (me == 0) {
      compute_for(1.5);
      shmem_int_atomic_set(&flag, 1, 1);
      shmem_int_wait_until(&flag2, SHMEM_CMP_EQ, 1);
    } else if (me == 1) {
      shmem_int_wait_until(&flag, SHMEM_CMP_EQ, 1);
      compute_for(20);
    }
  } else if (strcmp(mode, "threads") == 0) {
    if (me == 0) {
      pthread_t t;
      if (pthread_create(&t, NULL, set_flags_later, NULL) != 0) return 4;
      shmem_barrier_all();
      pthread_join(t, NULL);
    } else {
      shmem_int_wait_until(&flag, SHMEM_CMP_EQ, 1);
      CHECK_EQ(flag, 1);
      shmem_barrier_all();
    }
    shmem_barrier_all();
    return check_finish("pe_deadlock threads");
  } else {
    return 2;
  }
  if (strcmp(mode, "finalize") != 0 || me != 0) printf("PE %d: NOT STOPPED\n", me);
  shmem_finalize();
  return 0;
}
