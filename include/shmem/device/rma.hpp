#pragma once
// In-kernel RMA: put/get/p/g (typed and byte forms, blocking and _nbi), strided iput/iget, and
// the block-cooperative *_block forms in which the threads of one block share one transfer.
//
// Node-local transfers are a memcpy into (or from) the peer's mapped memory and are complete
// when they return, so there the _nbi forms equal the blocking ones; quiet() is still what
// orders them before later signals or barriers of other threads. Transfers to a PE on another
// host go through the library's network transport (common.hpp): the blocking forms return when
// the source may be reused (put) or the data has arrived (get), the _nbi forms complete at
// quiet(). ptr() stays nullptr for such PEs.
#include "shmem/device/cxx20.hpp"  // first: refuses C++ before 20 in words
#include <algorithm>

#include "shmem/device/common.hpp"

namespace shmem::device {

// ---- pointers ----------------------------------------------------------------------------------
// The address of symmetric `addr` on `pe` as mapped here, or nullptr (not an error) if none.
inline void* ptr(const void* addr, int pe) noexcept { return detail::target(detail::state(), addr, 1, pe); }
inline int my_pe() noexcept { return detail::state().my_pe; }
inline int n_pes() noexcept { return detail::state().n_pes; }

// ---- bytes ---------------------------------------------------------------------------------------
namespace detail {
template <int kKind>
inline void putmem_as(const char* func, void* dest, const void* src, std::size_t bytes, int pe) noexcept {
  if (bytes == 0) return;
  if (char* d = target(state(), dest, bytes, pe)) [[likely]]
    std::memcpy(d, src, bytes);
  else
    far_rma(func, kKind, dest, src, bytes, 1, 1, 1, pe);
}
template <int kKind>
inline void getmem_as(const char* func, void* dest, const void* src, std::size_t bytes, int pe) noexcept {
  if (bytes == 0) return;
  if (const char* s = target(state(), src, bytes, pe)) [[likely]]
    std::memcpy(dest, s, bytes);
  else
    far_rma(func, kKind, src, dest, bytes, 1, 1, 1, pe);
}
}  // namespace detail

inline void putmem(void* dest, const void* src, std::size_t bytes, int pe) noexcept {
  detail::putmem_as<detail::kRemotePut>("shmem::device::putmem", dest, src, bytes, pe);
}
inline void getmem(void* dest, const void* src, std::size_t bytes, int pe) noexcept {
  detail::getmem_as<detail::kRemoteGet>("shmem::device::getmem", dest, src, bytes, pe);
}
inline void putmem_nbi(void* dest, const void* src, std::size_t bytes, int pe) noexcept {
  detail::putmem_as<detail::kRemotePutNbi>("shmem::device::putmem_nbi", dest, src, bytes, pe);
}
inline void getmem_nbi(void* dest, const void* src, std::size_t bytes, int pe) noexcept {
  detail::getmem_as<detail::kRemoteGetNbi>("shmem::device::getmem_nbi", dest, src, bytes, pe);
}

// ---- typed ------------------------------------------------------------------------------------------
template <class T>
inline void put(T* dest, const T* src, std::size_t nelems, int pe) noexcept {
  static_assert(std::is_trivially_copyable_v<T>);
  putmem(dest, src, nelems * sizeof(T), pe);
}
template <class T>
inline void get(T* dest, const T* src, std::size_t nelems, int pe) noexcept {
  static_assert(std::is_trivially_copyable_v<T>);
  getmem(dest, src, nelems * sizeof(T), pe);
}
template <class T>
inline void put_nbi(T* dest, const T* src, std::size_t nelems, int pe) noexcept {
  static_assert(std::is_trivially_copyable_v<T>);
  putmem_nbi(dest, src, nelems * sizeof(T), pe);
}
template <class T>
inline void get_nbi(T* dest, const T* src, std::size_t nelems, int pe) noexcept {
  static_assert(std::is_trivially_copyable_v<T>);
  getmem_nbi(dest, src, nelems * sizeof(T), pe);
}

// Single elements: one store or load of the peer's element (atomic where T is a lock-free
// atomic size, so a peer polling the element never sees a torn value).
template <class T>
inline void p(T* dest, T value, int pe) noexcept {
  static_assert(std::is_trivially_copyable_v<T>);
  T* d = detail::local_word<T>(dest, pe);
  if (__builtin_expect(d == nullptr, 0)) return detail::far_word<T>("shmem::device::p", detail::kRemotePut, dest, &value, pe);
  if constexpr (std::atomic_ref<T>::is_always_lock_free)
    std::atomic_ref<T>(*d).store(value, std::memory_order_relaxed);
  else
    std::memcpy(d, &value, sizeof(T));
}
template <class T>
inline T g(const T* src, int pe) noexcept {
  static_assert(std::is_trivially_copyable_v<T>);
  T v{};
  T* s = detail::local_word<T>(src, pe);
  if (__builtin_expect(s == nullptr, 0)) {
    detail::far_word<T>("shmem::device::g", detail::kRemoteGet, src, &v, pe);
    return v;
  }
  if constexpr (std::atomic_ref<T>::is_always_lock_free)
    v = std::atomic_ref<T>(*s).load(std::memory_order_relaxed);
  else
    std::memcpy(&v, s, sizeof(T));
  return v;
}

// Strided: element i goes from src[i * sst] to dest[i * dst] (strides in elements, >= 1).
template <class T>
inline void iput(T* dest, const T* src, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t nelems, int pe) noexcept {
  if (nelems == 0) return;
  if (dst < 1 || sst < 1) return detail::fail("shmem::device::iput", "strides must be >= 1 (dst=%td, sst=%td)", dst, sst);
  const std::size_t span = ((nelems - 1) * static_cast<std::size_t>(dst) + 1) * sizeof(T);
  char* d = detail::target(detail::state(), dest, span, pe);
  if (__builtin_expect(d == nullptr, 0))
    return detail::far_rma("shmem::device::iput", detail::kRemotePut, dest, src, sizeof(T), nelems, dst, sst, pe);
  for (std::size_t i = 0; i < nelems; ++i)
    std::memcpy(d + i * static_cast<std::size_t>(dst) * sizeof(T), src + i * static_cast<std::size_t>(sst), sizeof(T));
}
template <class T>
inline void iget(T* dest, const T* src, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t nelems, int pe) noexcept {
  if (nelems == 0) return;
  if (dst < 1 || sst < 1) return detail::fail("shmem::device::iget", "strides must be >= 1 (dst=%td, sst=%td)", dst, sst);
  const std::size_t span = ((nelems - 1) * static_cast<std::size_t>(sst) + 1) * sizeof(T);
  const char* s = detail::target(detail::state(), src, span, pe);
  if (__builtin_expect(s == nullptr, 0))
    return detail::far_rma("shmem::device::iget", detail::kRemoteGet, src, dest, sizeof(T), nelems, sst, dst, pe);
  for (std::size_t i = 0; i < nelems; ++i)
    std::memcpy(dest + i * static_cast<std::size_t>(dst), s + i * static_cast<std::size_t>(sst) * sizeof(T), sizeof(T));
}

// ---- block scope ------------------------------------------------------------------------------------
// The threads of the block wait for each other (like __syncthreads).
inline void block_sync(const Block& b) noexcept {
  if (b.block_dim > 1) shmemx_block_sync(&b);
}
// Every thread of the launch waits for all others (a multi-block launch must be cooperative).
inline void grid_sync(const Block& b) noexcept {
  if (b.grid > 1 || b.block_dim > 1) shmemx_grid_sync(&b);
}

// Every thread of the block calls the *_block forms with the same arguments; each thread moves
// its share (whole 64-byte lines where possible) and all return once the whole transfer is
// complete.
namespace detail {
struct Slice {
  std::size_t lo, hi;
};
inline Slice slice(const Block& b, std::size_t bytes) noexcept {
  const auto n = static_cast<std::size_t>(b.block_dim);
  std::size_t chunk = (bytes + n - 1) / n;
  chunk = (chunk + 63) & ~std::size_t{63};
  const std::size_t lo = std::min(bytes, static_cast<std::size_t>(b.thread_id) * chunk);
  return {lo, std::min(bytes, lo + chunk)};
}
// Every thread checks the whole range, so all agree: mapped here (local), symmetric memory of a
// PE on another host (far: each thread moves its share through the library), or neither (only
// thread 0 reports).
struct BlockTarget {
  char* local;
  bool far;
};
[[gnu::cold, gnu::noinline]] inline BlockTarget block_cold(const Block& b, const char* func, const void* addr,
                                                          std::size_t bytes, int pe) noexcept {
  if (is_far(state(), addr, bytes, pe)) return {nullptr, true};
  if (b.thread_id == 0) bad_target(func, addr, bytes, pe);
  return {nullptr, false};
}
inline BlockTarget block_target(const Block& b, const char* func, const void* addr, std::size_t bytes,
                                int pe) noexcept {
  if (char* p = target(state(), addr, bytes, pe)) [[likely]]
    return {p, false};
  return block_cold(b, func, addr, bytes, pe);
}
}  // namespace detail

namespace detail {
// Returns whether the transfer was valid (all threads agree, having checked the same range).
inline bool putmem_block_impl(const Block& b, const char* func, void* dest, const void* src, std::size_t bytes,
                              int pe) noexcept {
  bool ok = true;
  if (bytes != 0) {
    const BlockTarget t = block_target(b, func, dest, bytes, pe);
    const Slice s = slice(b, bytes);
    const char* from = static_cast<const char*>(src) + s.lo;
    if (t.local) {
      if (s.lo < s.hi) std::memcpy(t.local + s.lo, from, s.hi - s.lo);
      store_fence();  // this thread's share is ordered before whatever follows the block sync
    } else if (t.far) {
      if (s.lo < s.hi) far_rma(func, kRemotePut, static_cast<char*>(dest) + s.lo, from, s.hi - s.lo, 1, 1, 1, pe);
    } else {
      ok = false;
    }
  }
  block_sync(b);
  return ok;
}
}  // namespace detail

inline void putmem_block(const Block& b, void* dest, const void* src, std::size_t bytes, int pe) noexcept {
  detail::putmem_block_impl(b, "shmem::device::putmem_block", dest, src, bytes, pe);
}
inline void getmem_block(const Block& b, void* dest, const void* src, std::size_t bytes, int pe) noexcept {
  constexpr const char* f = "shmem::device::getmem_block";
  if (bytes != 0) {
    const detail::BlockTarget t = detail::block_target(b, f, src, bytes, pe);
    const detail::Slice sl = detail::slice(b, bytes);
    char* to = static_cast<char*>(dest) + sl.lo;
    if (sl.lo < sl.hi && t.local) std::memcpy(to, t.local + sl.lo, sl.hi - sl.lo);
    if (sl.lo < sl.hi && t.far)
      detail::far_rma(f, detail::kRemoteGet, static_cast<const char*>(src) + sl.lo, to, sl.hi - sl.lo, 1, 1, 1, pe);
  }
  block_sync(b);
}
inline void putmem_nbi_block(const Block& b, void* dest, const void* src, std::size_t bytes, int pe) noexcept {
  putmem_block(b, dest, src, bytes, pe);
}
inline void getmem_nbi_block(const Block& b, void* dest, const void* src, std::size_t bytes, int pe) noexcept {
  getmem_block(b, dest, src, bytes, pe);
}
template <class T>
inline void put_block(const Block& b, T* dest, const T* src, std::size_t nelems, int pe) noexcept {
  putmem_block(b, dest, src, nelems * sizeof(T), pe);
}
template <class T>
inline void get_block(const Block& b, T* dest, const T* src, std::size_t nelems, int pe) noexcept {
  getmem_block(b, dest, src, nelems * sizeof(T), pe);
}
template <class T>
inline void put_nbi_block(const Block& b, T* dest, const T* src, std::size_t nelems, int pe) noexcept {
  put_block(b, dest, src, nelems, pe);
}
template <class T>
inline void get_nbi_block(const Block& b, T* dest, const T* src, std::size_t nelems, int pe) noexcept {
  get_block(b, dest, src, nelems, pe);
}

}  // namespace shmem::device
