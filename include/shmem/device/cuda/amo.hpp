#pragma once
// In-kernel atomics on symmetric words of node-local PEs: relaxed system-scope read-modify-writes
// (common.hpp, memory model). The types are the CPU device API's: integer operations on 32/64-bit
// integers; fetch/set/swap/compare_swap also on float and double; add/fetch_add also on 8/16-bit
// integers (a compare-and-swap on the enclosing 32-bit word) and float/double. Every thread of
// every block may call them at once.
#include "shmem/device/cuda/common.hpp"

namespace shmem::device {

namespace cuda::detail {
template <class T>
inline constexpr bool kAmoInt = std::is_integral_v<T> && !std::is_same_v<T, bool> && (sizeof(T) == 4 || sizeof(T) == 8);
template <class T>
inline constexpr bool kAmoAny = kAmoInt<T> || std::is_same_v<T, float> || std::is_same_v<T, double>;
template <class T>
inline constexpr bool kAmoAdd = kAmoAny<T> || (std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 2);
}  // namespace cuda::detail

template <class T>
__device__ __forceinline__ T atomic_fetch(const T* src, int pe) {
  static_assert(cuda::detail::kAmoAny<T>, "atomic_fetch: 32/64-bit integer, float or double");
  if (T* w = cuda::detail::word<T>("shmem::device::atomic_fetch", src, pe)) [[likely]]
    return cuda::detail::SysRef<T>(*w).load(cuda::detail::kRelaxed);
  return T{};
}
template <class T>
__device__ __forceinline__ void atomic_set(T* dest, T value, int pe) {
  static_assert(cuda::detail::kAmoAny<T>, "atomic_set: 32/64-bit integer, float or double");
  if (T* w = cuda::detail::word<T>("shmem::device::atomic_set", dest, pe)) [[likely]]
    cuda::detail::SysRef<T>(*w).store(value, cuda::detail::kRelaxed);
}
template <class T>
__device__ __forceinline__ T atomic_swap(T* dest, T value, int pe) {
  static_assert(cuda::detail::kAmoAny<T>, "atomic_swap: 32/64-bit integer, float or double");
  if (T* w = cuda::detail::word<T>("shmem::device::atomic_swap", dest, pe)) [[likely]]
    return cuda::detail::SysRef<T>(*w).exchange(value, cuda::detail::kRelaxed);
  return T{};
}
// Stores `value` if the word equals `cond` (bitwise for float/double); returns the old value.
template <class T>
__device__ __forceinline__ T atomic_compare_swap(T* dest, T cond, T value, int pe) {
  static_assert(cuda::detail::kAmoAny<T>, "atomic_compare_swap: 32/64-bit integer, float or double");
  T expected = cond;
  if (T* w = cuda::detail::word<T>("shmem::device::atomic_compare_swap", dest, pe)) [[likely]] {
    cuda::detail::SysRef<T>(*w).compare_exchange_strong(expected, value, cuda::detail::kRelaxed);
    return expected;
  }
  return T{};
}
template <class T>
__device__ __forceinline__ T atomic_fetch_add(T* dest, T value, int pe) {
  static_assert(cuda::detail::kAmoAdd<T>, "atomic_fetch_add: an integer, float or double");
  if (T* w = cuda::detail::word<T>("shmem::device::atomic_fetch_add", dest, pe)) [[likely]]
    return cuda::detail::SysRef<T>(*w).fetch_add(value, cuda::detail::kRelaxed);
  return T{};
}
template <class T>
__device__ __forceinline__ void atomic_add(T* dest, T value, int pe) {
  static_assert(cuda::detail::kAmoAdd<T>, "atomic_add: an integer, float or double");
  if (T* w = cuda::detail::word<T>("shmem::device::atomic_add", dest, pe)) [[likely]]
    cuda::detail::SysRef<T>(*w).fetch_add(value, cuda::detail::kRelaxed);
}
template <class T>
__device__ __forceinline__ T atomic_fetch_inc(T* dest, int pe) {
  static_assert(cuda::detail::kAmoInt<T>, "atomic_fetch_inc: a 32/64-bit integer");
  return atomic_fetch_add<T>(dest, T{1}, pe);
}
template <class T>
__device__ __forceinline__ void atomic_inc(T* dest, int pe) {
  static_assert(cuda::detail::kAmoInt<T>, "atomic_inc: a 32/64-bit integer");
  atomic_add<T>(dest, T{1}, pe);
}

#define SHMEM_CUDA_BITWISE_AMO_(OP)                                                            \
  template <class T>                                                                           \
  __device__ __forceinline__ T atomic_fetch_##OP(T* dest, T value, int pe) {                   \
    static_assert(cuda::detail::kAmoInt<T>, "atomic_fetch_" #OP ": a 32/64-bit integer");      \
    if (T* w = cuda::detail::word<T>("shmem::device::atomic_fetch_" #OP, dest, pe)) [[likely]] \
      return cuda::detail::SysRef<T>(*w).fetch_##OP(value, cuda::detail::kRelaxed);            \
    return T{};                                                                                \
  }                                                                                            \
  template <class T>                                                                           \
  __device__ __forceinline__ void atomic_##OP(T* dest, T value, int pe) {                      \
    static_assert(cuda::detail::kAmoInt<T>, "atomic_" #OP ": a 32/64-bit integer");            \
    if (T* w = cuda::detail::word<T>("shmem::device::atomic_" #OP, dest, pe)) [[likely]]       \
      cuda::detail::SysRef<T>(*w).fetch_##OP(value, cuda::detail::kRelaxed);                   \
  }
SHMEM_CUDA_BITWISE_AMO_(and)
SHMEM_CUDA_BITWISE_AMO_(or)
SHMEM_CUDA_BITWISE_AMO_(xor)
#undef SHMEM_CUDA_BITWISE_AMO_

}  // namespace shmem::device
