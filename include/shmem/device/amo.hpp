#pragma once
// In-kernel atomics on symmetric words: lock-free hardware atomics on a node-local peer's mapped
// word (std::atomic_ref, sequentially consistent, like the host shmem_atomic_*); on a PE of
// another host, the library's remote atomics (common.hpp's far_amo).
// Integer operations take 32- and 64-bit integers; fetch/set/swap/compare_swap also float and
// double; add/fetch_add also 8/16-bit integers and float/double (Ascend SHMEM's MTE add types).
// Every thread of every block may call them at once.
#include "shmem/device/common.hpp"

namespace shmem::device {

namespace detail {
template <class T>
inline constexpr bool kAmoInt = std::is_integral_v<T> && !std::is_same_v<T, bool> && (sizeof(T) == 4 || sizeof(T) == 8);
template <class T>
inline constexpr bool kAmoAny = kAmoInt<T> || std::is_same_v<T, float> || std::is_same_v<T, double>;
template <class T>
inline constexpr bool kAmoAdd = kAmoAny<T> || (std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 2);
inline constexpr auto kAmoOrder = std::memory_order_seq_cst;
}  // namespace detail

template <class T>
inline T atomic_fetch(const T* src, int pe) noexcept {
  static_assert(detail::kAmoAny<T>, "atomic_fetch: 32/64-bit integer, float or double");
  if (T* w = detail::local_word<T>(src, pe)) [[likely]]
    return std::atomic_ref<T>(*w).load(detail::kAmoOrder);
  return detail::far_amo<T>("shmem::device::atomic_fetch", detail::kRemoteFetch, const_cast<T*>(src), T{}, T{}, pe);
}
template <class T>
inline void atomic_set(T* dest, T value, int pe) noexcept {
  static_assert(detail::kAmoAny<T>, "atomic_set: 32/64-bit integer, float or double");
  if (T* w = detail::local_word<T>(dest, pe)) [[likely]]
    std::atomic_ref<T>(*w).store(value, detail::kAmoOrder);
  else
    detail::far_amo<T>("shmem::device::atomic_set", detail::kRemoteSet, dest, value, T{}, pe);
}
template <class T>
inline T atomic_swap(T* dest, T value, int pe) noexcept {
  static_assert(detail::kAmoAny<T>, "atomic_swap: 32/64-bit integer, float or double");
  if (T* w = detail::local_word<T>(dest, pe)) [[likely]]
    return std::atomic_ref<T>(*w).exchange(value, detail::kAmoOrder);
  return detail::far_amo<T>("shmem::device::atomic_swap", detail::kRemoteSwap, dest, value, T{}, pe);
}
// Stores `value` if the word equals `cond`; returns the old value either way.
template <class T>
inline T atomic_compare_swap(T* dest, T cond, T value, int pe) noexcept {
  static_assert(detail::kAmoAny<T>, "atomic_compare_swap: 32/64-bit integer, float or double");
  if (T* w = detail::local_word<T>(dest, pe)) [[likely]] {
    T expected = cond;
    std::atomic_ref<T>(*w).compare_exchange_strong(expected, value, detail::kAmoOrder);
    return expected;
  }
  return detail::far_amo<T>("shmem::device::atomic_compare_swap", detail::kRemoteCompareSwap, dest, value, cond, pe);
}
template <class T>
inline T atomic_fetch_add(T* dest, T value, int pe) noexcept {
  static_assert(detail::kAmoAdd<T>, "atomic_fetch_add: an integer, float or double");
  if (T* w = detail::local_word<T>(dest, pe)) [[likely]]
    return std::atomic_ref<T>(*w).fetch_add(value, detail::kAmoOrder);
  return detail::far_amo<T>("shmem::device::atomic_fetch_add", detail::kRemoteFetchAdd, dest, value, T{}, pe);
}
template <class T>
inline void atomic_add(T* dest, T value, int pe) noexcept {
  static_assert(detail::kAmoAdd<T>, "atomic_add: an integer, float or double");
  if (T* w = detail::local_word<T>(dest, pe)) [[likely]]
    std::atomic_ref<T>(*w).fetch_add(value, detail::kAmoOrder);
  else
    detail::far_amo<T>("shmem::device::atomic_add", detail::kRemoteAdd, dest, value, T{}, pe);
}
template <class T>
inline T atomic_fetch_inc(T* dest, int pe) noexcept {
  static_assert(detail::kAmoInt<T>, "atomic_fetch_inc: a 32/64-bit integer");
  return atomic_fetch_add<T>(dest, T{1}, pe);
}
template <class T>
inline void atomic_inc(T* dest, int pe) noexcept {
  static_assert(detail::kAmoInt<T>, "atomic_inc: a 32/64-bit integer");
  atomic_add<T>(dest, T{1}, pe);
}

#define SHMEM_DEVICE_BITWISE_AMO_(OP, FETCH_OP, PLAIN_OP)                                                \
  template <class T>                                                                                       \
  inline T atomic_fetch_##OP(T* dest, T value, int pe) noexcept {                                          \
    static_assert(detail::kAmoInt<T>, "atomic_fetch_" #OP ": a 32/64-bit integer");                        \
    if (T* w = detail::local_word<T>(dest, pe)) [[likely]]                                                 \
      return std::atomic_ref<T>(*w).fetch_##OP(value, detail::kAmoOrder);                                  \
    return detail::far_amo<T>("shmem::device::atomic_fetch_" #OP, detail::FETCH_OP, dest, value, T{}, pe); \
  }                                                                                                        \
  template <class T>                                                                                       \
  inline void atomic_##OP(T* dest, T value, int pe) noexcept {                                             \
    static_assert(detail::kAmoInt<T>, "atomic_" #OP ": a 32/64-bit integer");                               \
    if (T* w = detail::local_word<T>(dest, pe)) [[likely]]                                                 \
      std::atomic_ref<T>(*w).fetch_##OP(value, detail::kAmoOrder);                                         \
    else                                                                                                   \
      detail::far_amo<T>("shmem::device::atomic_" #OP, detail::PLAIN_OP, dest, value, T{}, pe);             \
  }
SHMEM_DEVICE_BITWISE_AMO_(and, kRemoteFetchAnd, kRemoteAnd)
SHMEM_DEVICE_BITWISE_AMO_(or, kRemoteFetchOr, kRemoteOr)
SHMEM_DEVICE_BITWISE_AMO_(xor, kRemoteFetchXor, kRemoteXor)
#undef SHMEM_DEVICE_BITWISE_AMO_

}  // namespace shmem::device
