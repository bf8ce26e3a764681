#pragma once
// In-kernel signals and point-to-point waits.
//
// Signals are 64-bit unsigned words as in OpenSHMEM (the seed uses int32_t: every signal
// routine is a template on the word type, so both work; aclshmem_device.hpp uses int32_t).
// sig_op is SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD. put-with-signal makes the data visible
// before the signal: a thread that sees the signal (signal_wait_until, wait_until, or an
// acquire load) sees the data.
#include "shmem/device/rma.hpp"

namespace shmem::device {

namespace detail {
template <class S>
inline constexpr bool kSignalWord = std::is_integral_v<S> && !std::is_same_v<S, bool> && (sizeof(S) == 4 || sizeof(S) == 8);

template <class S>
inline void signal_update(S* word, S signal, int sig_op) noexcept {
  std::atomic_ref<S> a(*word);
  if (sig_op == SHMEM_SIGNAL_ADD)
    a.fetch_add(signal, std::memory_order_seq_cst);
  else
    a.store(signal, std::memory_order_seq_cst);
}
inline bool valid_sig_op(const char* func, int sig_op) noexcept {
  if (__builtin_expect(sig_op == SHMEM_SIGNAL_SET || sig_op == SHMEM_SIGNAL_ADD, 1)) return true;
  fail(func, "sig_op=%d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD; nothing was done", sig_op);
  return false;
}
}  // namespace detail

template <class S>
inline void signal_op(S* sig_addr, S signal, int sig_op, int pe) noexcept {
  static_assert(detail::kSignalWord<S>, "signal words are 32- or 64-bit integers");
  if (!detail::valid_sig_op("shmem::device::signal_op", sig_op)) return;
  if (S* w = detail::remote_word<S>("shmem::device::signal_op", sig_addr, pe)) detail::signal_update(w, signal, sig_op);
}

template <class S>
inline void putmem_signal(void* dest, const void* src, std::size_t bytes, S* sig_addr, S signal, int sig_op,
                          int pe) noexcept {
  static_assert(detail::kSignalWord<S>, "signal words are 32- or 64-bit integers");
  constexpr const char* f = "shmem::device::putmem_signal";
  if (!detail::valid_sig_op(f, sig_op)) return;
  S* w = detail::remote_word<S>(f, sig_addr, pe);
  char* d = bytes ? detail::remote(f, dest, bytes, pe) : nullptr;
  if (w == nullptr || (bytes && d == nullptr)) return;
  if (bytes) std::memcpy(d, src, bytes);
  detail::store_fence();  // the data is visible before the signal
  detail::signal_update(w, signal, sig_op);
}
template <class S>
inline void putmem_signal_nbi(void* dest, const void* src, std::size_t bytes, S* sig_addr, S signal, int sig_op,
                              int pe) noexcept {
  putmem_signal(dest, src, bytes, sig_addr, signal, sig_op, pe);
}
template <class T, class S>
inline void put_signal(T* dest, const T* src, std::size_t nelems, S* sig_addr, S signal, int sig_op, int pe) noexcept {
  putmem_signal(dest, src, nelems * sizeof(T), sig_addr, signal, sig_op, pe);
}
template <class T, class S>
inline void put_signal_nbi(T* dest, const T* src, std::size_t nelems, S* sig_addr, S signal, int sig_op,
                           int pe) noexcept {
  putmem_signal(dest, src, nelems * sizeof(T), sig_addr, signal, sig_op, pe);
}

// Block scope: the block's threads share the data; thread 0 signals once all have written.
template <class S>
inline void putmem_signal_block(const Block& b, void* dest, const void* src, std::size_t bytes, S* sig_addr, S signal,
                                int sig_op, int pe) noexcept {
  static_assert(detail::kSignalWord<S>, "signal words are 32- or 64-bit integers");
  constexpr const char* f = "shmem::device::putmem_signal_block";
  // Ends with every thread's stores fenced and a block sync, so the signal follows all the data.
  if (detail::putmem_block_impl(b, f, dest, src, bytes, pe) && b.thread_id == 0) {
    if (!detail::valid_sig_op(f, sig_op)) return;
    if (S* w = detail::remote_word<S>(f, sig_addr, pe)) detail::signal_update(w, signal, sig_op);
  }
}
template <class S>
inline void putmem_signal_nbi_block(const Block& b, void* dest, const void* src, std::size_t bytes, S* sig_addr,
                                    S signal, int sig_op, int pe) noexcept {
  putmem_signal_block(b, dest, src, bytes, sig_addr, signal, sig_op, pe);
}
template <class T, class S>
inline void put_signal_block(const Block& b, T* dest, const T* src, std::size_t nelems, S* sig_addr, S signal,
                             int sig_op, int pe) noexcept {
  putmem_signal_block(b, dest, src, nelems * sizeof(T), sig_addr, signal, sig_op, pe);
}

// The local signal word's current value (acquire).
template <class S>
inline S signal_fetch(const S* sig_addr) noexcept {
  static_assert(detail::kSignalWord<S>, "signal words are 32- or 64-bit integers");
  return std::atomic_ref<S>(*const_cast<S*>(sig_addr)).load(std::memory_order_acquire);
}

// Waits until the local word *ivar satisfies (cmp, value) and returns the value that did.
// Works on any 1..8-byte integer or float/double word; spins, then yields, then sleeps.
template <class T>
inline T wait_until(T* ivar, int cmp, T value) noexcept {
  static_assert(std::is_arithmetic_v<T> && sizeof(T) <= 8, "wait_until: an integer, float or double word");
  if (!detail::valid_cmp(cmp)) {
    detail::fail("shmem::device::wait_until", "cmp=%d is not one of SHMEM_CMP_EQ..SHMEM_CMP_LE", cmp);
    return T{};
  }
  std::atomic_ref<T> a(*ivar);
  detail::Backoff backoff;
  for (;;) {
    const T v = a.load(std::memory_order_acquire);
    if (detail::compare(cmp, v, value)) return v;
    backoff.pause();
  }
}
template <class T>
inline bool test(T* ivar, int cmp, T value) noexcept {
  static_assert(std::is_arithmetic_v<T> && sizeof(T) <= 8, "test: an integer, float or double word");
  return detail::compare(cmp, std::atomic_ref<T>(*ivar).load(std::memory_order_acquire), value);
}
template <class S>
inline S signal_wait_until(S* sig_addr, int cmp, S value) noexcept {
  static_assert(detail::kSignalWord<S>, "signal words are 32- or 64-bit integers");
  return wait_until(sig_addr, cmp, value);
}

}  // namespace shmem::device
