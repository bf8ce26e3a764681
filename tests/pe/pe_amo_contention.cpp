// pe_amo_contention.cpp - every PE hammers ONE counter on PE 0 with fetch_add / fetch_inc /
// add / inc / compare_swap loops, on the symmetric heap and on static variables. The totals
// must be exact, and the old values returned by fetch_inc across all PEs must be exactly
// 0 .. total-1 (each PE puts its list into a symmetric array on PE 0, which checks it).
//
// The PEs leave the start barrier up to several milliseconds apart, so a fixed small count
// would let them run one after the other. Each PE therefore runs for a minimum wall time
// (and a minimum count) and reports how many iterations it did; the expected totals come
// from those counts.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

#include "check.h"

namespace {

constexpr long kMinIters = 2000;
constexpr long kMaxIters = 100000;
constexpr double kMinSeconds = 0.15;

long static_fadd_counter;                // fetch_add target (static)
unsigned long long static_finc_counter;  // fetch_inc target (static)
int static_cas_counter;                  // compare_swap increment loop target (static)
long start_gate;                         // at PE 0: PEs that reached the loop

double now() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

void check_sequence(const std::vector<long>& olds_sym, const std::vector<long>& counts,
                    const char* what) {
  std::vector<long> olds;
  for (size_t pe = 0; pe < counts.size(); ++pe)
    olds.insert(olds.end(), olds_sym.begin() + static_cast<long>(pe) * kMaxIters,
                olds_sym.begin() + static_cast<long>(pe) * kMaxIters + counts[pe]);
  std::sort(olds.begin(), olds.end());
  for (size_t i = 0; i < olds.size(); ++i) {
    if (olds[i] != static_cast<long>(i)) {
      CHECKF(false, "%s: sorted old value %zu is %ld (a duplicate or a missing value)", what, i,
             olds[i]);
      return;
    }
  }
}

}  // namespace

int main() {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();

  long* heap_fadd = static_cast<long*>(shmem_calloc(1, sizeof(long)));
  uint64_t* heap_finc = static_cast<uint64_t*>(shmem_calloc(1, sizeof(uint64_t)));
  int* heap_int = static_cast<int*>(shmem_calloc(1, sizeof(int)));
  unsigned* heap_uint = static_cast<unsigned*>(shmem_calloc(1, sizeof(unsigned)));
  long* counts = static_cast<long*>(shmem_calloc(static_cast<size_t>(n), sizeof(long)));
  // Sparse: only the pages PE 0 receives are ever touched.
  long* olds_heap = static_cast<long*>(shmem_malloc(sizeof(long) * kMaxIters * n));
  long* olds_static = static_cast<long*>(shmem_malloc(sizeof(long) * kMaxIters * n));
  if (!(heap_fadd && heap_finc && heap_int && heap_uint && counts && olds_heap && olds_static)) {
    CHECKF(false, "allocation failed");
    shmem_global_exit(1);
  }
  static_fadd_counter = 0;
  static_finc_counter = 0;
  static_cas_counter = 0;
  start_gate = 0;
  shmem_barrier_all();

  // Start together: everyone checks in, then polls until all have.
  shmem_long_atomic_inc(&start_gate, 0);
  while (shmem_long_atomic_fetch(&start_gate, 0) < n) {
  }

  std::vector<long> mine_heap(kMaxIters), mine_static(kMaxIters);
  long last_fadd = -1;
  const double t0 = now();
  long iters = 0;
  for (; iters < kMaxIters; ++iters) {
    if (iters >= kMinIters && iters % 256 == 0 && now() - t0 > kMinSeconds) break;
    // Interleave the counters so the PEs contend on all of them at once.
    long old = shmem_long_atomic_fetch_add(heap_fadd, me + 1, 0);
    CHECKF(old > last_fadd, "fetch_add returned %ld after %ld", old, last_fadd);
    last_fadd = old;
    mine_heap[iters] = static_cast<long>(shmem_uint64_atomic_fetch_inc(heap_finc, 0));
    mine_static[iters] = static_cast<long>(shmem_ulonglong_atomic_fetch_inc(&static_finc_counter, 0));
    shmem_long_atomic_add(&static_fadd_counter, 2 * (me + 1), 0);
    if (iters % 2)
      shmem_int_atomic_inc(heap_int, 0);
    else
      shmem_ctx_int_atomic_inc(SHMEM_CTX_DEFAULT, heap_int, 0);
    shmem_uint_atomic_add(heap_uint, 3u, 0);
    // Increment by compare-and-swap: retry until our CAS wins.
    int seen = shmem_int_atomic_fetch(&static_cas_counter, 0);
    for (;;) {
      int got = shmem_int_atomic_compare_swap(&static_cas_counter, seen, seen + 1, 0);
      if (got == seen) break;
      seen = got;
    }
  }
  for (long i = 1; i < iters; ++i) {
    if (mine_heap[i] <= mine_heap[i - 1]) {
      CHECKF(false, "fetch_inc values of one PE must increase (%ld then %ld)", mine_heap[i - 1], mine_heap[i]);
      break;
    }
  }
  shmem_long_p(&counts[me], iters, 0);
  shmem_long_put(olds_heap + me * kMaxIters, mine_heap.data(), static_cast<size_t>(iters), 0);
  shmem_long_put(olds_static + me * kMaxIters, mine_static.data(), static_cast<size_t>(iters), 0);
  shmem_barrier_all();

  std::vector<long> all_counts(static_cast<size_t>(n));
  shmem_long_get(all_counts.data(), counts, static_cast<size_t>(n), 0);
  long long total = 0, weighted = 0;
  for (int pe = 0; pe < n; ++pe) {
    total += all_counts[pe];
    weighted += static_cast<long long>(all_counts[pe]) * (pe + 1);
  }
  if (me == 0) {
    CHECK_EQ(*heap_fadd, weighted);
    CHECK_EQ(static_fadd_counter, 2 * weighted);
    CHECK_EQ(*heap_finc, total);
    CHECK_EQ(static_finc_counter, total);
    CHECK_EQ(*heap_int, total);
    CHECK_EQ(*heap_uint, 3 * total);
    CHECK_EQ(static_cas_counter, total);
    const size_t span = static_cast<size_t>(kMaxIters) * n;
    check_sequence(std::vector<long>(olds_heap, olds_heap + span), all_counts, "heap fetch_inc");
    check_sequence(std::vector<long>(olds_static, olds_static + span), all_counts, "static fetch_inc");
  }
  // Everyone also reads the final values remotely.
  CHECK_EQ(shmem_long_atomic_fetch(heap_fadd, 0), weighted);
  CHECK_EQ(shmem_ulonglong_atomic_fetch(&static_finc_counter, 0), total);
  CHECK_EQ(shmem_int_g(&static_cas_counter, 0), total);
  shmem_barrier_all();

  shmem_free(olds_static);
  shmem_free(olds_heap);
  shmem_free(counts);
  shmem_free(heap_uint);
  shmem_free(heap_int);
  shmem_free(heap_finc);
  shmem_free(heap_fadd);
  if (me == 0 && check_failures_ == 0)
    std::printf("pe_amo_contention: %d PEs, %lld increments per counter OK\n", n, total);
  return check_finish(NULL);
}
