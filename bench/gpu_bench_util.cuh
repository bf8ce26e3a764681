#pragma once
// What bench/gpu_bench.cu (ours) and bench/gpu_nvshmem.cu (NVSHMEM's side) share, so that the two
// programs time alike: the trial count, the median, the GPU clock and the CUDA error check.
#include <shmem.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace gpu_bench {

inline constexpr int kTrials = 7;

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The GPU's nanosecond clock (%globaltimer), for timing inside a kernel.
__device__ inline unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// A failed CUDA call ends the job (the peers may be waiting for this PE).
inline void check(cudaError_t e, const char* call) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "gpu bench: PE %d: %s: %s\n", shmem_my_pe(), call, cudaGetErrorString(e));
  shmem_global_exit(1);
}

}  // namespace gpu_bench

#define CUDA_CHECK(call) gpu_bench::check((call), #call)
