#pragma once
// In-kernel atomics on symmetric words of any node-local PE: lock-free hardware atomics on the
// peer's mapped word (std::atomic_ref, sequentially consistent, like the host shmem_atomic_*).
// Integer operations take 32- and 64-bit integers; fetch/set/swap/compare_swap also float and
// double; add/fetch_add also 8/16-bit integers and float/double (the seed's MTE add types).
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
  T* w = detail::remote_word<T>("shmem::device::atomic_fetch", src, pe);
  return w ? std::atomic_ref<T>(*w).load(detail::kAmoOrder) : T{};
}
template <class T>
inline void atomic_set(T* dest, T value, int pe) noexcept {
  static_assert(detail::kAmoAny<T>, "atomic_set: 32/64-bit integer, float or double");
  if (T* w = detail::remote_word<T>("shmem::device::atomic_set", dest, pe)) std::atomic_ref<T>(*w).store(value, detail::kAmoOrder);
}
template <class T>
inline T atomic_swap(T* dest, T value, int pe) noexcept {
  static_assert(detail::kAmoAny<T>, "atomic_swap: 32/64-bit integer, float or double");
  T* w = detail::remote_word<T>("shmem::device::atomic_swap", dest, pe);
  return w ? std::atomic_ref<T>(*w).exchange(value, detail::kAmoOrder) : T{};
}
// Stores `value` if the word equals `cond`; returns the old value either way.
template <class T>
inline T atomic_compare_swap(T* dest, T cond, T value, int pe) noexcept {
  static_assert(detail::kAmoAny<T>, "atomic_compare_swap: 32/64-bit integer, float or double");
  T* w = detail::remote_word<T>("shmem::device::atomic_compare_swap", dest, pe);
  if (w == nullptr) return T{};
  T expected = cond;
  std::atomic_ref<T>(*w).compare_exchange_strong(expected, value, detail::kAmoOrder);
  return expected;
}
template <class T>
inline T atomic_fetch_add(T* dest, T value, int pe) noexcept {
  static_assert(detail::kAmoAdd<T>, "atomic_fetch_add: an integer, float or double");
  T* w = detail::remote_word<T>("shmem::device::atomic_fetch_add", dest, pe);
  return w ? std::atomic_ref<T>(*w).fetch_add(value, detail::kAmoOrder) : T{};
}
template <class T>
inline void atomic_add(T* dest, T value, int pe) noexcept {
  static_assert(detail::kAmoAdd<T>, "atomic_add: an integer, float or double");
  if (T* w = detail::remote_word<T>("shmem::device::atomic_add", dest, pe)) std::atomic_ref<T>(*w).fetch_add(value, detail::kAmoOrder);
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

#define SHMEM_DEVICE_BITWISE_AMO_(OP)                                                                      \
  template <class T>                                                                                       \
  inline T atomic_fetch_##OP(T* dest, T value, int pe) noexcept {                                          \
    static_assert(detail::kAmoInt<T>, "atomic_fetch_" #OP ": a 32/64-bit integer");                        \
    T* w = detail::remote_word<T>("shmem::device::atomic_fetch_" #OP, dest, pe);                            \
    return w ? std::atomic_ref<T>(*w).fetch_##OP(value, detail::kAmoOrder) : T{};                          \
  }                                                                                                        \
  template <class T>                                                                                       \
  inline void atomic_##OP(T* dest, T value, int pe) noexcept {                                             \
    static_assert(detail::kAmoInt<T>, "atomic_" #OP ": a 32/64-bit integer");                               \
    if (T* w = detail::remote_word<T>("shmem::device::atomic_" #OP, dest, pe))                              \
      std::atomic_ref<T>(*w).fetch_##OP(value, detail::kAmoOrder);                                         \
  }
SHMEM_DEVICE_BITWISE_AMO_(and)
SHMEM_DEVICE_BITWISE_AMO_(or)
SHMEM_DEVICE_BITWISE_AMO_(xor)
#undef SHMEM_DEVICE_BITWISE_AMO_

}  // namespace shmem::device
