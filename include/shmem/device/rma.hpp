#pragma once
// In-kernel RMA: put/get/p/g (typed and byte forms, blocking and _nbi), strided iput/iget, and
// the block-cooperative *_block forms in which the threads of one block share one transfer.
//
// Node-local transfers are a memcpy into (or from) the peer's mapped memory and are complete
// when they return, so the _nbi forms equal the blocking ones; quiet() is still what orders
// them before later signals or barriers of other threads.
#include <algorithm>

#include "shmem/device/common.hpp"

namespace shmem::device {

// ---- pointers ----------------------------------------------------------------------------------
// The address of symmetric `addr` on `pe` as mapped here, or nullptr (not an error) if none.
inline void* ptr(const void* addr, int pe) noexcept { return detail::target(detail::state(), addr, 1, pe); }
inline int my_pe() noexcept { return detail::state().my_pe; }
inline int n_pes() noexcept { return detail::state().n_pes; }

// ---- bytes ---------------------------------------------------------------------------------------
inline void putmem(void* dest, const void* src, std::size_t bytes, int pe) noexcept {
  if (bytes == 0) return;
  if (char* d = detail::remote("shmem::device::putmem", dest, bytes, pe)) std::memcpy(d, src, bytes);
}
inline void getmem(void* dest, const void* src, std::size_t bytes, int pe) noexcept {
  if (bytes == 0) return;
  if (const char* s = detail::remote("shmem::device::getmem", src, bytes, pe)) std::memcpy(dest, s, bytes);
}
inline void putmem_nbi(void* dest, const void* src, std::size_t bytes, int pe) noexcept { putmem(dest, src, bytes, pe); }
inline void getmem_nbi(void* dest, const void* src, std::size_t bytes, int pe) noexcept { getmem(dest, src, bytes, pe); }

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
inline void put_nbi(T* dest, const T* src, std::size_t nelems, int pe) noexcept { put(dest, src, nelems, pe); }
template <class T>
inline void get_nbi(T* dest, const T* src, std::size_t nelems, int pe) noexcept { get(dest, src, nelems, pe); }

// Single elements: one store or load of the peer's element (atomic where T is a lock-free
// atomic size, so a peer polling the element never sees a torn value).
template <class T>
inline void p(T* dest, T value, int pe) noexcept {
  static_assert(std::is_trivially_copyable_v<T>);
  T* d = detail::remote_word<T>("shmem::device::p", dest, pe);
  if (d == nullptr) return;
  if constexpr (std::atomic_ref<T>::is_always_lock_free)
    std::atomic_ref<T>(*d).store(value, std::memory_order_relaxed);
  else
    std::memcpy(d, &value, sizeof(T));
}
template <class T>
inline T g(const T* src, int pe) noexcept {
  static_assert(std::is_trivially_copyable_v<T>);
  T v{};
  T* s = detail::remote_word<T>("shmem::device::g", src, pe);
  if (s == nullptr) return v;
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
  char* d = detail::remote("shmem::device::iput", dest, span, pe);
  if (d == nullptr) return;
  for (std::size_t i = 0; i < nelems; ++i)
    std::memcpy(d + i * static_cast<std::size_t>(dst) * sizeof(T), src + i * static_cast<std::size_t>(sst), sizeof(T));
}
template <class T>
inline void iget(T* dest, const T* src, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t nelems, int pe) noexcept {
  if (nelems == 0) return;
  if (dst < 1 || sst < 1) return detail::fail("shmem::device::iget", "strides must be >= 1 (dst=%td, sst=%td)", dst, sst);
  const std::size_t span = ((nelems - 1) * static_cast<std::size_t>(sst) + 1) * sizeof(T);
  const char* s = detail::remote("shmem::device::iget", src, span, pe);
  if (s == nullptr) return;
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
// Every thread checks the whole range, so all agree; only thread 0 reports.
inline char* block_remote(const Block& b, const char* func, const void* addr, std::size_t bytes, int pe) noexcept {
  char* p = target(state(), addr, bytes, pe);
  if (__builtin_expect(p == nullptr, 0) && b.thread_id == 0) bad_target(func, addr, bytes, pe);
  return p;
}
}  // namespace detail

namespace detail {
// Returns whether the transfer was valid (all threads agree, having checked the same range).
inline bool putmem_block_impl(const Block& b, const char* func, void* dest, const void* src, std::size_t bytes,
                              int pe) noexcept {
  bool ok = true;
  if (bytes != 0) {
    if (char* d = block_remote(b, func, dest, bytes, pe)) {
      const Slice s = slice(b, bytes);
      if (s.lo < s.hi) std::memcpy(d + s.lo, static_cast<const char*>(src) + s.lo, s.hi - s.lo);
      store_fence();  // this thread's share is ordered before whatever follows the block sync
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
  if (bytes != 0) {
    if (const char* s = detail::block_remote(b, "shmem::device::getmem_block", src, bytes, pe)) {
      const detail::Slice sl = detail::slice(b, bytes);
      if (sl.lo < sl.hi) std::memcpy(static_cast<char*>(dest) + sl.lo, s + sl.lo, sl.hi - sl.lo);
    }
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
