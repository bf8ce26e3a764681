#pragma once
// What the CUDA examples share: the --probe convention of the GPU tests, CUDA error checks that
// end the whole job (a PE that stops alone would leave the others waiting in a barrier), RAII for
// GPU symmetric and local device arrays, a small option parser and the hash the inputs come from.
#include <cuda_runtime.h>
#include <shmem.h>
#include <shmemx.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../common/symmetric.hpp"  // sum_over_pes

namespace cuda_examples {

// `prog --probe` exits 77 (CTest: SKIPPED) where there is no CUDA device, 0 where there is one;
// tests/cuda/gpu_run.sh runs it before starting the PEs. Returns -1 for any other command line.
inline int probe(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--probe") != 0) return -1;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::printf("SKIPPED: no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return 77;
  }
  return 0;
}

// A failed CUDA call (a kernel that trapped on a device-side error or a wait past
// SHMEM_WAIT_TIMEOUT included) ends the job: the peers may be waiting for this PE.
inline void cuda_check(cudaError_t e, const char* call, const char* file, int line) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "FAILED: PE %d: %s (%s:%d): %s\n", shmem_my_pe(), call, file, line, cudaGetErrorString(e));
  shmem_global_exit(1);
}
#define EXAMPLE_CUDA_CHECK(call) ::cuda_examples::cuda_check((call), #call, __FILE__, __LINE__)

// A zeroed array in the GPU symmetric heap (collective: every PE creates and destroys its arrays
// in the same order with the same sizes). Kernels reach the peers' copies through the device API.
template <class T>
class GpuSymmetric {
 public:
  explicit GpuSymmetric(std::size_t n) : n_(n < 1 ? 1 : n) {
    p_ = static_cast<T*>(shmemx_cuda_calloc(n_, sizeof(T)));
    if (p_ == nullptr) {
      std::fprintf(stderr,
                   "FAILED: PE %d: shmemx_cuda_calloc(%zu, %zu) returned NULL (no GPU heap: see the library's "
                   "message; or SHMEM_CUDA_HEAP_SIZE is too small)\n",
                   shmem_my_pe(), n_, sizeof(T));
      shmem_global_exit(1);
    }
  }
  ~GpuSymmetric() { shmemx_cuda_free(p_); }
  GpuSymmetric(const GpuSymmetric&) = delete;
  GpuSymmetric& operator=(const GpuSymmetric&) = delete;
  T* get() const { return p_; }
  std::size_t bytes() const { return n_ * sizeof(T); }

 private:
  std::size_t n_;
  T* p_ = nullptr;
};

// Ordinary (non-symmetric) device memory: sources of puts, inputs, outputs.
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t n) : n_(n < 1 ? 1 : n) { EXAMPLE_CUDA_CHECK(cudaMalloc(&p_, n_ * sizeof(T))); }
  ~DeviceArray() { cudaFree(p_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* get() const { return p_; }
  std::size_t bytes() const { return n_ * sizeof(T); }

 private:
  std::size_t n_;
  T* p_ = nullptr;
};

// The library puts each PE's GPU heap on a device of its choosing (SHMEM_CUDA_DEVICE, else the
// node-local index modulo the device count): make that device current for this process's own
// allocations and launches. `sym` is any GPU symmetric address.
// (With one GPU there is nothing to choose, so a failed query only warns.)
inline void use_device_of(const void* sym) {
  cudaPointerAttributes a{};
  if (const cudaError_t e = cudaPointerGetAttributes(&a, sym); e != cudaSuccess) {
    std::fprintf(stderr, "PE %d: warning: cudaPointerGetAttributes(%p): %s; keeping the current device\n",
                 shmem_my_pe(), sym, cudaGetErrorString(e));
    cudaGetLastError();  // clear it: later checks must not see it
    return;
  }
  if (a.device >= 0) EXAMPLE_CUDA_CHECK(cudaSetDevice(a.device));
}

// "-X value" options, each a whole number in [lo, hi]; anything else is an error naming the
// argument at fault (exit status 2, before shmem_init, so every PE stops alike).
class Options {
 public:
  Options(int argc, char** argv, const char* usage) : argc_(argc), argv_(argv), usage_(usage), used_(argc, false) {}
  long get(const char* name, long fallback, long lo, long hi) {
    for (int i = 1; i < argc_; ++i) {
      if (std::strcmp(argv_[i], name) != 0) continue;
      char* end = nullptr;
      const long v = i + 1 < argc_ ? std::strtol(argv_[i + 1], &end, 10) : 0;
      if (end == nullptr || end == argv_[i + 1] || *end != '\0' || v < lo || v > hi)
        fail("%s expects a whole number from %ld to %ld", name, lo, hi);
      used_[i] = used_[i + 1] = true;
      return v;
    }
    return fallback;
  }
  // Call after the last get(): every argument must have been an option or its value.
  void done() {
    for (int i = 1; i < argc_; ++i)
      if (!used_[i]) fail("unknown or repeated argument '%s'", argv_[i]);
  }

 private:
  template <class... A>
  [[noreturn]] void fail(const char* fmt, A... a) {
    std::fprintf(stderr, "%s: ", argv_[0]);
    std::fprintf(stderr, fmt, a...);
    std::fprintf(stderr, "\nusage: %s %s\n", argv_[0], usage_);
    std::exit(2);
  }
  int argc_;
  char** argv_;
  const char* usage_;
  std::vector<bool> used_;
};

// splitmix64's finaliser over a few integers: the inputs of every example, on host and device.
__host__ __device__ inline std::uint64_t mix(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d = 0) {
  std::uint64_t z = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull ^
                    (c + 0x8cb92ba72f3d8dd7ull) * 0x94d049bb133111ebull ^ (d + 0x3c6ef372fe94f82bull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// A failed shmem::device::launch (it printed the CUDA error) ends the job.
inline void launch_check(int rc) {
  if (rc == 0) return;
  std::fprintf(stderr, "FAILED: PE %d: shmem::device::launch returned %d\n", shmem_my_pe(), rc);
  shmem_global_exit(1);
}

// The job's verdict: the wrong values of all PEs summed; PE 0 prints VERIFIED or FAILED; every
// PE returns the exit status (0 only when nothing was wrong anywhere).
inline int verdict(long wrong, const char* what) {
  const long total = shmem_examples::sum_over_pes(wrong);
  if (shmem_my_pe() == 0) std::printf("%s: %s\n", what, total == 0 ? "VERIFIED" : "FAILED");
  if (shmem_my_pe() == 0 && total != 0) std::printf("  %ld wrong values over all PEs\n", total);
  return total == 0 ? 0 : 1;
}

// main() of every example: --probe, else run(argc, argv) between shmem_init (which run calls,
// after parsing its options) and shmem_finalize, so that run's GPU arrays are freed (collectively)
// before the library closes.
inline int example_main(int argc, char** argv, int (*run)(int, char**)) {
  if (const int rc = probe(argc, argv); rc >= 0) return rc;
  const int rc = run(argc, argv);
  shmem_finalize();
  return rc;
}

}  // namespace cuda_examples
