// Host atomics on GPU symmetric memory (host_atomic.hpp): the device API's atomics in a one-thread
// kernel, fenced at system scope on both sides, so that the host's earlier transfers are visible
// to whoever sees the new value, and the operation is visible before the host goes on.
#include "cuda/host_atomic.hpp"

#include <shmem/device/device.hpp>

#include "plugins/cuda_plugin_abi.h"

namespace dev = shmem::device;

namespace shmem::cuda {
namespace {

template <class U>
__device__ U apply(U* w, int op, U value, U cond, int pe) {
  switch (op) {
    case SHMEM_CUDA_ATOMIC_FETCH: return dev::atomic_fetch<U>(w, pe);
    case SHMEM_CUDA_ATOMIC_SET: return dev::atomic_swap<U>(w, value, pe);
    case SHMEM_CUDA_ATOMIC_SWAP: return dev::atomic_swap<U>(w, value, pe);
    case SHMEM_CUDA_ATOMIC_COMPARE_SWAP: return dev::atomic_compare_swap<U>(w, cond, value, pe);
    case SHMEM_CUDA_ATOMIC_ADD: return dev::atomic_fetch_add<U>(w, value, pe);
    case SHMEM_CUDA_ATOMIC_AND: return dev::atomic_fetch_and<U>(w, value, pe);
    case SHMEM_CUDA_ATOMIC_OR: return dev::atomic_fetch_or<U>(w, value, pe);
    case SHMEM_CUDA_ATOMIC_XOR: return dev::atomic_fetch_xor<U>(w, value, pe);
    default: return U{};
  }
}

__global__ void k_host_atomic(void* addr, int pe, int width, int op, std::uint64_t value, std::uint64_t cond,
                              std::uint64_t* old) {
  __threadfence_system();
  if (width == 4)
    *old = apply<std::uint32_t>(static_cast<std::uint32_t*>(addr), op, static_cast<std::uint32_t>(value),
                                static_cast<std::uint32_t>(cond), pe);
  else
    *old = apply<std::uint64_t>(static_cast<std::uint64_t*>(addr), op, value, cond, pe);
  __threadfence_system();
}

}  // namespace

int host_atomic(cudaStream_t s, void* addr, int pe, int width, int op, std::uint64_t value, std::uint64_t cond,
                std::uint64_t* old) noexcept {
  k_host_atomic<<<1, 1, 0, s>>>(addr, pe, width, op, value, cond, old);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace shmem::cuda
