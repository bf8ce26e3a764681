#pragma once
// Resolving a (symmetric address, PE) pair to memory this process can touch: the one step
// every data-path operation shares. PE numbers are always range-checked (one compare), and so is
// the end of the access: `bytes` from the address must lie in the region (heap or static data)
// the address lies in (one more compare), so that no size can write beyond a peer's segment;
// the heavier check against the one symmetric object runs only with SHMEM_DEBUG=1.
// `func` is the public routine and `arg` the
// name of the address argument (dest, source, sig_addr, ...) as the user called them: they only
// reach the error path, which names both.
#include <cstddef>

#include "core/runtime.hpp"
#include "shmem/device/cpu.hpp"

namespace shmem::detail {

[[noreturn]] void bad_pe(const Runtime& r, int pe, const char* func) noexcept;
[[noreturn]] void bad_target(const Runtime& r, const void* addr, int pe, const char* func,
                             const char* arg = "address") noexcept;
[[noreturn]] void past_end(const Runtime& r, const void* addr, std::size_t bytes, const char* func,
                           const char* arg) noexcept;

inline void check_pe_fast(const Runtime& r, int pe, const char* func) noexcept {
  if (__builtin_expect(static_cast<unsigned>(pe) >= static_cast<unsigned>(r.n_pes()), 0)) bad_pe(r, pe, func);
}

// Node-local address of `addr` on `pe`; ends the job with a clear message when impossible.
// `bytes` >= 1: the extent of the access.
inline char* local_target(const Runtime& r, const void* addr, std::size_t bytes, int pe, const char* func,
                          const char* arg = "address") noexcept {
  check_pe_fast(r, pe, func);
  bool over;
  char* p = r.translate_span(addr, bytes, pe, &over);
  if (__builtin_expect(over, 0)) past_end(r, addr, bytes, func, arg);
  if (__builtin_expect(p == nullptr, 0)) bad_target(r, addr, pe, func, arg);
  return p;
}

// The same for an operation on a context: team contexts number PEs within their team.
[[noreturn]] void bad_team_pe(const Ctx& ctx, int pe, const char* func) noexcept;
inline char* local_target(const Ctx* ctx, const void* addr, std::size_t bytes, int pe, const char* func,
                          const char* arg = "address") noexcept {
  if (ctx->world) {
    if (__builtin_expect(static_cast<unsigned>(pe) >= static_cast<unsigned>(ctx->team_size), 0))
      bad_team_pe(*ctx, pe, func);
    pe = ctx->world[pe];
  }
  return local_target(*ctx->rt, addr, bytes, pe, func, arg);
}

// Bytes spanned by nelems elements `stride` elements apart (strides are >= 1 per the spec).
inline std::size_t strided_extent(std::size_t nelems, std::ptrdiff_t stride, std::size_t elem) noexcept {
  if (nelems == 0) return 0;
  const std::size_t s = stride < 0 ? static_cast<std::size_t>(-stride) : static_cast<std::size_t>(stride);
  return ((nelems - 1) * s + 1) * elem;
}
// Bytes spanned by nblocks blocks of bsize elements whose starts are `stride` elements apart.
inline std::size_t blocked_extent(std::size_t bsize, std::size_t nblocks, std::ptrdiff_t stride,
                                  std::size_t elem) noexcept {
  if (nblocks == 0 || bsize == 0) return 0;
  const std::size_t s = stride < 0 ? static_cast<std::size_t>(-stride) : static_cast<std::size_t>(stride);
  return ((nblocks - 1) * s + bsize) * elem;
}

// Where an operation lands: node-local memory (local != nullptr), pe's GPU heap as mapped here
// (gpu != nullptr: reached through the CUDA driver, core/gpu_rma.cpp), or (pe, seg, off)
// through the runtime's remote transport.
struct Target {
  char* local;
  int pe;
  transport::Seg seg;
  std::uint64_t off;
  char* gpu;
};

// The slow path of target(): the PE is remote, or addr is in the GPU heap (allowed only where
// gpu_ok: the operations that copy; else, or when addr is not symmetric, it ends the job).
Target remote_target(const Runtime& r, const void* addr, int pe, const char* func, const char* arg,
                     bool gpu_ok) noexcept;

template <bool kGpuOk = false>
inline Target target(const Runtime& r, const void* addr, std::size_t bytes, int pe, const char* func,
                     const char* arg = "address") noexcept {
  check_pe_fast(r, pe, func);
  bool over;
  char* p = r.translate_span(addr, bytes, pe, &over);
  if (__builtin_expect(over, 0)) past_end(r, addr, bytes, func, arg);
  if (__builtin_expect(p != nullptr, 1)) return Target{p, pe, transport::Seg::kHeap, 0, nullptr};
  return remote_target(r, addr, pe, func, arg, kGpuOk);
}

template <bool kGpuOk = false>
inline Target target(const Ctx* ctx, const void* addr, std::size_t bytes, int pe, const char* func,
                     const char* arg = "address") noexcept {
  if (ctx->world) {
    if (__builtin_expect(static_cast<unsigned>(pe) >= static_cast<unsigned>(ctx->team_size), 0))
      bad_team_pe(*ctx, pe, func);
    pe = ctx->world[pe];
  }
  return target<kGpuOk>(*ctx->rt, addr, bytes, pe, func, arg);
}

using device::detail::store_fence;  // shmem/device/cpu.hpp

}  // namespace shmem::detail
