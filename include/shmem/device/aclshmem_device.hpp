#pragma once
// Ascend SHMEM's in-kernel names, mapped onto shmem::device, so that kernel code
// written for Ascend SHMEM compiles unchanged for the CPU device and, under nvcc, for CUDA kernels:
//
//   aclshmem_my_pe / n_pes / ptr, aclshmem_team_my_pe / team_n_pes / team_translate_pe /
//   team_pe_mapping; aclshmem_putmem / getmem (+_nbi); aclshmem_NAME_put / get / p / g / iput /
//   iget (+_nbi) for Ascend SHMEM's 11 host types (no half / bfloat16 on CPU); aclshmem_putBITS /
//   getBITS / iputBITS / igetBITS (+_nbi); aclshmem_putmem_signal (+_nbi), aclshmem_NAME_put_signal,
//   aclshmem_putBITS_signal, aclshmemx_signal_op, aclshmem_signal_wait_until (int32_t signals,
//   as in Ascend SHMEM); aclshmem_NAME_wait_until / wait / test; aclshmem_NAME_atomic_* ;
//   aclshmem_quiet / fence; aclshmem_barrier / barrier_all / sync / sync_all; the SIMT block
//   forms aclshmemx_putmem_block, aclshmemx_NAME_put_block, ... .
//
// Semantics as in Ascend SHMEM: aclshmem_barrier_all() and friends are called by every thread of
// every block of the kernel (the whole "device" of this PE), so a multi-block kernel that uses
// them must be launched cooperatively (shmemx_launch_ex with cooperative = 1, or
// LaunchOptions{.cooperative = true}); a single-block kernel needs nothing special. The block
// forms use the calling thread's block. Engine-specific calls (aclshmemx_mte_*, _roce_*,
// _sdma_*, _udma_*, UB-to-GM forms, _warp forms) have no CPU counterpart and are not provided.
// Teams other than ACLSHMEM_TEAM_WORLD: the queries forward to the host library; a device
// barrier on them is refused (recorded as the launch's error).
//
// As in Ascend SHMEM, kernel code and host code live in separate translation units: this header
// and <aclshmem.h> declare the same names (host and device versions) and must not be included
// together. A translation unit that needs both uses the native shmem::device names instead.
#define ACLSHMEM_DEVICE_HPP 1
#ifdef ACLSHMEM_H
#error "aclshmem_device.hpp (kernel code) and aclshmem.h (host code) declare the same names: include one per translation unit, or use shmem::device:: names next to aclshmem.h"
#endif

#include "shmem/device/cxx20.hpp"  // first: refuses C++ before 20 in words
#include <aclshmem/aclshmem_defs.h>
#include <aclshmem/aclshmem_types.h>

#include "shmem/device/device.hpp"

#if defined(__CUDACC__)
// CUDA kernels: device functions; teams other than ACLSHMEM_TEAM_WORLD (a team's handle is its
// slot) come from the device team table (shmem/device/cuda/state.hpp: GpuTeam).
#define ACLSHMEM_DEVICE_FN __device__ __forceinline__
namespace shmem::device::acl_detail {
struct BlockRef {  // the calling thread's block (always inside a kernel on the GPU)
  Block b;
  __device__ explicit operator bool() const { return true; }
  __device__ const Block& operator*() const { return b; }
};
__device__ __forceinline__ BlockRef block() { return BlockRef{this_block()}; }
__device__ __forceinline__ void barrier_all(bool with_quiet) {
  if (with_quiet) return barrier_all_grid(this_block());
  return sync_all_grid(this_block());
}
// Every thread of the kernel (grid scope, as barrier_all) on a team of the table.
__device__ inline void team_barrier(const char* f, aclshmem_team_t team, bool with_quiet) {
  if (team == ACLSHMEM_TEAM_WORLD) return barrier_all(with_quiet);
  const cuda::GpuTeam* t = cuda::detail::team_at(team);
  if (t == nullptr) return cuda::detail::bad_argument(f, team);
  const Block b = this_block();
  if (with_quiet) quiet();
  grid_sync(b);
  if (b.block_id == 0 && b.thread_id == 0) cuda::detail::team_sync(f, *t);
  grid_sync(b);
}
__device__ __forceinline__ int host_team_my_pe(aclshmem_team_t team) {
  const cuda::GpuTeam* t = cuda::detail::team_at(team);
  return t ? t->me : -1;
}
__device__ __forceinline__ int host_team_n_pes(aclshmem_team_t team) {
  const cuda::GpuTeam* t = cuda::detail::team_at(team);
  return t ? t->n : -1;
}
__device__ inline int host_team_translate_pe(aclshmem_team_t src, int pe, aclshmem_team_t dst) {
  const cuda::GpuTeam* s = src == ACLSHMEM_TEAM_WORLD ? nullptr : cuda::detail::team_at(src);
  const cuda::GpuTeam* d = dst == ACLSHMEM_TEAM_WORLD ? nullptr : cuda::detail::team_at(dst);
  if ((src != ACLSHMEM_TEAM_WORLD && !s) || (dst != ACLSHMEM_TEAM_WORLD && !d)) return -1;
  return cuda::detail::index_in(d, cuda::detail::world_of(s, pe));
}
}  // namespace shmem::device::acl_detail
#else
#define ACLSHMEM_DEVICE_FN inline
// The host library's team queries, under names that do not clash with the device ones below.
extern "C" {
int aclshmem_device_host_team_my_pe_(aclshmem_team_t team) noexcept __asm__("aclshmem_team_my_pe");
int aclshmem_device_host_team_n_pes_(aclshmem_team_t team) noexcept __asm__("aclshmem_team_n_pes");
int aclshmem_device_host_team_translate_pe_(aclshmem_team_t src, int pe, aclshmem_team_t dst) noexcept
    __asm__("aclshmem_team_translate_pe");
}

namespace shmem::device::acl_detail {

inline const Block* block() noexcept { return detail::current_block(); }

// Ascend SHMEM barriers involve every thread of the kernel; outside a kernel, the calling thread.
inline void barrier_all(bool with_quiet) noexcept {
  if (const Block* b = block()) {
    if (with_quiet) return barrier_all_grid(*b);
    return sync_all_grid(*b);
  }
  if (with_quiet) return device::barrier_all();
  return device::sync_all();
}
inline void team_barrier(const char* f, aclshmem_team_t team, bool with_quiet) noexcept {
  if (team == ACLSHMEM_TEAM_WORLD) return barrier_all(with_quiet);
  detail::fail(f, "team %d: device barriers support ACLSHMEM_TEAM_WORLD only; nothing was done", team);
}
inline int host_team_my_pe(aclshmem_team_t team) noexcept { return aclshmem_device_host_team_my_pe_(team); }
inline int host_team_n_pes(aclshmem_team_t team) noexcept { return aclshmem_device_host_team_n_pes_(team); }
inline int host_team_translate_pe(aclshmem_team_t src, int pe, aclshmem_team_t dst) noexcept {
  return aclshmem_device_host_team_translate_pe_(src, pe, dst);
}

}  // namespace shmem::device::acl_detail
#endif

// ---- PE, pointers, teams ------------------------------------------------------------------------
ACLSHMEM_DEVICE_FN int aclshmem_my_pe() noexcept { return shmem::device::my_pe(); }
ACLSHMEM_DEVICE_FN int aclshmem_n_pes() noexcept { return shmem::device::n_pes(); }
ACLSHMEM_DEVICE_FN void* aclshmem_ptr(const void* ptr, int pe) noexcept { return shmem::device::ptr(ptr, pe); }
ACLSHMEM_DEVICE_FN int aclshmem_team_my_pe(aclshmem_team_t team) noexcept {
  return team == ACLSHMEM_TEAM_WORLD ? shmem::device::my_pe() : shmem::device::acl_detail::host_team_my_pe(team);
}
ACLSHMEM_DEVICE_FN int aclshmem_team_n_pes(aclshmem_team_t team) noexcept {
  return team == ACLSHMEM_TEAM_WORLD ? shmem::device::n_pes() : shmem::device::acl_detail::host_team_n_pes(team);
}
ACLSHMEM_DEVICE_FN int aclshmem_team_translate_pe(aclshmem_team_t src_team, int src_pe,
                                                  aclshmem_team_t dst_team) noexcept {
  if (src_team == ACLSHMEM_TEAM_WORLD && dst_team == ACLSHMEM_TEAM_WORLD)
    return src_pe >= 0 && src_pe < shmem::device::n_pes() ? src_pe : -1;
  return shmem::device::acl_detail::host_team_translate_pe(src_team, src_pe, dst_team);
}
// The world PE of `pe` of `team`.
ACLSHMEM_DEVICE_FN int aclshmem_team_pe_mapping(aclshmem_team_t team, int pe) noexcept {
  return aclshmem_team_translate_pe(team, pe, ACLSHMEM_TEAM_WORLD);
}

// ---- RMA -------------------------------------------------------------------------------------------
ACLSHMEM_DEVICE_FN void aclshmem_putmem(void* dst, const void* src, uint32_t bytes, int pe) noexcept {
  shmem::device::putmem(dst, src, bytes, pe);
}
ACLSHMEM_DEVICE_FN void aclshmem_getmem(void* dst, const void* src, uint32_t bytes, int pe) noexcept {
  shmem::device::getmem(dst, src, bytes, pe);
}
ACLSHMEM_DEVICE_FN void aclshmem_putmem_nbi(void* dst, const void* src, uint32_t bytes, int pe) noexcept {
  shmem::device::putmem(dst, src, bytes, pe);
}
ACLSHMEM_DEVICE_FN void aclshmem_getmem_nbi(void* dst, const void* src, uint32_t bytes, int pe) noexcept {
  shmem::device::getmem(dst, src, bytes, pe);
}
ACLSHMEM_DEVICE_FN void aclshmemx_putmem_block(void* dst, const void* src, uint32_t bytes, int pe) noexcept {
  if (auto b = shmem::device::acl_detail::block())
    shmem::device::putmem_block(*b, dst, src, bytes, pe);
  else
    shmem::device::putmem(dst, src, bytes, pe);
}
ACLSHMEM_DEVICE_FN void aclshmemx_getmem_block(void* dst, const void* src, uint32_t bytes, int pe) noexcept {
  if (auto b = shmem::device::acl_detail::block())
    shmem::device::getmem_block(*b, dst, src, bytes, pe);
  else
    shmem::device::getmem(dst, src, bytes, pe);
}
ACLSHMEM_DEVICE_FN void aclshmemx_putmem_nbi_block(void* dst, const void* src, uint32_t bytes, int pe) noexcept {
  aclshmemx_putmem_block(dst, src, bytes, pe);
}
ACLSHMEM_DEVICE_FN void aclshmemx_getmem_nbi_block(void* dst, const void* src, uint32_t bytes, int pe) noexcept {
  aclshmemx_getmem_block(dst, src, bytes, pe);
}

#define ACLSHMEM_DEVICE_RMA_(T, N)                                                                                 \
  ACLSHMEM_DEVICE_FN void aclshmem_##N##_put(T* dst, const T* src, uint32_t nelems, int pe) noexcept {             \
    shmem::device::put(dst, src, nelems, pe);                                                                      \
  }                                                                                                                \
  ACLSHMEM_DEVICE_FN void aclshmem_##N##_get(T* dst, const T* src, uint32_t nelems, int pe) noexcept {             \
    shmem::device::get(dst, src, nelems, pe);                                                                      \
  }                                                                                                                \
  ACLSHMEM_DEVICE_FN void aclshmem_##N##_put_nbi(T* dst, const T* src, uint32_t nelems, int pe) noexcept {         \
    shmem::device::put(dst, src, nelems, pe);                                                                      \
  }                                                                                                                \
  ACLSHMEM_DEVICE_FN void aclshmem_##N##_get_nbi(T* dst, const T* src, uint32_t nelems, int pe) noexcept {         \
    shmem::device::get(dst, src, nelems, pe);                                                                      \
  }                                                                                                                \
  ACLSHMEM_DEVICE_FN void aclshmem_##N##_p(T* dst, T value, int pe) noexcept { shmem::device::p(dst, value, pe); } \
  ACLSHMEM_DEVICE_FN T aclshmem_##N##_g(const T* src, int pe) noexcept { return shmem::device::g(src, pe); }       \
  ACLSHMEM_DEVICE_FN void aclshmem_##N##_iput(T* dst, const T* src, ptrdiff_t dst_stride, ptrdiff_t src_stride,    \
                                              uint32_t nelems, int pe) noexcept {                                  \
    shmem::device::iput(dst, src, dst_stride, src_stride, nelems, pe);                                             \
  }                                                                                                                \
  ACLSHMEM_DEVICE_FN void aclshmem_##N##_iget(T* dst, const T* src, ptrdiff_t dst_stride, ptrdiff_t src_stride,    \
                                              uint32_t nelems, int pe) noexcept {                                  \
    shmem::device::iget(dst, src, dst_stride, src_stride, nelems, pe);                                             \
  }                                                                                                                \
  ACLSHMEM_DEVICE_FN void aclshmem_##N##_put_signal(T* dst, const T* src, uint32_t nelems, int32_t* sig_addr,      \
                                                    int32_t signal, int sig_op, int pe) noexcept {                 \
    shmem::device::put_signal(dst, src, nelems, sig_addr, signal, sig_op, pe);                                     \
  }                                                                                                                \
  ACLSHMEM_DEVICE_FN void aclshmem_##N##_put_signal_nbi(T* dst, const T* src, uint32_t nelems, int32_t* sig_addr,  \
                                                        int32_t signal, int sig_op, int pe) noexcept {             \
    shmem::device::put_signal(dst, src, nelems, sig_addr, signal, sig_op, pe);                                     \
  }                                                                                                                \
  ACLSHMEM_DEVICE_FN void aclshmemx_##N##_put_block(T* dst, const T* src, uint32_t nelems, int pe) noexcept {      \
    aclshmemx_putmem_block(dst, src, static_cast<uint32_t>(nelems * sizeof(T)), pe);                               \
  }                                                                                                                \
  ACLSHMEM_DEVICE_FN void aclshmemx_##N##_get_block(T* dst, const T* src, uint32_t nelems, int pe) noexcept {      \
    aclshmemx_getmem_block(dst, src, static_cast<uint32_t>(nelems * sizeof(T)), pe);                               \
  }                                                                                                                \
  ACLSHMEM_DEVICE_FN void aclshmemx_##N##_put_nbi_block(T* dst, const T* src, uint32_t nelems, int pe) noexcept {  \
    aclshmemx_putmem_block(dst, src, static_cast<uint32_t>(nelems * sizeof(T)), pe);                               \
  }                                                                                                                \
  ACLSHMEM_DEVICE_FN void aclshmemx_##N##_get_nbi_block(T* dst, const T* src, uint32_t nelems, int pe) noexcept {  \
    aclshmemx_getmem_block(dst, src, static_cast<uint32_t>(nelems * sizeof(T)), pe);                               \
  }
ACLSHMEM_HOST_TYPE_TABLE(ACLSHMEM_DEVICE_RMA_)
#undef ACLSHMEM_DEVICE_RMA_

#define ACLSHMEM_DEVICE_SIZED_(BITS)                                                                                  \
  ACLSHMEM_DEVICE_FN void aclshmem_put##BITS(void* dst, const void* src, uint32_t nelems, int pe) noexcept {          \
    shmem::device::putmem(dst, src, static_cast<size_t>(nelems) * (BITS / 8), pe);                                    \
  }                                                                                                                   \
  ACLSHMEM_DEVICE_FN void aclshmem_get##BITS(void* dst, const void* src, uint32_t nelems, int pe) noexcept {          \
    shmem::device::getmem(dst, src, static_cast<size_t>(nelems) * (BITS / 8), pe);                                    \
  }                                                                                                                   \
  ACLSHMEM_DEVICE_FN void aclshmem_put##BITS##_nbi(void* dst, const void* src, uint32_t nelems, int pe) noexcept {    \
    aclshmem_put##BITS(dst, src, nelems, pe);                                                                         \
  }                                                                                                                   \
  ACLSHMEM_DEVICE_FN void aclshmem_get##BITS##_nbi(void* dst, const void* src, uint32_t nelems, int pe) noexcept {    \
    aclshmem_get##BITS(dst, src, nelems, pe);                                                                         \
  }                                                                                                                   \
  ACLSHMEM_DEVICE_FN void aclshmem_iput##BITS(void* dst, const void* src, ptrdiff_t dst_stride, ptrdiff_t src_stride, \
                                              uint32_t nelems, int pe) noexcept {                                     \
    struct W {                                                                                                        \
      unsigned char b[BITS / 8];                                                                                      \
    };                                                                                                                \
    shmem::device::iput(static_cast<W*>(dst), static_cast<const W*>(src), dst_stride, src_stride, nelems, pe);        \
  }                                                                                                                   \
  ACLSHMEM_DEVICE_FN void aclshmem_iget##BITS(void* dst, const void* src, ptrdiff_t dst_stride, ptrdiff_t src_stride, \
                                              uint32_t nelems, int pe) noexcept {                                     \
    struct W {                                                                                                        \
      unsigned char b[BITS / 8];                                                                                      \
    };                                                                                                                \
    shmem::device::iget(static_cast<W*>(dst), static_cast<const W*>(src), dst_stride, src_stride, nelems, pe);        \
  }                                                                                                                   \
  ACLSHMEM_DEVICE_FN void aclshmem_put##BITS##_signal(void* dst, const void* src, uint32_t nelems, int32_t* sig_addr, \
                                                      int32_t signal, int sig_op, int pe) noexcept {                  \
    shmem::device::putmem_signal(dst, src, static_cast<size_t>(nelems) * (BITS / 8), sig_addr, signal, sig_op, pe);   \
  }                                                                                                                   \
  ACLSHMEM_DEVICE_FN void aclshmem_put##BITS##_signal_nbi(                                                            \
      void* dst, const void* src, uint32_t nelems, int32_t* sig_addr, int32_t signal, int sig_op, int pe) noexcept {  \
    aclshmem_put##BITS##_signal(dst, src, nelems, sig_addr, signal, sig_op, pe);                                      \
  }
ACLSHMEM_SIZE_TABLE(ACLSHMEM_DEVICE_SIZED_)
#undef ACLSHMEM_DEVICE_SIZED_

// ---- signals and point-to-point sync -----------------------------------------------------------------
ACLSHMEM_DEVICE_FN void aclshmem_putmem_signal(void* dst, const void* src, uint32_t bytes, int32_t* sig_addr,
                                               int32_t signal, int sig_op, int pe) noexcept {
  shmem::device::putmem_signal(dst, src, bytes, sig_addr, signal, sig_op, pe);
}
ACLSHMEM_DEVICE_FN void aclshmem_putmem_signal_nbi(void* dst, const void* src, uint32_t bytes, int32_t* sig_addr,
                                                   int32_t signal, int sig_op, int pe) noexcept {
  shmem::device::putmem_signal(dst, src, bytes, sig_addr, signal, sig_op, pe);
}
ACLSHMEM_DEVICE_FN void aclshmemx_signal_op(int32_t* sig_addr, int32_t signal, int sig_op, int pe) noexcept {
  shmem::device::signal_op(sig_addr, signal, sig_op, pe);
}
ACLSHMEM_DEVICE_FN int32_t aclshmem_signal_wait_until(int32_t* sig_addr, int cmp, int32_t cmp_val) noexcept {
  return shmem::device::signal_wait_until(sig_addr, cmp, cmp_val);
}

#define ACLSHMEM_DEVICE_P2P_(T, N)                                                            \
  ACLSHMEM_DEVICE_FN void aclshmem_##N##_wait_until(T* ivar, int cmp, T cmp_value) noexcept { \
    shmem::device::wait_until(ivar, cmp, cmp_value);                                          \
  }                                                                                           \
  ACLSHMEM_DEVICE_FN void aclshmem_##N##_wait(T* ivar, T cmp_value) noexcept {                \
    shmem::device::wait_until(ivar, ACLSHMEM_CMP_NE, cmp_value);                              \
  }                                                                                           \
  ACLSHMEM_DEVICE_FN int aclshmem_##N##_test(T* ivar, int cmp, T cmp_value) noexcept {        \
    return shmem::device::test(ivar, cmp, cmp_value) ? 1 : 0;                                 \
  }
ACLSHMEM_P2P_SYNC_TYPE_TABLE(ACLSHMEM_DEVICE_P2P_)
#undef ACLSHMEM_DEVICE_P2P_

// ---- atomics ----------------------------------------------------------------------------------------------
#define ACLSHMEM_DEVICE_AMO_INT_(T, N)                                                                               \
  ACLSHMEM_DEVICE_FN void aclshmem_##N##_atomic_add(T* dst, T value, int pe) noexcept {                              \
    shmem::device::atomic_add(dst, value, pe);                                                                       \
  }                                                                                                                  \
  ACLSHMEM_DEVICE_FN void aclshmem_##N##_atomic_inc(T* dst, int pe) noexcept { shmem::device::atomic_inc(dst, pe); } \
  ACLSHMEM_DEVICE_FN void aclshmem_##N##_atomic_set(T* dst, T value, int pe) noexcept {                              \
    shmem::device::atomic_set(dst, value, pe);                                                                       \
  }                                                                                                                  \
  ACLSHMEM_DEVICE_FN void aclshmem_##N##_atomic_and(T* dst, T value, int pe) noexcept {                              \
    shmem::device::atomic_and(dst, value, pe);                                                                       \
  }                                                                                                                  \
  ACLSHMEM_DEVICE_FN void aclshmem_##N##_atomic_or(T* dst, T value, int pe) noexcept {                               \
    shmem::device::atomic_or(dst, value, pe);                                                                        \
  }                                                                                                                  \
  ACLSHMEM_DEVICE_FN void aclshmem_##N##_atomic_xor(T* dst, T value, int pe) noexcept {                              \
    shmem::device::atomic_xor(dst, value, pe);                                                                       \
  }                                                                                                                  \
  ACLSHMEM_DEVICE_FN T aclshmem_##N##_atomic_fetch_add(T* dst, T value, int pe) noexcept {                           \
    return shmem::device::atomic_fetch_add(dst, value, pe);                                                          \
  }                                                                                                                  \
  ACLSHMEM_DEVICE_FN T aclshmem_##N##_atomic_fetch_inc(T* dst, int pe) noexcept {                                    \
    return shmem::device::atomic_fetch_inc(dst, pe);                                                                 \
  }                                                                                                                  \
  ACLSHMEM_DEVICE_FN T aclshmem_##N##_atomic_fetch(T* src, int pe) noexcept {                                        \
    return shmem::device::atomic_fetch(src, pe);                                                                     \
  }                                                                                                                  \
  ACLSHMEM_DEVICE_FN T aclshmem_##N##_atomic_swap(T* dst, T value, int pe) noexcept {                                \
    return shmem::device::atomic_swap(dst, value, pe);                                                               \
  }                                                                                                                  \
  ACLSHMEM_DEVICE_FN T aclshmem_##N##_atomic_compare_swap(T* dst, T cond, T value, int pe) noexcept {                \
    return shmem::device::atomic_compare_swap(dst, cond, value, pe);                                                 \
  }                                                                                                                  \
  ACLSHMEM_DEVICE_FN T aclshmem_##N##_atomic_fetch_and(T* dst, T value, int pe) noexcept {                           \
    return shmem::device::atomic_fetch_and(dst, value, pe);                                                          \
  }                                                                                                                  \
  ACLSHMEM_DEVICE_FN T aclshmem_##N##_atomic_fetch_or(T* dst, T value, int pe) noexcept {                            \
    return shmem::device::atomic_fetch_or(dst, value, pe);                                                           \
  }                                                                                                                  \
  ACLSHMEM_DEVICE_FN T aclshmem_##N##_atomic_fetch_xor(T* dst, T value, int pe) noexcept {                           \
    return shmem::device::atomic_fetch_xor(dst, value, pe);                                                          \
  }
ACLSHMEM_DEVICE_AMO_INT_(int32_t, int32)
ACLSHMEM_DEVICE_AMO_INT_(uint32_t, uint32)
ACLSHMEM_DEVICE_AMO_INT_(int64_t, int64)
ACLSHMEM_DEVICE_AMO_INT_(uint64_t, uint64)
#undef ACLSHMEM_DEVICE_AMO_INT_

// float: add, set, fetch, swap, fetch_add (Ascend SHMEM's MTE float atomics); int8/int16: add.
ACLSHMEM_DEVICE_FN void aclshmem_float_atomic_add(float* dst, float value, int pe) noexcept {
  shmem::device::atomic_add(dst, value, pe);
}
ACLSHMEM_DEVICE_FN void aclshmem_float_atomic_set(float* dst, float value, int pe) noexcept {
  shmem::device::atomic_set(dst, value, pe);
}
ACLSHMEM_DEVICE_FN float aclshmem_float_atomic_fetch(float* src, int pe) noexcept {
  return shmem::device::atomic_fetch(src, pe);
}
ACLSHMEM_DEVICE_FN float aclshmem_float_atomic_swap(float* dst, float value, int pe) noexcept {
  return shmem::device::atomic_swap(dst, value, pe);
}
ACLSHMEM_DEVICE_FN float aclshmem_float_atomic_fetch_add(float* dst, float value, int pe) noexcept {
  return shmem::device::atomic_fetch_add(dst, value, pe);
}
ACLSHMEM_DEVICE_FN void aclshmem_int8_atomic_add(int8_t* dst, int8_t value, int pe) noexcept {
  shmem::device::atomic_add(dst, value, pe);
}
ACLSHMEM_DEVICE_FN void aclshmem_int16_atomic_add(int16_t* dst, int16_t value, int pe) noexcept {
  shmem::device::atomic_add(dst, value, pe);
}

// ---- ordering and barriers ----------------------------------------------------------------------------------
ACLSHMEM_DEVICE_FN void aclshmem_quiet() noexcept { shmem::device::quiet(); }
ACLSHMEM_DEVICE_FN void aclshmem_fence() noexcept { shmem::device::fence(); }
ACLSHMEM_DEVICE_FN void aclshmem_barrier_all() noexcept { shmem::device::acl_detail::barrier_all(true); }
ACLSHMEM_DEVICE_FN void aclshmem_sync_all() noexcept { shmem::device::acl_detail::barrier_all(false); }
ACLSHMEM_DEVICE_FN void aclshmem_barrier(aclshmem_team_t team) noexcept {
  shmem::device::acl_detail::team_barrier("aclshmem_barrier", team, true);
}
ACLSHMEM_DEVICE_FN void aclshmem_sync(aclshmem_team_t team) noexcept {
  shmem::device::acl_detail::team_barrier("aclshmem_sync", team, false);
}
