#pragma once
// In-kernel RMA on the GPU symmetric heap: my_pe, n_pes, ptr, put/get/p/g (typed and byte forms,
// blocking and _nbi), strided iput/iget, and the cooperative forms in which the threads of one
// block (*_block) or one warp (*_warp) share one transfer. A node-local transfer is loads and
// stores through the peer's mapping, complete when it returns, so the _nbi forms equal the
// blocking ones; fence()/quiet() order them before later signals of other threads.
#include "shmem/device/cuda/common.hpp"

namespace shmem::device {

// ---- where we are ------------------------------------------------------------------------------
__device__ __forceinline__ int my_pe() { return cuda::detail::state().my_pe; }
__device__ __forceinline__ int n_pes() { return cuda::detail::state().n_pes; }
// The address of symmetric `addr` on `pe` as mapped here, or nullptr (not an error) if none.
__device__ __forceinline__ void* ptr(const void* addr, int pe) { return cuda::detail::target(addr, 1, pe); }

// The calling thread's block, as shmem::device::launch passes it to kernels (plain <<<>>> kernels
// call this; 3-D grids and blocks are linearised x-fastest).
__device__ __forceinline__ Block this_block() {
  Block b{};
  b.block_id = static_cast<int>(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
  b.grid = static_cast<int>(gridDim.x * gridDim.y * gridDim.z);
  b.thread_id = static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  b.block_dim = static_cast<int>(blockDim.x * blockDim.y * blockDim.z);
  return b;
}
// The threads of the block wait for each other (grid_sync: sync.hpp).
__device__ __forceinline__ void block_sync(const Block&) { __syncthreads(); }

namespace cuda::detail {

// Copies `bytes` with `step` threads starting at `rank` (rank < step): 16-byte vectors when source
// and destination agree modulo 16 (four loads in flight per thread before their stores, for
// bandwidth), 8-byte words when both are 8-aligned, bytes otherwise.
__device__ __forceinline__ void copy_vectors(uint4* d, const uint4* s, std::size_t n, unsigned rank, unsigned step) {
  std::size_t i = rank;
  for (; i + 3 * static_cast<std::size_t>(step) < n; i += 4 * static_cast<std::size_t>(step)) {
    const uint4 a = s[i], b = s[i + step], c = s[i + 2 * static_cast<std::size_t>(step)],
                e = s[i + 3 * static_cast<std::size_t>(step)];
    d[i] = a;
    d[i + step] = b;
    d[i + 2 * static_cast<std::size_t>(step)] = c;
    d[i + 3 * static_cast<std::size_t>(step)] = e;
  }
  for (; i < n; i += step) d[i] = s[i];
}
__device__ __forceinline__ void copy_span(char* dst, const char* src, std::size_t bytes, unsigned rank, unsigned step) {
  const auto da = reinterpret_cast<std::uintptr_t>(dst), sa = reinterpret_cast<std::uintptr_t>(src);
  if (((da | sa | bytes) & 7) == 0 && bytes <= 256) {  // small and word-aligned: whole words
    auto* d = reinterpret_cast<std::uint64_t*>(dst);
    const auto* s = reinterpret_cast<const std::uint64_t*>(src);
    for (std::size_t i = rank; i < bytes / 8; i += step) d[i] = s[i];
    return;
  }
  if (((da ^ sa) & 15) == 0) {
    std::size_t head = (16 - (da & 15)) & 15;
    if (head > bytes) head = bytes;
    const std::size_t vecs = (bytes - head) / 16;
    copy_vectors(reinterpret_cast<uint4*>(dst + head), reinterpret_cast<const uint4*>(src + head), vecs, rank, step);
    for (std::size_t i = head + vecs * 16 + rank; i < bytes; i += step) dst[i] = src[i];
    for (std::size_t i = rank; i < head; i += step) dst[i] = src[i];
    return;
  }
  for (std::size_t i = rank; i < bytes; i += step) dst[i] = src[i];
}

template <bool kPut>
__device__ __forceinline__ bool rma(const char* routine, void* dest, const void* src, std::size_t bytes, int pe,
                                    unsigned rank, unsigned step) {
  if (bytes == 0) return true;
  const void* sym = kPut ? dest : src;
  char* remote = target(sym, bytes, pe);
  if (remote == nullptr) [[unlikely]] {
    if (rank == 0) bad_target(routine, sym, bytes, pe);
    return false;
  }
  if constexpr (kPut)
    copy_span(remote, static_cast<const char*>(src), bytes, rank, step);
  else
    copy_span(static_cast<char*>(dest), remote, bytes, rank, step);
  return true;
}

// The calling thread's lane in its warp. Warps are cut from the linearised thread index, so for
// 2-D and 3-D blocks (or blockDim.x not a multiple of 32) threadIdx.x & 31 is not the lane.
__device__ __forceinline__ unsigned lane() {
  unsigned l;
  asm("mov.u32 %0, %%laneid;" : "=r"(l));
  return l;
}

}  // namespace cuda::detail

// ---- bytes, one thread ---------------------------------------------------------------------------
__device__ __forceinline__ void putmem(void* dest, const void* src, std::size_t bytes, int pe) {
  cuda::detail::rma<true>("shmem::device::putmem", dest, src, bytes, pe, 0, 1);
}
__device__ __forceinline__ void getmem(void* dest, const void* src, std::size_t bytes, int pe) {
  cuda::detail::rma<false>("shmem::device::getmem", dest, src, bytes, pe, 0, 1);
}
__device__ __forceinline__ void putmem_nbi(void* dest, const void* src, std::size_t bytes, int pe) {
  cuda::detail::rma<true>("shmem::device::putmem_nbi", dest, src, bytes, pe, 0, 1);
}
__device__ __forceinline__ void getmem_nbi(void* dest, const void* src, std::size_t bytes, int pe) {
  cuda::detail::rma<false>("shmem::device::getmem_nbi", dest, src, bytes, pe, 0, 1);
}

// ---- typed ------------------------------------------------------------------------------------------
template <class T>
__device__ __forceinline__ void put(T* dest, const T* src, std::size_t nelems, int pe) {
  static_assert(std::is_trivially_copyable_v<T>);
  cuda::detail::rma<true>("shmem::device::put", dest, src, nelems * sizeof(T), pe, 0, 1);
}
template <class T>
__device__ __forceinline__ void get(T* dest, const T* src, std::size_t nelems, int pe) {
  static_assert(std::is_trivially_copyable_v<T>);
  cuda::detail::rma<false>("shmem::device::get", dest, src, nelems * sizeof(T), pe, 0, 1);
}
template <class T>
__device__ __forceinline__ void put_nbi(T* dest, const T* src, std::size_t nelems, int pe) {
  static_assert(std::is_trivially_copyable_v<T>);
  cuda::detail::rma<true>("shmem::device::put_nbi", dest, src, nelems * sizeof(T), pe, 0, 1);
}
template <class T>
__device__ __forceinline__ void get_nbi(T* dest, const T* src, std::size_t nelems, int pe) {
  static_assert(std::is_trivially_copyable_v<T>);
  cuda::detail::rma<false>("shmem::device::get_nbi", dest, src, nelems * sizeof(T), pe, 0, 1);
}

// Single elements: one relaxed system-scope store or load of the peer's element (never torn for
// 1..8-byte types; larger trivially copyable types are copied).
template <class T>
__device__ __forceinline__ void p(T* dest, T value, int pe) {
  static_assert(std::is_trivially_copyable_v<T>);
  if constexpr (sizeof(T) <= 8 && (sizeof(T) & (sizeof(T) - 1)) == 0) {
    if (T* w = cuda::detail::word<T>("shmem::device::p", dest, pe)) [[likely]]
      cuda::detail::SysRef<T>(*w).store(value, cuda::detail::kRelaxed);
  } else {
    cuda::detail::rma<true>("shmem::device::p", dest, &value, sizeof(T), pe, 0, 1);
  }
}
template <class T>
__device__ __forceinline__ T g(const T* src, int pe) {
  static_assert(std::is_trivially_copyable_v<T>);
  T v{};
  if constexpr (sizeof(T) <= 8 && (sizeof(T) & (sizeof(T) - 1)) == 0) {
    if (T* w = cuda::detail::word<T>("shmem::device::g", src, pe)) [[likely]]
      v = cuda::detail::SysRef<T>(*w).load(cuda::detail::kRelaxed);
  } else {
    cuda::detail::rma<false>("shmem::device::g", &v, src, sizeof(T), pe, 0, 1);
  }
  return v;
}

// Strided: element i goes from src[i * sst] to dest[i * dst] (strides in elements, >= 1).
template <class T>
__device__ __forceinline__ void iput(T* dest, const T* src, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t nelems,
                                     int pe) {
  constexpr const char* f = "shmem::device::iput";
  if (nelems == 0) return;
  if (dst < 1 || sst < 1) return cuda::detail::bad_argument(f, static_cast<int>(dst < 1 ? dst : sst));
  const std::size_t span = ((nelems - 1) * static_cast<std::size_t>(dst) + 1) * sizeof(T);
  char* d = cuda::detail::target(dest, span, pe);
  if (d == nullptr) [[unlikely]]
    return cuda::detail::bad_target(f, dest, span, pe);
  T* out = reinterpret_cast<T*>(d);
  for (std::size_t i = 0; i < nelems; ++i)
    out[i * static_cast<std::size_t>(dst)] = src[i * static_cast<std::size_t>(sst)];
}
template <class T>
__device__ __forceinline__ void iget(T* dest, const T* src, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t nelems,
                                     int pe) {
  constexpr const char* f = "shmem::device::iget";
  if (nelems == 0) return;
  if (dst < 1 || sst < 1) return cuda::detail::bad_argument(f, static_cast<int>(dst < 1 ? dst : sst));
  const std::size_t span = ((nelems - 1) * static_cast<std::size_t>(sst) + 1) * sizeof(T);
  const char* s = cuda::detail::target(src, span, pe);
  if (s == nullptr) [[unlikely]]
    return cuda::detail::bad_target(f, src, span, pe);
  const T* in = reinterpret_cast<const T*>(s);
  for (std::size_t i = 0; i < nelems; ++i)
    dest[i * static_cast<std::size_t>(dst)] = in[i * static_cast<std::size_t>(sst)];
}

// ---- block scope: every thread of the block calls with the same arguments ------------------------
// Each thread moves its share; all return once the whole transfer is done (a __syncthreads).
__device__ __forceinline__ void putmem_block(const Block& b, void* dest, const void* src, std::size_t bytes, int pe) {
  cuda::detail::rma<true>("shmem::device::putmem_block", dest, src, bytes, pe, static_cast<unsigned>(b.thread_id),
                          static_cast<unsigned>(b.block_dim));
  __syncthreads();
}
__device__ __forceinline__ void getmem_block(const Block& b, void* dest, const void* src, std::size_t bytes, int pe) {
  cuda::detail::rma<false>("shmem::device::getmem_block", dest, src, bytes, pe, static_cast<unsigned>(b.thread_id),
                           static_cast<unsigned>(b.block_dim));
  __syncthreads();
}
__device__ __forceinline__ void putmem_nbi_block(const Block& b, void* dest, const void* src, std::size_t bytes,
                                                 int pe) {
  putmem_block(b, dest, src, bytes, pe);
}
__device__ __forceinline__ void getmem_nbi_block(const Block& b, void* dest, const void* src, std::size_t bytes,
                                                 int pe) {
  getmem_block(b, dest, src, bytes, pe);
}
template <class T>
__device__ __forceinline__ void put_block(const Block& b, T* dest, const T* src, std::size_t nelems, int pe) {
  putmem_block(b, dest, src, nelems * sizeof(T), pe);
}
template <class T>
__device__ __forceinline__ void get_block(const Block& b, T* dest, const T* src, std::size_t nelems, int pe) {
  getmem_block(b, dest, src, nelems * sizeof(T), pe);
}
template <class T>
__device__ __forceinline__ void put_nbi_block(const Block& b, T* dest, const T* src, std::size_t nelems, int pe) {
  putmem_block(b, dest, src, nelems * sizeof(T), pe);
}
template <class T>
__device__ __forceinline__ void get_nbi_block(const Block& b, T* dest, const T* src, std::size_t nelems, int pe) {
  getmem_block(b, dest, src, nelems * sizeof(T), pe);
}

// ---- warp scope: every thread of a full warp calls with the same arguments -----------------------
__device__ __forceinline__ void putmem_warp(void* dest, const void* src, std::size_t bytes, int pe) {
  cuda::detail::rma<true>("shmem::device::putmem_warp", dest, src, bytes, pe, cuda::detail::lane(), 32);
  __syncwarp();
}
__device__ __forceinline__ void getmem_warp(void* dest, const void* src, std::size_t bytes, int pe) {
  cuda::detail::rma<false>("shmem::device::getmem_warp", dest, src, bytes, pe, cuda::detail::lane(), 32);
  __syncwarp();
}
__device__ __forceinline__ void putmem_nbi_warp(void* dest, const void* src, std::size_t bytes, int pe) {
  putmem_warp(dest, src, bytes, pe);
}
__device__ __forceinline__ void getmem_nbi_warp(void* dest, const void* src, std::size_t bytes, int pe) {
  getmem_warp(dest, src, bytes, pe);
}
template <class T>
__device__ __forceinline__ void put_warp(T* dest, const T* src, std::size_t nelems, int pe) {
  putmem_warp(dest, src, nelems * sizeof(T), pe);
}
template <class T>
__device__ __forceinline__ void get_warp(T* dest, const T* src, std::size_t nelems, int pe) {
  getmem_warp(dest, src, nelems * sizeof(T), pe);
}

}  // namespace shmem::device
