#pragma once
// Shared by every device header: finding the device state, translating symmetric addresses,
// reporting errors from kernel code, fences and the waiting backoff.
//
// The fast path makes no library call: a kernel launched with shmem::device::launch (or one that
// called shmem::device::bind(blk)) has the state pointer cached in a thread_local of this
// header. Anything else (a kernel launched through the C shmemx_launch without bind, or host
// code calling the device API) asks the library each time, which is correct but slower.
// Errors (a bad PE, an address outside symmetric memory) are slow paths: inside a kernel they
// are recorded as the launch's error (the stream's synchronize returns it) and the operation is
// skipped; outside a kernel they end the job with the message.
#include <sched.h>
#include <shmemx.h>
#include <time.h>

#include <atomic>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "shmem/device/cpu.hpp"
#include "shmem/device/state.hpp"

namespace shmem::device {

using Block = shmemx_block_t;

namespace detail {

inline thread_local const State* tl_state = nullptr;
inline thread_local const Block* tl_block = nullptr;

[[gnu::cold, gnu::noinline]] inline const State& slow_state() noexcept {
  if (const Block* b = shmemx_block_current()) return *static_cast<const State*>(b->state);
  const State* s = shmemx_device_state();
  if (s == nullptr) shmemx_block_error(nullptr, SHMEMX_ERR_NOT_INITIALIZED, "device API used before shmem_init");
  return *s;
}

inline const State& state() noexcept {
  const State* s = tl_state;
  if (__builtin_expect(s != nullptr, 1)) return *s;
  return slow_state();
}

inline const Block* current_block() noexcept { return tl_block ? tl_block : shmemx_block_current(); }

// Records (inside a kernel) or ends the job (outside): see the header comment.
[[gnu::cold, gnu::noinline, gnu::format(printf, 2, 3)]] inline void fail(const char* func, const char* fmt,
                                                                        ...) noexcept {
  char msg[320];
  int n = std::snprintf(msg, sizeof msg, "%s: ", func);
  if (n < 0 || n >= static_cast<int>(sizeof msg)) n = 0;
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg + n, sizeof msg - static_cast<std::size_t>(n), fmt, ap);
  va_end(ap);
  shmemx_block_error(current_block(), SHMEMX_ERR_INVALID_ARGUMENT, msg);
}

// Where [addr, addr + bytes) of PE `pe` is mapped here, or nullptr when the PE is out of range,
// not node-local, or the range is not inside one symmetric segment.
inline char* target(const State& s, const void* addr, std::size_t bytes, int pe) noexcept {
  if (__builtin_expect(static_cast<unsigned>(pe) >= static_cast<unsigned>(s.n_pes), 0)) return nullptr;
  const auto a = reinterpret_cast<std::uintptr_t>(addr);
  std::uintptr_t off = a - s.heap_lo;
  if (off < s.heap_size && bytes <= s.heap_size - off) {
    char* base = s.heap[pe];
    return base ? base + off : nullptr;
  }
  off = a - s.data_lo;
  if (off < s.data_size && bytes <= s.data_size - off) {
    char* base = s.data[pe];
    return base ? base + off : nullptr;
  }
  return nullptr;
}

[[gnu::cold, gnu::noinline]] inline void bad_target(const char* func, const void* addr, std::size_t bytes,
                                                   int pe) noexcept {
  const State& s = state();
  if (static_cast<unsigned>(pe) >= static_cast<unsigned>(s.n_pes))
    fail(func, "pe=%d is not a PE (0..%d); nothing was done", pe, s.n_pes - 1);
  else
    fail(func, "%p (+%zu bytes) on PE %d is not symmetric memory this PE can reach; nothing was done", addr, bytes,
         pe);
}

// The remote address of a symmetric operand, or nullptr after reporting why.
inline char* remote(const char* func, const void* addr, std::size_t bytes, int pe) noexcept {
  char* p = target(state(), addr, bytes, pe);
  if (__builtin_expect(p == nullptr, 0)) bad_target(func, addr, bytes, pe);
  return p;
}

// The same for an atomic word, which must also be naturally aligned.
template <class T>
inline T* remote_word(const char* func, const void* addr, int pe) noexcept {
  char* p = remote(func, addr, sizeof(T), pe);
  if (__builtin_expect(p != nullptr && reinterpret_cast<std::uintptr_t>(p) % alignof(T) != 0, 0)) {
    fail(func, "%p is not aligned to %zu bytes; nothing was done", addr, alignof(T));
    return nullptr;
  }
  return reinterpret_cast<T*>(p);
}

// Waiting in kernel code, where the thread waited for may be another kernel thread, of this
// PE or another, that shares this thread's CPU: spin only briefly (a few microseconds), then
// hand the CPU over with sched_yield on every pause. Only a wait that has lasted 10 ms sleeps,
// in steps of at most 1/128 of the time waited so far (at most 1 ms), so a sleep never sets the
// latency of a hand-off; the library's own waits follow the same rule (src/core/wait.hpp).
class Backoff {
 public:
  void pause() noexcept {
    if (n_ < kSpins) {
      ++n_;
      cpu_relax();
      return;
    }
    const long long now = now_ns();
    if (n_ == kSpins) {
      ++n_;
      start_ns_ = now;
    }
    const long long waited = now - start_ns_;
    if (waited < kYieldOnlyNs) {
      sched_yield();
      return;
    }
    long long step = waited / kSleepFraction;
    if (step > kMaxSleepNs) step = kMaxSleepNs;
    timespec ts{0, static_cast<long>(step)};
    nanosleep(&ts, nullptr);
  }

 private:
  static long long now_ns() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
  }
  static constexpr unsigned kSpins = 64;
  static constexpr long long kYieldOnlyNs = 10000000;  // 10 ms
  static constexpr long long kSleepFraction = 128;
  static constexpr long long kMaxSleepNs = 1000000;  // 1 ms
  unsigned n_ = 0;
  long long start_ns_ = 0;
};

// cmp uses SHMEM_CMP_EQ ... SHMEM_CMP_LE. Returns false for an unknown cmp (checked by callers).
template <class T>
inline bool compare(int cmp, T a, T b) noexcept {
  switch (cmp) {
    case SHMEM_CMP_EQ: return a == b;
    case SHMEM_CMP_NE: return a != b;
    case SHMEM_CMP_GT: return a > b;
    case SHMEM_CMP_GE: return a >= b;
    case SHMEM_CMP_LT: return a < b;
    case SHMEM_CMP_LE: return a <= b;
    default: return false;
  }
}
inline bool valid_cmp(int cmp) noexcept { return cmp >= SHMEM_CMP_EQ && cmp <= SHMEM_CMP_LE; }

// The device-side synchronisation area: kSyncSlots cells at kSyncAreaOffset of every PE's
// runtime-internal area (the first 64 KiB of its heap segment, zero at start). Cell `slot`
// serves the team of that slot; it is used on the team's PE 0 only. The library asserts at
// build time that the runtime's own internal objects end before kSyncAreaOffset.
inline constexpr std::size_t kSyncAreaOffset = 40 * 1024;
inline constexpr int kSyncSlots = 128;
struct alignas(64) SyncCell {
  std::uint64_t count;  // arrivals of the current round
  char pad_[56];
  std::uint64_t gen;    // completed rounds
  char pad2_[56];
};
static_assert(sizeof(SyncCell) == 128);
inline constexpr std::size_t kSyncAreaBytes = kSyncSlots * sizeof(SyncCell);

inline SyncCell& sync_cell(const State& s, int world_pe, int slot) noexcept {
  return reinterpret_cast<SyncCell*>(s.heap[world_pe] + kSyncAreaOffset)[slot];
}

}  // namespace detail

// Caches the block's device state for the calling thread for the guard's lifetime, so device
// calls make no library call. shmem::device::launch does this for every block; a kernel started
// through the C shmemx_launch may do it itself: `auto guard = shmem::device::bind(blk);`.
class [[nodiscard]] BlockBinding {
 public:
  explicit BlockBinding(const Block* b) noexcept : prev_state_(detail::tl_state), prev_block_(detail::tl_block) {
    detail::tl_state = static_cast<const State*>(b->state);
    detail::tl_block = b;
  }
  ~BlockBinding() {
    detail::tl_state = prev_state_;
    detail::tl_block = prev_block_;
  }
  BlockBinding(const BlockBinding&) = delete;
  BlockBinding& operator=(const BlockBinding&) = delete;

 private:
  const State* prev_state_;
  const Block* prev_block_;
};
inline BlockBinding bind(const Block* b) noexcept { return BlockBinding(b); }

// The calling kernel thread's block, or nullptr outside kernels.
inline const Block* this_block() noexcept { return detail::current_block(); }

}  // namespace shmem::device
