#include <cstring>

#include "core/access.hpp"
#include "core/op_counters.hpp"
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

// A stride in elements as bytes.
inline std::ptrdiff_t pitch(std::size_t elem) { return static_cast<std::ptrdiff_t>(elem); }

}  // namespace

// Every operation resolves its target once: node-local PEs get memcpy into the mapped peer
// segment (inlined), remote PEs go through the runtime's transport.
void put(Ctx* ctx, void* dest, const void* src, std::size_t bytes, int pe, const char* func) noexcept {
  if (bytes == 0) return;
  const detail::Target t = detail::target<true>(ctx, dest, bytes, pe, func, "dest");
  if (__builtin_expect(t.local != nullptr, 1)) {
    op_counters::write(ctx, true);
    if (__builtin_expect(op_counters::counts_target(ctx), 0)) {
      std::memcpy(t.local, src, bytes);
      return op_counters::count_target(ctx, t.pe, func);
    }
    std::memcpy(t.local, src, bytes);
    return;
  }
  op_counters::write(ctx, t.gpu != nullptr);
  if (t.gpu)
    gpu_transfer(*ctx->rt, true, dest, t.gpu, const_cast<void*>(src), bytes, func);
  else
    ctx->rt->remote()->put(t.pe, t.seg, t.off, src, bytes, false, func);
  op_counters::target(ctx, t.pe, func);
}

void get(Ctx* ctx, void* dest, const void* src, std::size_t bytes, int pe, const char* func) noexcept {
  if (bytes == 0) return;
  const detail::Target t = detail::target<true>(ctx, src, bytes, pe, func, "source");
  op_counters::read(ctx, true);  // blocking: complete on return
  if (__builtin_expect(t.local != nullptr, 1))
    std::memcpy(dest, t.local, bytes);
  else if (t.gpu)
    gpu_transfer(*ctx->rt, false, src, t.gpu, dest, bytes, func);
  else ctx->rt->remote()->get(t.pe, t.seg, t.off, dest, bytes, false, func);
}

// Node-local transfers complete immediately, so there the nonblocking forms are the blocking ones.
void put_nbi(Ctx* ctx, void* dest, const void* src, std::size_t bytes, int pe, const char* func) noexcept {
  if (bytes == 0) return;
  const detail::Target t = detail::target<true>(ctx, dest, bytes, pe, func, "dest");
  if (__builtin_expect(t.local != nullptr, 1)) {
    op_counters::write(ctx, true);
    if (__builtin_expect(op_counters::counts_target(ctx), 0)) {
      std::memcpy(t.local, src, bytes);
      return op_counters::count_target(ctx, t.pe, func);
    }
    std::memcpy(t.local, src, bytes);
    return;
  }
  op_counters::write(ctx, t.gpu != nullptr);
  if (t.gpu)
    gpu_transfer(*ctx->rt, true, dest, t.gpu, const_cast<void*>(src), bytes, func);
  else
    ctx->rt->remote()->put(t.pe, t.seg, t.off, src, bytes, true, func);
  op_counters::target(ctx, t.pe, func);
}

void get_nbi(Ctx* ctx, void* dest, const void* src, std::size_t bytes, int pe, const char* func) noexcept {
  if (bytes == 0) return;
  const detail::Target t = detail::target<true>(ctx, src, bytes, pe, func, "source");
  if (__builtin_expect(t.local != nullptr, 1)) {
    op_counters::read(ctx, true);
    std::memcpy(dest, t.local, bytes);
    return;
  }
  op_counters::read(ctx, t.gpu != nullptr);
  if (t.gpu)
    gpu_transfer(*ctx->rt, false, src, t.gpu, dest, bytes, func);
  else ctx->rt->remote()->get(t.pe, t.seg, t.off, dest, bytes, true, func);
}

namespace {

// Strided and blocked transfers to a remote PE: one nonblocking transfer per element (or
// block), then that PE's operations are completed, so the call returns with the source
// reusable (put) or the data in place (get), as the blocking forms require.
void remote_blocks(const Ctx* ctx, const detail::Target& t, bool is_put, char* local, std::ptrdiff_t remote_stride,
                   std::ptrdiff_t local_stride, std::size_t block_bytes, std::size_t count, std::size_t elem,
                   const char* func) noexcept {
  transport::RemoteTransport* tr = ctx->rt->remote();
  for (std::size_t i = 0; i < count; ++i) {
    const auto k = static_cast<std::ptrdiff_t>(i * elem);
    const std::uint64_t off = t.off + static_cast<std::uint64_t>(k * remote_stride);
    char* l = local + k * local_stride;
    if (is_put) tr->put(t.pe, t.seg, off, l, block_bytes, true, func);
    else tr->get(t.pe, t.seg, off, l, block_bytes, true, func);
  }
  tr->quiet(t.pe);
}

}  // namespace

void iput(Ctx* ctx, void* dest, const void* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
          std::size_t nelems, std::size_t elem_size, int pe, const char* func) noexcept {
  if (nelems == 0) return;
  const detail::Target t =
      detail::target<true>(ctx, dest, detail::strided_extent(nelems, dst_stride, elem_size), pe, func, "dest");
  op_counters::write(ctx, t.local != nullptr || t.gpu != nullptr);
  if (t.local)
    strided(t.local, static_cast<const char*>(src), dst_stride, src_stride, nelems, elem_size);
  else if (t.gpu)
    gpu_transfer_2d(*ctx->rt, true, dest, t.gpu, dst_stride * pitch(elem_size), const_cast<void*>(src),
                    src_stride * pitch(elem_size), elem_size, nelems, func);
  else
    remote_blocks(ctx, t, true, const_cast<char*>(static_cast<const char*>(src)), dst_stride, src_stride, elem_size,
                  nelems, elem_size, func);
  op_counters::target(ctx, t.pe, func);
}

void iget(Ctx* ctx, void* dest, const void* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
          std::size_t nelems, std::size_t elem_size, int pe, const char* func) noexcept {
  if (nelems == 0) return;
  const detail::Target t =
      detail::target<true>(ctx, src, detail::strided_extent(nelems, src_stride, elem_size), pe, func, "source");
  op_counters::read(ctx, true);
  if (t.local) strided(static_cast<char*>(dest), t.local, dst_stride, src_stride, nelems, elem_size);
  else if (t.gpu)
    gpu_transfer_2d(*ctx->rt, false, src, t.gpu, src_stride * pitch(elem_size), dest, dst_stride * pitch(elem_size),
                    elem_size, nelems, func);
  else remote_blocks(ctx, t, false, static_cast<char*>(dest), src_stride, dst_stride, elem_size, nelems, elem_size,
                     func);
}

void ibput(Ctx* ctx, void* dest, const void* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
           std::size_t bsize, std::size_t nblocks, std::size_t elem_size, int pe, const char* func) noexcept {
  if (nblocks == 0 || bsize == 0) return;
  const detail::Target t =
      detail::target<true>(ctx, dest, detail::blocked_extent(bsize, nblocks, dst_stride, elem_size), pe, func, "dest");
  op_counters::write(ctx, t.local != nullptr || t.gpu != nullptr);
  if (t.local)
    blocked(t.local, static_cast<const char*>(src), dst_stride, src_stride, bsize, nblocks, elem_size);
  else if (t.gpu)
    gpu_transfer_2d(*ctx->rt, true, dest, t.gpu, dst_stride * pitch(elem_size), const_cast<void*>(src),
                    src_stride * pitch(elem_size), bsize * elem_size, nblocks, func);
  else
    remote_blocks(ctx, t, true, const_cast<char*>(static_cast<const char*>(src)), dst_stride, src_stride,
                  bsize * elem_size, nblocks, elem_size, func);
  op_counters::target(ctx, t.pe, func);
}

void ibget(Ctx* ctx, void* dest, const void* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
           std::size_t bsize, std::size_t nblocks, std::size_t elem_size, int pe, const char* func) noexcept {
  if (nblocks == 0 || bsize == 0) return;
  const detail::Target t =
      detail::target<true>(ctx, src, detail::blocked_extent(bsize, nblocks, src_stride, elem_size), pe, func, "source");
  op_counters::read(ctx, true);
  if (t.local) blocked(static_cast<char*>(dest), t.local, dst_stride, src_stride, bsize, nblocks, elem_size);
  else if (t.gpu)
    gpu_transfer_2d(*ctx->rt, false, src, t.gpu, src_stride * pitch(elem_size), dest, dst_stride * pitch(elem_size),
                    bsize * elem_size, nblocks, func);
  else remote_blocks(ctx, t, false, static_cast<char*>(dest), src_stride, dst_stride, bsize * elem_size, nblocks,
                     elem_size, func);
}

// One worker serves every context (see docs/design.md, "Contexts"), so a context's quiet
// completes the operations of all contexts: more than the spec asks, never less.
void quiet(Ctx* ctx) noexcept {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (transport::RemoteTransport* tr = ctx->rt->remote()) {
    op_counters::quiet(ctx);  // only remote operations complete later; counted done as the quiet starts
    tr->quiet();
  }
}

void fence(Ctx* ctx) noexcept {
  detail::store_fence();
  if (transport::RemoteTransport* tr = ctx->rt->remote()) tr->fence();
}

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
