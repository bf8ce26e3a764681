#pragma once
// Shared by every device header: finding the device state, translating symmetric addresses,
// reporting errors from kernel code and fences (the waiting backoff: backoff.hpp).
//
// The fast path makes no library call: a kernel launched with shmem::device::launch (or one that
// called shmem::device::bind(blk)) has the state pointer cached in a thread_local of this
// header. Anything else (a kernel launched through the C shmemx_launch without bind, or host
// code calling the device API) asks the library each time, which is correct but slower.
// Errors (a bad PE, an address outside symmetric memory) are slow paths: inside a kernel they
// are recorded as the launch's error (the stream's synchronize returns it) and the operation is
// skipped; outside a kernel they end the job with the message.
//
// PEs on other hosts: target() maps node-local PEs only. An operand it cannot map that is
// symmetric memory of a PE on another host takes a cold path into the library (remote.hpp, out
// of line: the node-local path stays inlined and unchanged), which moves it over the network
// transport like the host routines; waits then also drive that transport.
#include "shmem/device/cxx20.hpp"  // first: refuses C++ before 20 in words
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

#include "shmem/device/backoff.hpp"
#include "shmem/device/cpu.hpp"
#include "shmem/device/remote.hpp"
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

// Where a naturally aligned word of a node-local PE is mapped here, or nullptr (not node-local,
// not symmetric or not aligned: the caller's cold path sorts that out).
template <class T>
inline T* local_word(const void* addr, int pe) noexcept {
  char* p = target(state(), addr, sizeof(T), pe);
  if (__builtin_expect(p != nullptr && reinterpret_cast<std::uintptr_t>(p) % alignof(T) == 0, 1))
    return reinterpret_cast<T*>(p);
  return nullptr;
}

// ---- the cold paths: PEs on other hosts, and errors --------------------------------------------
// Whether [addr, addr + bytes) on `pe` is symmetric memory of a PE on another host: the
// segments have the same layout on every PE, so this PE's own mapping tells what is symmetric.
inline bool is_far(const State& s, const void* addr, std::size_t bytes, int pe) noexcept {
  return s.remote && static_cast<unsigned>(pe) < static_cast<unsigned>(s.n_pes) && s.heap[pe] == nullptr &&
         target(s, addr, bytes, s.my_pe) != nullptr;
}
[[gnu::cold, gnu::noinline]] inline bool misaligned(const char* func, const void* addr, std::size_t align) noexcept {
  if (reinterpret_cast<std::uintptr_t>(addr) % align == 0) return false;
  fail(func, "%p is not aligned to %zu bytes; nothing was done", addr, align);
  return true;
}

// An RMA whose symmetric operand target() did not map: nelems elements of `elem` bytes, strides
// in elements (>= 1).
[[gnu::cold, gnu::noinline]] inline void far_rma(const char* func, int kind, const void* sym, const void* local,
                                                std::size_t elem, std::size_t nelems, std::ptrdiff_t sym_stride,
                                                std::ptrdiff_t local_stride, int pe) noexcept {
  const State& s = state();
  const std::size_t span = ((nelems - 1) * static_cast<std::size_t>(sym_stride) + 1) * elem;
  if (is_far(s, sym, span, pe) &&
      shmemx_device_remote_rma(&s, kind, const_cast<void*>(sym), const_cast<void*>(local), elem, nelems, sym_stride,
                               local_stride, pe) == 0)
    return;
  bad_target(func, sym, span, pe);
}
// An element put (p) or get (g) that local_word() did not map (the word is aligned, as there).
template <class T>
[[gnu::cold, gnu::noinline]] inline void far_word(const char* func, int kind, const T* sym, const T* local,
                                                 int pe) noexcept {
  if (!misaligned(func, sym, alignof(T))) far_rma(func, kind, sym, local, sizeof(T), 1, 1, 1, pe);
}

// An atomic that local_word() did not map; `op` is a RemoteAmo. Returns the old value (T{} when
// nothing was done).
template <class T>
[[gnu::cold, gnu::noinline]] inline T far_amo(const char* func, int op, T* dest, T value, T cond, int pe) noexcept {
  if (misaligned(func, dest, alignof(T))) return T{};
  const State& s = state();
  std::uint64_t v = 0, c = 0, old = 0;
  std::memcpy(&v, &value, sizeof(T));
  std::memcpy(&c, &cond, sizeof(T));
  if (is_far(s, dest, sizeof(T), pe) &&
      shmemx_device_remote_amo(&s, op, std::is_floating_point_v<T> ? 1 : 0, sizeof(T), dest, v, c, &old, pe) == 0) {
    T r;
    std::memcpy(&r, &old, sizeof(T));
    return r;
  }
  bad_target(func, dest, sizeof(T), pe);
  return T{};
}

// A put-with-signal (bytes == 0: the signal alone) with an operand target() did not map.
template <class S>
[[gnu::cold, gnu::noinline]] inline void far_signal(const char* func, void* dest, const void* src, std::size_t bytes,
                                                   S* sig, S signal, int sig_op, bool nbi, int pe) noexcept {
  if (misaligned(func, sig, alignof(S))) return;
  const State& s = state();
  if (is_far(s, sig, sizeof(S), pe) && (bytes == 0 || is_far(s, dest, bytes, pe)) &&
      shmemx_device_remote_put_signal(&s, dest, src, bytes, sig, sizeof(S), static_cast<std::uint64_t>(signal), sig_op,
                                      nbi ? 1 : 0, pe) == 0)
    return;
  const bool sig_ok = target(s, sig, sizeof(S), pe) != nullptr || is_far(s, sig, sizeof(S), pe);
  if (sig_ok) bad_target(func, dest, bytes, pe);
  else bad_target(func, sig, sizeof(S), pe);
}

// The state to drive the network transport with while waiting, or nullptr in a job within one
// host (where waits never call into the library).
inline const State* progress_state() noexcept {
  const State& s = state();
  return s.remote ? &s : nullptr;
}

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
