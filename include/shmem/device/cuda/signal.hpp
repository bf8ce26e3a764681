#pragma once
// In-kernel signals and point-to-point waits. Signal words are 32- or 64-bit integers (OpenSHMEM's
// uint64_t, the Ascend API's int32_t). A signal update is a release operation after the data, and
// every wait acquires, so the thread that sees a signal sees the data put before it.
#include "shmem/device/cuda/rma.hpp"

namespace shmem::device {

namespace cuda::detail {
template <class S>
inline constexpr bool kSignalWord =
    std::is_integral_v<S> && !std::is_same_v<S, bool> && (sizeof(S) == 4 || sizeof(S) == 8);

__device__ __forceinline__ bool valid_sig_op(const char* routine, int sig_op) {
  if (sig_op == SHMEM_SIGNAL_SET || sig_op == SHMEM_SIGNAL_ADD) [[likely]]
    return true;
  bad_argument(routine, sig_op);
  return false;
}
template <class S>
__device__ __forceinline__ void signal_update(S* w, S signal, int sig_op) {
  if (sig_op == SHMEM_SIGNAL_ADD)
    SysRef<S>(*w).fetch_add(signal, kRelease);
  else
    SysRef<S>(*w).store(signal, kRelease);
}
// Checks the signal word (and the sig_op) before any data moves, so a bad signal moves nothing.
template <class S>
__device__ __forceinline__ S* signal_word(const char* routine, S* sig_addr, int sig_op, int pe) {
  static_assert(kSignalWord<S>, "signal words are 32- or 64-bit integers");
  if (!valid_sig_op(routine, sig_op)) return nullptr;
  return word<S>(routine, sig_addr, pe);
}
// The cooperative forms: every thread checks the signal word silently (all agree); when it is
// bad, the first thread reports it through signal_word and nobody moves any data.
template <class S>
__device__ __forceinline__ S* shared_signal_word(const char* routine, S* sig_addr, int sig_op, int pe, bool first) {
  char* p = target(sig_addr, sizeof(S), pe);
  if ((sig_op == SHMEM_SIGNAL_SET || sig_op == SHMEM_SIGNAL_ADD) && p != nullptr &&
      reinterpret_cast<std::uintptr_t>(p) % alignof(S) == 0) [[likely]]
    return reinterpret_cast<S*>(p);
  if (first) signal_word<S>(routine, sig_addr, sig_op, pe);
  return nullptr;
}
}  // namespace cuda::detail

template <class S>
__device__ __forceinline__ void signal_op(S* sig_addr, S signal, int sig_op, int pe) {
  if (S* w = cuda::detail::signal_word<S>("shmem::device::signal_op", sig_addr, sig_op, pe)) [[likely]]
    cuda::detail::signal_update(w, signal, sig_op);
}

template <class S>
__device__ __forceinline__ void putmem_signal(void* dest, const void* src, std::size_t bytes, S* sig_addr, S signal,
                                              int sig_op, int pe) {
  constexpr const char* f = "shmem::device::putmem_signal";
  S* w = cuda::detail::signal_word<S>(f, sig_addr, sig_op, pe);
  if (w != nullptr && cuda::detail::rma<true>(f, dest, src, bytes, pe, 0, 1)) [[likely]]
    cuda::detail::signal_update(w, signal, sig_op);  // release: ordered after this thread's data
}
template <class S>
__device__ __forceinline__ void putmem_signal_nbi(void* dest, const void* src, std::size_t bytes, S* sig_addr, S signal,
                                                  int sig_op, int pe) {
  putmem_signal(dest, src, bytes, sig_addr, signal, sig_op, pe);
}
template <class T, class S>
__device__ __forceinline__ void put_signal(T* dest, const T* src, std::size_t nelems, S* sig_addr, S signal, int sig_op,
                                           int pe) {
  putmem_signal(dest, src, nelems * sizeof(T), sig_addr, signal, sig_op, pe);
}
template <class T, class S>
__device__ __forceinline__ void put_signal_nbi(T* dest, const T* src, std::size_t nelems, S* sig_addr, S signal,
                                               int sig_op, int pe) {
  putmem_signal(dest, src, nelems * sizeof(T), sig_addr, signal, sig_op, pe);
}

// Block scope: the block's threads share the data; thread 0 signals once every thread's share
// is written (a __syncthreads, then a system-scope fence that makes the block's stores visible
// before the signal).
template <class S>
__device__ __forceinline__ void putmem_signal_block(const Block& b, void* dest, const void* src, std::size_t bytes,
                                                    S* sig_addr, S signal, int sig_op, int pe) {
  constexpr const char* f = "shmem::device::putmem_signal_block";
  S* w = cuda::detail::shared_signal_word<S>(f, sig_addr, sig_op, pe, b.thread_id == 0);
  if (w == nullptr) return;  // every thread of the block alike
  const bool ok = cuda::detail::rma<true>(f, dest, src, bytes, pe, static_cast<unsigned>(b.thread_id),
                                          static_cast<unsigned>(b.block_dim));
  __syncthreads();
  if (ok && b.thread_id == 0) {
    cuda::detail::fence_system();
    cuda::detail::signal_update(w, signal, sig_op);
  }
}
template <class S>
__device__ __forceinline__ void putmem_signal_nbi_block(const Block& b, void* dest, const void* src, std::size_t bytes,
                                                        S* sig_addr, S signal, int sig_op, int pe) {
  putmem_signal_block(b, dest, src, bytes, sig_addr, signal, sig_op, pe);
}
template <class T, class S>
__device__ __forceinline__ void put_signal_block(const Block& b, T* dest, const T* src, std::size_t nelems, S* sig_addr,
                                                 S signal, int sig_op, int pe) {
  putmem_signal_block(b, dest, src, nelems * sizeof(T), sig_addr, signal, sig_op, pe);
}
// Warp scope: the same with the 32 threads of a full warp, lane 0 signalling.
template <class S>
__device__ __forceinline__ void putmem_signal_warp(void* dest, const void* src, std::size_t bytes, S* sig_addr,
                                                   S signal, int sig_op, int pe) {
  constexpr const char* f = "shmem::device::putmem_signal_warp";
  S* w = cuda::detail::shared_signal_word<S>(f, sig_addr, sig_op, pe, cuda::detail::lane() == 0);
  if (w == nullptr) return;  // every lane alike
  const bool ok = cuda::detail::rma<true>(f, dest, src, bytes, pe, cuda::detail::lane(), 32);
  __syncwarp();
  if (ok && cuda::detail::lane() == 0) {
    cuda::detail::fence_system();
    cuda::detail::signal_update(w, signal, sig_op);
  }
  __syncwarp();
}

// The local signal word's current value (acquire).
template <class S>
__device__ __forceinline__ S signal_fetch(const S* sig_addr) {
  static_assert(cuda::detail::kSignalWord<S>, "signal words are 32- or 64-bit integers");
  return cuda::detail::SysRef<S>(*const_cast<S*>(sig_addr)).load(cuda::detail::kAcquire);
}

// Waits until the local word *ivar satisfies (cmp, value) and returns the value that did. Any
// 1..8-byte integer or float/double word. Past SHMEM_WAIT_TIMEOUT: reported, and the kernel traps.
template <class T>
__device__ __forceinline__ T wait_until(T* ivar, int cmp, T value) {
  static_assert(std::is_arithmetic_v<T> && sizeof(T) <= 8, "wait_until: an integer, float or double word");
  constexpr const char* f = "shmem::device::wait_until";
  if (!cuda::detail::valid_cmp(cmp)) {
    cuda::detail::bad_argument(f, cmp);
    return T{};
  }
  cuda::detail::SysRef<T> a(*ivar);
  cuda::detail::Backoff backoff;
  for (;;) {
    const T v = a.load(cuda::detail::kAcquire);
    if (cuda::detail::compare(cmp, v, value)) return v;
    backoff.pause(f, ivar, cuda::detail::bits(value), cuda::detail::bits(v), cmp);
  }
}
template <class T>
__device__ __forceinline__ bool test(T* ivar, int cmp, T value) {
  static_assert(std::is_arithmetic_v<T> && sizeof(T) <= 8, "test: an integer, float or double word");
  if (!cuda::detail::valid_cmp(cmp)) {
    cuda::detail::bad_argument("shmem::device::test", cmp);
    return false;
  }
  return cuda::detail::compare(cmp, cuda::detail::SysRef<T>(*ivar).load(cuda::detail::kAcquire), value);
}
template <class S>
__device__ __forceinline__ S signal_wait_until(S* sig_addr, int cmp, S value) {
  static_assert(cuda::detail::kSignalWord<S>, "signal words are 32- or 64-bit integers");
  return wait_until(sig_addr, cmp, value);
}

}  // namespace shmem::device
