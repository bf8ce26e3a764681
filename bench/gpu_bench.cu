// GPU benchmark of the device API between PEs on one GPU (run under oshrun by bench/gpu_bench.sh,
// next to bench/gpu_nvshmem.cu, the same measurements with NVSHMEM):
//   putbw     PE 0 puts `bytes` into PE 1's GPU heap with a grid of putmem_block calls (a chunk per
//             block; and 256 KiB chunks dealt to the blocks in turn); GB/s, next to a
//             device-to-device cudaMemcpy of the same size inside PE 0 (the copy limit)
//   pingpong  8-byte put+signal ping-pong between the 2 PEs (2-PE runs only), one thread each; us
//             per one-way trip; also with the wait polling relaxed loads and fencing once (an
//             experiment for the device wait loop, which polls acquire loads)
//   barrier   device barrier_all from one thread per PE; us per barrier
//   stream    on a CUDA stream (shmemx_stream_create_cuda): barrier_all, float sum allreduce 8 B to
//             256 MiB, alltoall 8 B to 16 MiB per PE; us per operation (events around 20 of them)
// Output: CSV lines "lib,metric,bytes,npes,value,unit" on PE 0, each value a median of 7 trials.
#include <shmem.h>
#include <shmemx.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu_bench_util.cuh"

#include <shmem/device/device.hpp>

namespace dev = shmem::device;

namespace {

using gpu_bench::kTrials;
using gpu_bench::median;

__global__ void put_kernel(char* dest, const char* src, std::size_t bytes, int pe) {
  const dev::Block b = dev::this_block();
  const std::size_t chunk = (bytes + b.grid - 1) / b.grid;
  const std::size_t lo = ::min(bytes, chunk * b.block_id), hi = ::min(bytes, lo + chunk);
  dev::putmem_block(b, dest + lo, src + lo, hi - lo, pe);
}

// The same transfer cut into 256 KiB chunks dealt out to the blocks in turn: the blocks running at
// any moment work on neighbouring memory, as a device-to-device copy's do.
__global__ void put_kernel_interleaved(char* dest, const char* src, std::size_t bytes, int pe) {
  constexpr std::size_t kChunk = 256 << 10;
  const dev::Block b = dev::this_block();
  for (std::size_t lo = kChunk * b.block_id; lo < bytes; lo += kChunk * b.grid)
    dev::putmem_block(b, dest + lo, src + lo, ::min(kChunk, bytes - lo), pe);
}

// iters round trips; the time between the first and last (globaltimer, ns) to *ns.
// The experiment's wait: relaxed system-scope loads until the value is there, then one acquire
// fence (NVSHMEM polls volatile loads); signal_wait_until polls acquire loads.
__device__ void wait_relaxed(std::uint64_t* sig, std::uint64_t value) {
  ::cuda::atomic_ref<std::uint64_t, ::cuda::thread_scope_system> s(*sig);
  while (s.load(::cuda::std::memory_order_relaxed) < value) {
  }
  ::cuda::atomic_thread_fence(::cuda::std::memory_order_acquire, ::cuda::thread_scope_system);
}

template <bool kRelaxedWait>
__global__ void pingpong_kernel(std::uint64_t* word, std::uint64_t* sig, int iters, unsigned long long* ns) {
  const int me = dev::my_pe(), peer = 1 - me;
  auto wait = [&](std::uint64_t i) {
    if constexpr (kRelaxedWait)
      wait_relaxed(sig, i);
    else
      dev::signal_wait_until(sig, SHMEM_CMP_GE, i);
  };
  dev::barrier_all();
  const unsigned long long t0 = gpu_bench::now_ns();
  for (int i = 1; i <= iters; ++i) {
    if (me == 0) {
      dev::putmem_signal(word, word, sizeof *word, sig, static_cast<std::uint64_t>(i), SHMEM_SIGNAL_SET, peer);
      wait(static_cast<std::uint64_t>(i));
    } else {
      wait(static_cast<std::uint64_t>(i));
      dev::putmem_signal(word, word, sizeof *word, sig, static_cast<std::uint64_t>(i), SHMEM_SIGNAL_SET, peer);
    }
  }
  *ns = gpu_bench::now_ns() - t0;
}

__global__ void barrier_kernel(int iters, unsigned long long* ns) {
  dev::barrier_all();
  const unsigned long long t0 = gpu_bench::now_ns();
  for (int i = 0; i < iters; ++i) dev::barrier_all();
  *ns = gpu_bench::now_ns() - t0;
}

void row(const char* metric, std::size_t bytes, double value, const char* unit) {
  if (shmem_my_pe() == 0)
    std::printf("shmem,%s,%zu,%d,%.4f,%s\n", metric, bytes, shmem_n_pes(), value, unit);
}

unsigned long long timed_kernel_ns(unsigned long long* ns_dev) {
  unsigned long long ns = 0;
  CUDA_CHECK(cudaMemcpy(&ns, ns_dev, sizeof ns, cudaMemcpyDeviceToHost));
  return ns;
}

}  // namespace

int main(int argc, char** argv) {
  shmem_init();
  const int me = shmem_my_pe();
  const char* what = argc > 1 ? argv[1] : "all";
  const std::size_t max_bytes = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : (std::size_t{1} << 30);
  unsigned long long* ns_dev = nullptr;
  CUDA_CHECK(cudaMalloc(&ns_dev, sizeof *ns_dev));
  cudaEvent_t e0, e1;
  CUDA_CHECK(cudaEventCreate(&e0));
  CUDA_CHECK(cudaEventCreate(&e1));

  if (!std::strcmp(what, "all") || !std::strcmp(what, "putbw")) {
    char* dst = static_cast<char*>(shmemx_cuda_malloc(max_bytes));
    char* src = static_cast<char*>(shmemx_cuda_malloc(max_bytes));
    // Four blocks per multiprocessor: enough loads in flight to approach the copy engine's rate.
    int sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int put_blocks = 4 * sms;
    char* local = nullptr;
    CUDA_CHECK(cudaMalloc(&local, max_bytes));
    CUDA_CHECK(cudaMemset(src, 1, max_bytes));
    for (std::size_t bytes = std::size_t{1} << 20; bytes <= max_bytes; bytes *= 4) {
      std::vector<double> put, put_il, copy;
      for (int t = 0; t < kTrials; ++t) {
        shmem_barrier_all();
        if (me == 0) {
          CUDA_CHECK(cudaEventRecord(e0));
          put_kernel<<<put_blocks, 512>>>(dst, src, bytes, 1);
          CUDA_CHECK(cudaEventRecord(e1));
          CUDA_CHECK(cudaEventSynchronize(e1));
          float ms = 0;
          CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
          put.push_back(bytes / (ms * 1e6));
          CUDA_CHECK(cudaEventRecord(e0));
          put_kernel_interleaved<<<put_blocks, 512>>>(dst, src, bytes, 1);
          CUDA_CHECK(cudaEventRecord(e1));
          CUDA_CHECK(cudaEventSynchronize(e1));
          CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
          put_il.push_back(bytes / (ms * 1e6));
          CUDA_CHECK(cudaEventRecord(e0));
          CUDA_CHECK(cudaMemcpyAsync(local, src, bytes, cudaMemcpyDeviceToDevice));
          CUDA_CHECK(cudaEventRecord(e1));
          CUDA_CHECK(cudaEventSynchronize(e1));
          CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
          copy.push_back(bytes / (ms * 1e6));
        }
      }
      if (me == 0) {
        row("put_bw", bytes, median(put), "GB/s");
        row("put_bw_interleaved", bytes, median(put_il), "GB/s");
        row("copy_limit", bytes, median(copy), "GB/s");
      }
    }
    cudaFree(local);
    shmemx_cuda_free(src);
    shmemx_cuda_free(dst);
  }

  if ((!std::strcmp(what, "all") || !std::strcmp(what, "pingpong")) && shmem_n_pes() == 2) {
    auto* word = static_cast<std::uint64_t*>(shmemx_cuda_calloc(1, sizeof(std::uint64_t)));
    auto* sig = static_cast<std::uint64_t*>(shmemx_cuda_calloc(1, sizeof(std::uint64_t)));
    constexpr int kIters = 10000;
    std::vector<double> us, us_relaxed;  // trials of the two forms alternate
    for (int t = 0; t < kTrials; ++t) {
      for (const bool relaxed : {false, true}) {
        CUDA_CHECK(cudaMemset(sig, 0, sizeof *sig));
        shmem_barrier_all();
        if (relaxed)
          pingpong_kernel<true><<<1, 1>>>(word, sig, kIters, ns_dev);
        else
          pingpong_kernel<false><<<1, 1>>>(word, sig, kIters, ns_dev);
        CUDA_CHECK(cudaDeviceSynchronize());
        (relaxed ? us_relaxed : us).push_back(timed_kernel_ns(ns_dev) / 1e3 / (2.0 * kIters));
      }
    }
    if (me == 0) row("pingpong_put_signal", 8, median(us), "us");
    if (me == 0) row("pingpong_put_signal_relaxed_wait", 8, median(us_relaxed), "us");
    shmemx_cuda_free(sig);
    shmemx_cuda_free(word);
  }

  if (!std::strcmp(what, "all") || !std::strcmp(what, "barrier")) {
    constexpr int kIters = 2000;
    std::vector<double> us;
    for (int t = 0; t < kTrials; ++t) {
      shmem_barrier_all();
      barrier_kernel<<<1, 1>>>(kIters, ns_dev);
      CUDA_CHECK(cudaDeviceSynchronize());
      us.push_back(timed_kernel_ns(ns_dev) / 1e3 / kIters);
    }
    row("device_barrier", 0, median(us), "us");
  }

  if (!std::strcmp(what, "all") || !std::strcmp(what, "stream")) {
    // The GPU heap first: a CUDA-wrapped stream needs it (its first allocation creates it).
    const std::size_t max_reduce = std::min<std::size_t>(max_bytes, std::size_t{256} << 20);
    auto* rs = static_cast<float*>(shmemx_cuda_malloc(max_reduce));
    auto* rd = static_cast<float*>(shmemx_cuda_malloc(max_reduce));
    CUDA_CHECK(cudaMemset(rs, 0, max_reduce));
    cudaStream_t cs;
    CUDA_CHECK(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    shmemx_stream_t st;
    if (shmemx_stream_create_cuda(&st, cs) != 0) shmem_global_exit(3);
    constexpr int kOps = 20;
    // us per operation: the median of kTrials batches of kOps, each batch timed with events.
    auto per_op = [&](auto&& enqueue) {
      std::vector<double> us;
      for (int t = 0; t < kTrials + 1; ++t) {  // the first batch warms up
        shmem_barrier_all();
        CUDA_CHECK(cudaEventRecord(e0, cs));
        for (int i = 0; i < kOps; ++i) enqueue();
        CUDA_CHECK(cudaEventRecord(e1, cs));
        if (shmemx_stream_synchronize(st) != 0) shmem_global_exit(4);
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        if (t > 0) us.push_back(ms * 1e3 / kOps);
      }
      return median(us);
    };
    row("stream_barrier", 0, per_op([&] { shmemx_barrier_all_on_stream(st); }), "us");
    for (std::size_t bytes = 8; bytes <= max_reduce; bytes *= 8) {
      const std::size_t n = bytes / sizeof(float);
      row("allreduce_sum_float", bytes,
          per_op([&] { shmemx_float_sum_reduce_on_stream(SHMEM_TEAM_WORLD, rd, rs, n, st); }), "us");
      if (bytes * 8 > max_reduce && bytes != max_reduce) bytes = max_reduce / 8;  // end exactly at the maximum
    }
    shmemx_cuda_free(rd);
    shmemx_cuda_free(rs);
    const std::size_t max_a2a = std::size_t{16} << 20;
    auto* as = static_cast<char*>(shmemx_cuda_malloc(max_a2a * shmem_n_pes()));
    auto* ad = static_cast<char*>(shmemx_cuda_malloc(max_a2a * shmem_n_pes()));
    for (std::size_t bytes = 8; bytes <= max_a2a; bytes *= 8)
      row("alltoall", bytes, per_op([&] { shmemx_alltoallmem_on_stream(SHMEM_TEAM_WORLD, ad, as, bytes, st); }), "us");
    shmemx_cuda_free(ad);
    shmemx_cuda_free(as);
    shmemx_stream_destroy(st);
    cudaStreamDestroy(cs);
  }

  cudaFree(ns_dev);
  shmem_finalize();
  return 0;
}
