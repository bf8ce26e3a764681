#pragma once
// In-kernel signals and point-to-point waits.
//
// Signals are 64-bit unsigned words as in OpenSHMEM (Ascend SHMEM uses int32_t: every signal
// routine is a template on the word type, so both work; aclshmem_device.hpp uses int32_t).
// sig_op is SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD. put-with-signal makes the data visible
// before the signal: a thread that sees the signal (signal_wait_until, wait_until, or an
// acquire load) sees the data. To a PE on another host both go through the library (the data,
// a transport fence, then the signal as a remote atomic); waits on local words then also drive
// the transport, so remote updates arrive without a progress thread.
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
// The block form's signal to another host's PE: the other threads' shares were issued before
// the block sync, so a transport fence orders them before the signal.
template <class S>
[[gnu::cold, gnu::noinline]] inline void far_block_signal(const char* func, S* sig_addr, S signal, int sig_op,
                                                         int pe) noexcept {
  const State& s = state();
  if (is_far(s, sig_addr, sizeof(S), pe)) shmemx_device_remote_order(&s, 0);
  far_signal<S>(func, nullptr, nullptr, 0, sig_addr, signal, sig_op, false, pe);
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
  constexpr const char* f = "shmem::device::signal_op";
  if (!detail::valid_sig_op(f, sig_op)) return;
  if (S* w = detail::local_word<S>(sig_addr, pe)) [[likely]]
    detail::signal_update(w, signal, sig_op);
  else
    detail::far_signal<S>(f, nullptr, nullptr, 0, sig_addr, signal, sig_op, false, pe);
}

namespace detail {
template <class S>
inline void putmem_signal_as(const char* f, bool nbi, void* dest, const void* src, std::size_t bytes, S* sig_addr,
                             S signal, int sig_op, int pe) noexcept {
  static_assert(kSignalWord<S>, "signal words are 32- or 64-bit integers");
  if (!valid_sig_op(f, sig_op)) return;
  S* w = local_word<S>(sig_addr, pe);
  char* d = bytes ? target(state(), dest, bytes, pe) : nullptr;
  if (__builtin_expect(w == nullptr || (bytes && d == nullptr), 0))
    return far_signal<S>(f, dest, src, bytes, sig_addr, signal, sig_op, nbi, pe);
  if (bytes) std::memcpy(d, src, bytes);
  store_fence();  // the data is visible before the signal
  signal_update(w, signal, sig_op);
}
}  // namespace detail

template <class S>
inline void putmem_signal(void* dest, const void* src, std::size_t bytes, S* sig_addr, S signal, int sig_op,
                          int pe) noexcept {
  detail::putmem_signal_as<S>("shmem::device::putmem_signal", false, dest, src, bytes, sig_addr, signal, sig_op, pe);
}
template <class S>
inline void putmem_signal_nbi(void* dest, const void* src, std::size_t bytes, S* sig_addr, S signal, int sig_op,
                              int pe) noexcept {
  detail::putmem_signal_as<S>("shmem::device::putmem_signal_nbi", true, dest, src, bytes, sig_addr, signal, sig_op,
                              pe);
}
template <class T, class S>
inline void put_signal(T* dest, const T* src, std::size_t nelems, S* sig_addr, S signal, int sig_op, int pe) noexcept {
  putmem_signal(dest, src, nelems * sizeof(T), sig_addr, signal, sig_op, pe);
}
template <class T, class S>
inline void put_signal_nbi(T* dest, const T* src, std::size_t nelems, S* sig_addr, S signal, int sig_op,
                           int pe) noexcept {
  putmem_signal_nbi(dest, src, nelems * sizeof(T), sig_addr, signal, sig_op, pe);
}

// Block scope: the block's threads share the data; thread 0 signals once all have written.
template <class S>
inline void putmem_signal_block(const Block& b, void* dest, const void* src, std::size_t bytes, S* sig_addr, S signal,
                                int sig_op, int pe) noexcept {
  static_assert(detail::kSignalWord<S>, "signal words are 32- or 64-bit integers");
  constexpr const char* f = "shmem::device::putmem_signal_block";
  // Ends with every thread's stores fenced (or, to another host, issued) and a block sync, so
  // the signal follows all the data (across hosts after a transport fence: far_signal's).
  if (detail::putmem_block_impl(b, f, dest, src, bytes, pe) && b.thread_id == 0) {
    if (!detail::valid_sig_op(f, sig_op)) return;
    if (S* w = detail::local_word<S>(sig_addr, pe)) [[likely]]
      detail::signal_update(w, signal, sig_op);
    else
      detail::far_block_signal<S>(f, sig_addr, signal, sig_op, pe);
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
// Across hosts each call also drives the transport once (a polling loop sees remote updates).
template <class S>
inline S signal_fetch(const S* sig_addr) noexcept {
  static_assert(detail::kSignalWord<S>, "signal words are 32- or 64-bit integers");
  if (const State* poll = detail::progress_state()) [[unlikely]]
    shmemx_device_remote_progress(poll);
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
  detail::Backoff backoff(detail::state());
  for (;;) {
    const T v = a.load(std::memory_order_acquire);
    if (detail::compare(cmp, v, value)) return v;
    backoff.pause();
  }
}
template <class T>
inline bool test(T* ivar, int cmp, T value) noexcept {
  static_assert(std::is_arithmetic_v<T> && sizeof(T) <= 8, "test: an integer, float or double word");
  if (const State* poll = detail::progress_state()) [[unlikely]]
    shmemx_device_remote_progress(poll);
  return detail::compare(cmp, std::atomic_ref<T>(*ivar).load(std::memory_order_acquire), value);
}
template <class S>
inline S signal_wait_until(S* sig_addr, int cmp, S value) noexcept {
  static_assert(detail::kSignalWord<S>, "signal words are 32- or 64-bit integers");
  return wait_until(sig_addr, cmp, value);
}

}  // namespace shmem::device
