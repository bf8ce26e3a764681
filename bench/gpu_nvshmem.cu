// The NVSHMEM side of bench/gpu_bench.cu: the same three measurements with NVSHMEM's device API, for
// the side-by-side table (built only on the GPU machine, against the nvidia-nvshmem-cu13 wheel:
// SHMEM_NVSHMEM_DIR). Started by our oshrun: our library only carries NVSHMEM's unique ID from PE 0
// to the others (shmem_broadcastmem); every measured operation is NVSHMEM's.
#include <nvshmem.h>
#include <nvshmemx.h>
#include <shmem.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu_bench_util.cuh"

namespace {

using gpu_bench::kTrials;
using gpu_bench::median;

__global__ void put_kernel(char* dest, const char* src, std::size_t bytes, int pe) {
  const std::size_t chunk = (bytes + gridDim.x - 1) / gridDim.x;
  const std::size_t lo = ::min(bytes, chunk * blockIdx.x), hi = ::min(bytes, lo + chunk);
  nvshmemx_putmem_block(dest + lo, src + lo, hi - lo, pe);
}
__global__ void pingpong_kernel(std::uint64_t* word, std::uint64_t* sig, int iters, unsigned long long* ns) {
  const int me = nvshmem_my_pe(), peer = 1 - me;
  nvshmem_barrier_all();
  const unsigned long long t0 = gpu_bench::now_ns();
  for (int i = 1; i <= iters; ++i) {
    if (me == 0) {
      nvshmem_putmem_signal_nbi(word, word, sizeof *word, sig, i, NVSHMEM_SIGNAL_SET, peer);
      nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, i);
    } else {
      nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, i);
      nvshmem_putmem_signal_nbi(word, word, sizeof *word, sig, i, NVSHMEM_SIGNAL_SET, peer);
    }
  }
  *ns = gpu_bench::now_ns() - t0;
}
__global__ void barrier_kernel(int iters, unsigned long long* ns) {
  nvshmem_barrier_all();
  const unsigned long long t0 = gpu_bench::now_ns();
  for (int i = 0; i < iters; ++i) nvshmem_barrier_all();
  *ns = gpu_bench::now_ns() - t0;
}

void row(const char* metric, std::size_t bytes, double value, const char* unit) {
  if (nvshmem_my_pe() == 0) std::printf("nvshmem,%s,%zu,%d,%.4f,%s\n", metric, bytes, nvshmem_n_pes(), value, unit);
}

}  // namespace

int main(int argc, char** argv) {
  shmem_init();
  CUDA_CHECK(cudaSetDevice(0));
  auto* uid = static_cast<nvshmemx_uniqueid_t*>(shmem_malloc(sizeof(nvshmemx_uniqueid_t)));
  if (shmem_my_pe() == 0) nvshmemx_get_uniqueid(uid);
  shmem_barrier_all();
  shmem_broadcastmem(SHMEM_TEAM_WORLD, uid, uid, sizeof *uid, 0);
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  nvshmemx_set_attr_uniqueid_args(shmem_my_pe(), shmem_n_pes(), uid, &attr);
  if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0) {
    std::fprintf(stderr, "gpu_nvshmem: nvshmemx_init_attr failed\n");
    shmem_global_exit(2);
  }
  const int me = nvshmem_my_pe();
  const char* what = argc > 1 ? argv[1] : "all";
  const std::size_t max_bytes = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : (std::size_t{1} << 30);
  unsigned long long* ns_dev = nullptr;
  CUDA_CHECK(cudaMalloc(&ns_dev, sizeof *ns_dev));
  cudaEvent_t e0, e1;
  CUDA_CHECK(cudaEventCreate(&e0));
  CUDA_CHECK(cudaEventCreate(&e1));
  auto ns = [&] {
    unsigned long long v = 0;
    CUDA_CHECK(cudaMemcpy(&v, ns_dev, sizeof v, cudaMemcpyDeviceToHost));
    return static_cast<double>(v);
  };

  if (!std::strcmp(what, "all") || !std::strcmp(what, "putbw")) {
    int sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int put_blocks = 4 * sms;  // as gpu_bench.cu
    char* dst = static_cast<char*>(nvshmem_malloc(max_bytes));
    char* src = static_cast<char*>(nvshmem_malloc(max_bytes));
    CUDA_CHECK(cudaMemset(src, 1, max_bytes));
    for (std::size_t bytes = std::size_t{1} << 20; bytes <= max_bytes; bytes *= 4) {
      std::vector<double> put;
      for (int t = 0; t < kTrials; ++t) {
        nvshmem_barrier_all();
        if (me == 0) {
          CUDA_CHECK(cudaEventRecord(e0));
          put_kernel<<<put_blocks, 512>>>(dst, src, bytes, 1);
          CUDA_CHECK(cudaEventRecord(e1));
          CUDA_CHECK(cudaEventSynchronize(e1));
          float ms = 0;
          CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
          put.push_back(bytes / (ms * 1e6));
        }
      }
      if (me == 0) row("put_bw", bytes, median(put), "GB/s");
    }
    nvshmem_barrier_all();
    nvshmem_free(src);
    nvshmem_free(dst);
  }
  if ((!std::strcmp(what, "all") || !std::strcmp(what, "pingpong")) && nvshmem_n_pes() == 2) {
    auto* word = static_cast<std::uint64_t*>(nvshmem_calloc(1, sizeof(std::uint64_t)));
    auto* sig = static_cast<std::uint64_t*>(nvshmem_calloc(1, sizeof(std::uint64_t)));
    constexpr int kIters = 10000;
    std::vector<double> us;
    for (int t = 0; t < kTrials; ++t) {
      CUDA_CHECK(cudaMemset(sig, 0, sizeof *sig));
      nvshmem_barrier_all();
      pingpong_kernel<<<1, 1>>>(word, sig, kIters, ns_dev);
      CUDA_CHECK(cudaDeviceSynchronize());
      us.push_back(ns() / 1e3 / (2.0 * kIters));
    }
    row("pingpong_put_signal", 8, median(us), "us");
    nvshmem_free(sig);
    nvshmem_free(word);
  }
  if (!std::strcmp(what, "all") || !std::strcmp(what, "barrier")) {
    constexpr int kIters = 2000;
    std::vector<double> us;
    for (int t = 0; t < kTrials; ++t) {
      nvshmem_barrier_all();
      barrier_kernel<<<1, 1>>>(kIters, ns_dev);
      CUDA_CHECK(cudaDeviceSynchronize());
      us.push_back(ns() / 1e3 / kIters);
    }
    row("device_barrier", 0, median(us), "us");
  }
  if (!std::strcmp(what, "all") || !std::strcmp(what, "stream")) {
    cudaStream_t cs;
    CUDA_CHECK(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    constexpr int kOps = 20;
    auto per_op = [&](auto&& enqueue) {
      std::vector<double> us;
      for (int t = 0; t < kTrials + 1; ++t) {
        nvshmem_barrier_all();
        CUDA_CHECK(cudaEventRecord(e0, cs));
        for (int i = 0; i < kOps; ++i) enqueue();
        CUDA_CHECK(cudaEventRecord(e1, cs));
        CUDA_CHECK(cudaStreamSynchronize(cs));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        if (t > 0) us.push_back(ms * 1e3 / kOps);
      }
      return median(us);
    };
    row("stream_barrier", 0, per_op([&] { nvshmemx_barrier_all_on_stream(cs); }), "us");
    const std::size_t max_reduce = std::min<std::size_t>(max_bytes, std::size_t{256} << 20);
    auto* rs = static_cast<float*>(nvshmem_malloc(max_reduce));
    auto* rd = static_cast<float*>(nvshmem_malloc(max_reduce));
    CUDA_CHECK(cudaMemset(rs, 0, max_reduce));
    for (std::size_t bytes = 8; bytes <= max_reduce; bytes *= 8) {
      const std::size_t n = bytes / sizeof(float);
      row("allreduce_sum_float", bytes,
          per_op([&] { nvshmemx_float_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, rd, rs, n, cs); }), "us");
      if (bytes * 8 > max_reduce && bytes != max_reduce) bytes = max_reduce / 8;
    }
    nvshmem_free(rd);
    nvshmem_free(rs);
    const std::size_t max_a2a = std::size_t{16} << 20;
    auto* as = static_cast<char*>(nvshmem_malloc(max_a2a * nvshmem_n_pes()));
    auto* ad = static_cast<char*>(nvshmem_malloc(max_a2a * nvshmem_n_pes()));
    for (std::size_t bytes = 8; bytes <= max_a2a; bytes *= 8)
      row("alltoall", bytes, per_op([&] { nvshmemx_alltoallmem_on_stream(NVSHMEM_TEAM_WORLD, ad, as, bytes, cs); }),
          "us");
    nvshmem_free(ad);
    nvshmem_free(as);
    cudaStreamDestroy(cs);
  }
  cudaFree(ns_dev);
  nvshmem_finalize();
  shmem_free(uid);
  shmem_finalize();
  return 0;
}
