// pe_first_use.cpp - SHMEM_THREAD_MULTIPLE: on PE 0, 4 threads at once put to and increment on
// every other PE, so that threads meet a peer together before its endpoint exists (across
// hosts the UCX transport makes it on first use, once per peer: tests/hosts/boot_scale.sh
// checks that PE 0 made exactly one per remote PE). Every PE checks what it got.
#include <thread>
#include <vector>

#include "check.h"

static long hits, slots[4];

int main() {
  int provided = 0;
  shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
  CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
  const int me = shmem_my_pe(), n = shmem_n_pes();
  if (me == 0) {
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([t, n] {
        for (int pe = 1; pe < n; ++pe) {
          shmem_long_p(&slots[t], t + 1, pe);
          shmem_long_atomic_inc(&hits, pe);
        }
        shmem_quiet();
      });
    for (auto& th : threads) th.join();
  }
  shmem_barrier_all();
  if (me != 0) {
    CHECK_EQ(hits, 4L);
    for (int t = 0; t < 4; ++t) CHECK_EQ(slots[t], (long)(t + 1));
  }
  if (me == 0) printf("pe_first_use: %d PEs, 4 threads of PE 0 reached every PE exactly\n", n);
  return check_finish("pe_first_use");
}
