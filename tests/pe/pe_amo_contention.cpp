// pe_amo_contention.cpp - every PE hammers ONE counter on PE 0 with fetch_add / fetch_inc /
// add / inc / compare_swap loops, on the symmetric heap and on static variables. The totals
// must be exact, and the old values returned by fetch_inc across all PEs must be exactly
// 0 .. total-1 (each PE puts its list into a symmetric array on PE 0, which checks it).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "pe_check.h"

namespace {

constexpr int kIters = 300;

long static_fadd_counter;                  // fetch_add target (static)
unsigned long long static_finc_counter;    // fetch_inc target (static)
int static_cas_counter;                    // compare_swap increment loop target (static)

void check_sequence(std::vector<long long> olds, long long total, const char* what) {
  std::sort(olds.begin(), olds.end());
  CHECKF(static_cast<long long>(olds.size()) == total, "%s: %zu values collected, expected %lld",
         what, olds.size(), total);
  for (size_t i = 0; i < olds.size(); ++i) {
    if (olds[i] != static_cast<long long>(i)) {
      CHECKF(false, "%s: sorted old value %zu is %lld (duplicate or missing value)", what, i,
             olds[i]);
      return;
    }
  }
}

}  // namespace

int main() {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const long long total = static_cast<long long>(kIters) * n;

  long* heap_fadd = static_cast<long*>(shmem_calloc(1, sizeof(long)));
  uint64_t* heap_finc = static_cast<uint64_t*>(shmem_calloc(1, sizeof(uint64_t)));
  int* heap_int = static_cast<int*>(shmem_calloc(1, sizeof(int)));
  unsigned* heap_uint = static_cast<unsigned*>(shmem_calloc(1, sizeof(unsigned)));
  long* olds_heap = static_cast<long*>(shmem_malloc(sizeof(long) * total));
  long* olds_static = static_cast<long*>(shmem_malloc(sizeof(long) * total));
  CHECK(heap_fadd && heap_finc && heap_int && heap_uint && olds_heap && olds_static);
  if (!(heap_fadd && heap_finc && heap_int && heap_uint && olds_heap && olds_static))
    shmem_global_exit(1);
  static_fadd_counter = 0;
  static_finc_counter = 0;
  static_cas_counter = 0;
  shmem_barrier_all();

  std::vector<long> mine_heap(kIters), mine_static(kIters);
  long last_fadd = -1;
  for (int i = 0; i < kIters; ++i) {
    // Interleave the counters so the PEs really contend on all of them at once.
    long old = shmem_long_atomic_fetch_add(heap_fadd, me + 1, 0);
    CHECKF(old >= 0 && old > last_fadd, "fetch_add returned %ld after %ld", old, last_fadd);
    last_fadd = old;
    mine_heap[i] = static_cast<long>(shmem_uint64_atomic_fetch_inc(heap_finc, 0));
    mine_static[i] = static_cast<long>(shmem_ulonglong_atomic_fetch_inc(&static_finc_counter, 0));
    shmem_long_atomic_add(&static_fadd_counter, 2 * (me + 1), 0);
    if (i % 2)
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
  for (int i = 1; i < kIters; ++i) {
    CHECKF(mine_heap[i] > mine_heap[i - 1], "fetch_inc values of one PE must increase (%ld then %ld)",
           mine_heap[i - 1], mine_heap[i]);
  }
  shmem_long_put(olds_heap + static_cast<long>(me) * kIters, mine_heap.data(), kIters, 0);
  shmem_long_put(olds_static + static_cast<long>(me) * kIters, mine_static.data(), kIters, 0);
  shmem_barrier_all();

  if (me == 0) {
    const long long sum_weights = static_cast<long long>(n) * (n + 1) / 2;
    CHECK_EQ(*heap_fadd, kIters * sum_weights);
    CHECK_EQ(static_fadd_counter, 2 * kIters * sum_weights);
    CHECK_EQ(*heap_finc, total);
    CHECK_EQ(static_finc_counter, total);
    CHECK_EQ(*heap_int, total);
    CHECK_EQ(*heap_uint, 3 * total);
    CHECK_EQ(static_cas_counter, total);
    check_sequence(std::vector<long long>(olds_heap, olds_heap + total), total, "heap fetch_inc");
    check_sequence(std::vector<long long>(olds_static, olds_static + total), total,
                   "static fetch_inc");
  }
  // Everyone also reads the final values remotely.
  CHECK_EQ(shmem_long_atomic_fetch(heap_fadd, 0), kIters * (static_cast<long long>(n) * (n + 1) / 2));
  CHECK_EQ(shmem_ulonglong_atomic_fetch(&static_finc_counter, 0), total);
  CHECK_EQ(shmem_int_g(&static_cas_counter, 0), total);
  shmem_barrier_all();

  shmem_free(olds_static);
  shmem_free(olds_heap);
  shmem_free(heap_uint);
  shmem_free(heap_int);
  shmem_free(heap_finc);
  shmem_free(heap_fadd);
  if (me == 0 && pe_check_failures_ == 0) std::printf("pe_amo_contention: %d PEs x %d OK\n", n, kIters);
  return pe_check_finish();
}
