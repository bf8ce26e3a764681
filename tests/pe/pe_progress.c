/*
 * pe_progress.c - a PE busy computing (no library calls) must not stall its peers.
 *
 * The last PE spins on a plain load of a local flag without calling the library, while every
 * other PE reads its memory (get, iget), updates it atomically (fetch_add, add) and writes it
 * (put), and PE 0 finally sets the flag with a put. Node-local peers reach the memory
 * directly; across hosts a transport that emulates RMA in software (UCX over TCP) serves these
 * operations only when the target is progressed, which is what the progress thread is for:
 * without it this test hangs (and its CTest timeout fails it). Values are checked at the end.
 */
#include "check.h"

enum { kWords = 512, kRounds = 50 };

static volatile long stop_flag;
static long data[kWords];
static long counter;
static long inbox[64];
static long finished;

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int busy = n - 1;
  for (int i = 0; i < kWords; ++i) data[i] = (long)me * 100000 + i;
  shmem_barrier_all();
  if (n > 1 && me == busy) {
    while (stop_flag == 0) { /* computing: not a single library call */
    }
  } else if (n > 1) {
    long buf[kWords];
    for (int r = 0; r < kRounds; ++r) {
      shmem_long_get(buf, data, kWords, busy);
      for (int i = 0; i < kWords; i += 97) CHECK_EQ(buf[i], (long)busy * 100000 + i);
      long strided[8];
      shmem_long_iget(strided, data, 1, 64, 8, busy);
      for (int i = 0; i < 8; ++i) CHECK_EQ(strided[i], (long)busy * 100000 + 64 * i);
      shmem_long_atomic_fetch_add(&counter, 1, busy);
      shmem_long_atomic_add(&counter, 1, busy);
    }
    shmem_long_p(&inbox[me % 64], 1000 + me, busy);
    shmem_quiet();
    shmem_long_atomic_inc(&finished, 0);
    if (me == 0) {
      /* every worker is done: release the busy PE (with a put it must serve, too) */
      shmem_long_wait_until(&finished, SHMEM_CMP_EQ, n - 1);
      shmem_long_p((long*)&stop_flag, 1, busy);
      shmem_quiet();
    }
  }
  shmem_barrier_all();
  if (n > 1 && me == busy) {
    CHECK_EQ(counter, 2L * kRounds * (n - 1));
    for (int pe = 0; pe < n - 1 && pe < 64; ++pe) CHECK_EQ(inbox[pe], 1000L + pe);
  }
  return check_finish(NULL);
}
