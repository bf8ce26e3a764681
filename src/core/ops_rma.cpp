#include <cstring>

#include "core/access.hpp"
#include "core/ops.hpp"

namespace shmem::core {
namespace {

template <std::size_t N>
inline void copy_strided(char* d, const char* s, std::ptrdiff_t ds, std::ptrdiff_t ss, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i, d += ds * static_cast<std::ptrdiff_t>(N), s += ss * static_cast<std::ptrdiff_t>(N))
    std::memcpy(d, s, N);
}

void strided(char* d, const char* s, std::ptrdiff_t ds, std::ptrdiff_t ss, std::size_t n, std::size_t elem) {
  switch (elem) {
    case 1: return copy_strided<1>(d, s, ds, ss, n);
    case 2: return copy_strided<2>(d, s, ds, ss, n);
    case 4: return copy_strided<4>(d, s, ds, ss, n);
    case 8: return copy_strided<8>(d, s, ds, ss, n);
    case 16: return copy_strided<16>(d, s, ds, ss, n);
    default:
      for (std::size_t i = 0; i < n; ++i)
        std::memcpy(d + static_cast<std::ptrdiff_t>(i * elem) * ds, s + static_cast<std::ptrdiff_t>(i * elem) * ss, elem);
  }
}

void blocked(char* d, const char* s, std::ptrdiff_t ds, std::ptrdiff_t ss, std::size_t bsize, std::size_t nblocks,
             std::size_t elem) {
  const std::size_t bytes = bsize * elem;
  for (std::size_t b = 0; b < nblocks; ++b)
    std::memcpy(d + static_cast<std::ptrdiff_t>(b * elem) * ds, s + static_cast<std::ptrdiff_t>(b * elem) * ss, bytes);
}

}  // namespace

void put(Ctx* ctx, void* dest, const void* src, std::size_t bytes, int pe) noexcept {
  if (bytes == 0) return;
  std::memcpy(detail::local_target(ctx, dest, pe, "shmem_put"), src, bytes);
}

void get(Ctx* ctx, void* dest, const void* src, std::size_t bytes, int pe) noexcept {
  if (bytes == 0) return;
  std::memcpy(dest, detail::local_target(ctx, src, pe, "shmem_get"), bytes);
}

// Node-local transfers complete immediately, so the nonblocking forms are the blocking ones.
void put_nbi(Ctx* ctx, void* dest, const void* src, std::size_t bytes, int pe) noexcept {
  put(ctx, dest, src, bytes, pe);
}
void get_nbi(Ctx* ctx, void* dest, const void* src, std::size_t bytes, int pe) noexcept {
  get(ctx, dest, src, bytes, pe);
}

void iput(Ctx* ctx, void* dest, const void* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
          std::size_t nelems, std::size_t elem_size, int pe) noexcept {
  if (nelems == 0) return;
  strided(detail::local_target(ctx, dest, pe, "shmem_iput"), static_cast<const char*>(src), dst_stride,
          src_stride, nelems, elem_size);
}

void iget(Ctx* ctx, void* dest, const void* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
          std::size_t nelems, std::size_t elem_size, int pe) noexcept {
  if (nelems == 0) return;
  strided(static_cast<char*>(dest), detail::local_target(ctx, src, pe, "shmem_iget"), dst_stride, src_stride,
          nelems, elem_size);
}

void ibput(Ctx* ctx, void* dest, const void* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
           std::size_t bsize, std::size_t nblocks, std::size_t elem_size, int pe) noexcept {
  if (nblocks == 0 || bsize == 0) return;
  blocked(detail::local_target(ctx, dest, pe, "shmem_ibput"), static_cast<const char*>(src), dst_stride,
          src_stride, bsize, nblocks, elem_size);
}

void ibget(Ctx* ctx, void* dest, const void* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
           std::size_t bsize, std::size_t nblocks, std::size_t elem_size, int pe) noexcept {
  if (nblocks == 0 || bsize == 0) return;
  blocked(static_cast<char*>(dest), detail::local_target(ctx, src, pe, "shmem_ibget"), dst_stride, src_stride,
          bsize, nblocks, elem_size);
}

void quiet(Ctx*) noexcept { std::atomic_thread_fence(std::memory_order_seq_cst); }

void fence(Ctx*) noexcept { detail::store_fence(); }

void barrier_all() noexcept {
  Runtime& r = rt("shmem_barrier_all");
  quiet(r.default_ctx());
  r.barrier();
}

void sync_all() noexcept {
  Runtime& r = rt("shmem_sync_all");
  r.barrier();
}

}  // namespace shmem::core
