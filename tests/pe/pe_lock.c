/*
 * pe_lock.c - distributed locks: mutual exclusion of a non-atomic read-modify-write (get + put)
 * on a counter at PE 0, with the lock as a static variable and on the symmetric heap, taken
 * with set_lock and with a test_lock loop; test_lock returns 1 while another PE holds the lock
 * and 0 when it acquires it.
 */
#include <sched.h>

#include "check.h"

static long static_lock;
static long counter;
static long held_count; /* how many PEs are inside the critical section right now (at PE 0) */

static void critical_section(void) {
  /* Nobody else may be inside: a plain increment that would go wrong under a race. */
  long inside = shmem_long_atomic_fetch_inc(&held_count, 0);
  CHECKF(inside == 0, "%ld other PE(s) inside the critical section", inside);
  long v = shmem_long_g(&counter, 0);
  if (v % 3 == 0) sched_yield(); /* widen the window now and then */
  shmem_long_p(&counter, v + 1, 0);
  shmem_long_atomic_add(&held_count, -1, 0);
}

static void mutual_exclusion(long* lock, int iters, const char* what) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  counter = 0;
  held_count = 0;
  shmem_barrier_all();
  for (int i = 0; i < iters; ++i) {
    if ((i + me) % 2) {
      shmem_set_lock(lock);
    } else {
      while (shmem_test_lock(lock) != 0) sched_yield();
    }
    critical_section();
    shmem_clear_lock(lock);
  }
  shmem_barrier_all();
  if (me == 0) CHECKF(counter == (long)iters * n, "%s: counter %ld, expected %ld", what, counter, (long)iters * n);
  shmem_barrier_all();
}

static void test_lock_semantics(long* lock) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  if (me == 0) CHECK_EQ(shmem_test_lock(lock), 0); /* free: acquired */
  shmem_barrier_all();
  if (me != 0) {
    CHECK_EQ(shmem_test_lock(lock), 1); /* held by PE 0 */
    CHECK_EQ(shmem_test_lock(lock), 1);
  }
  shmem_barrier_all();
  if (me == 0) shmem_clear_lock(lock);
  shmem_barrier_all();
  /* Now the last PE takes it with test_lock; the others see it held. */
  if (me == n - 1) CHECK_EQ(shmem_test_lock(lock), 0);
  shmem_barrier_all();
  if (me != n - 1) CHECK_EQ(shmem_test_lock(lock), 1);
  shmem_barrier_all();
  if (me == n - 1) shmem_clear_lock(lock);
  shmem_barrier_all();
  /* Released: set_lock / clear_lock still work for everyone in turn. */
  shmem_set_lock(lock);
  shmem_clear_lock(lock);
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  const int n = shmem_n_pes();
  const int iters = n > 4 ? 300 : 1000;
  long* heap_lock = shmem_calloc(1, sizeof(long));
  CHECK(heap_lock != NULL);
  if (!heap_lock) shmem_global_exit(1);

  test_lock_semantics(&static_lock);
  test_lock_semantics(heap_lock);
  mutual_exclusion(&static_lock, iters, "static lock");
  mutual_exclusion(heap_lock, iters, "heap lock");

  shmem_free(heap_lock);
  if (shmem_my_pe() == 0 && check_failures_ == 0) printf("pe_lock: OK\n");
  return check_finish(NULL);
}
