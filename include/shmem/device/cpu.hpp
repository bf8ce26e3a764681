#pragma once
// The two CPU primitives that both the device API and the library's own waits use: a spin-wait
// hint and a store fence. No dependencies, so the library core can include it too.
#include "shmem/device/cxx20.hpp"  // first: refuses C++ before 20 in words
#include <atomic>

namespace shmem::device::detail {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#else
  asm volatile("" ::: "memory");
#endif
}

// Orders this thread's earlier stores, including the non-temporal ones a large memcpy may use.
inline void store_fence() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_sfence();
#else
  std::atomic_thread_fence(std::memory_order_release);
#endif
}

}  // namespace shmem::device::detail
