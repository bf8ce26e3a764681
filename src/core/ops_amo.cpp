// Node-local atomics: lock-free hardware atomics on the peer's mapped word (amo_apply in
// transport/amo_op.hpp, std::atomic_ref); on GPU memory a kernel of the CUDA plugin (gpu_amo).
#include <atomic>
#include <cstring>

#include "core/access.hpp"
#include "core/op_counters.hpp"
#include "core/ops.hpp"

namespace shmem::core {
namespace {

template <class U>
[[noreturn, gnu::noinline, gnu::cold]] void misaligned(Ctx* ctx, void* dest, const char* func) noexcept {
  fatal(func, "dest=%s is not aligned to %zu bytes (atomics need naturally aligned words)",
        ctx->rt->describe(dest).c_str(), sizeof(U));
}

// Another host's PE, GPU memory (or a bad address, which target() reports): out of line, so that the
// node-local path stays as small as it was before there was a remote one. With UCX over TCP
// the target's CPU performs the operation, with the same CPU atomics, so it is atomic with
// respect to the target's node-local peers too (see docs/design.md for RDMA NICs). The
// transport returns the old value; with `fetch_to` (the fetching _nbi forms) it returns at once
// instead and stores the old value there by the next quiet (a node-local word: at once).
template <class U>
[[gnu::noinline]] U amo_far(Ctx* ctx, AmoOp op, void* dest, U value, U cond, int pe, const char* func,
                            void* fetch_to = nullptr) noexcept {
  const detail::Target t = detail::target<true>(ctx, dest, sizeof(U), pe, func, "dest");
  if (reinterpret_cast<std::uintptr_t>(dest) % sizeof(U) != 0) misaligned<U>(ctx, dest, func);
  if (t.gpu) {  // a node-local PE's GPU heap: a kernel of the CUDA plugin, complete on return
    const auto old = static_cast<U>(gpu_amo(*ctx->rt, op, dest, t.pe, sizeof(U), value, cond, func));
    if (fetch_to) std::memcpy(fetch_to, &old, sizeof old);
    op_counters::amo(ctx, op, true);
    if (op != AmoOp::kFetch) op_counters::target(ctx, t.pe, func);
    return old;
  }
  if (t.local) {
    const U old = amo_apply<U>(op, reinterpret_cast<U*>(t.local), value, cond);
    if (fetch_to) std::memcpy(fetch_to, &old, sizeof old);  // the caller's object may be a float
    op_counters::amo(ctx, op, true);
    if (op != AmoOp::kFetch) op_counters::target(ctx, t.pe, func);
    return old;
  }
  // Complete on return: a blocking fetch. At the next quiet: the others.
  op_counters::amo(ctx, op, amo_fetches(op) && fetch_to == nullptr);
  const auto old =
      static_cast<U>(ctx->rt->remote()->amo(t.pe, t.seg, t.off, op, sizeof(U), value, cond, fetch_to, func));
  if (op != AmoOp::kFetch) op_counters::target(ctx, t.pe, func);
  return old;
}

// Node-local (a world-context PE whose segment is mapped): a CPU atomic on the mapped word;
// anything else goes to amo_far. Inlined into every entry point below; in the AmoOp instances
// `op` is a constant and amo_on's switch folds to the one atomic.
template <class U>
[[gnu::always_inline]] inline U amo(Ctx* ctx, AmoOp op, void* dest, U value, U cond, int pe,
                                    const char* func) noexcept {
  if (__builtin_expect(ctx->world == nullptr && static_cast<unsigned>(pe) < static_cast<unsigned>(ctx->rt->n_pes()), 1)) {
    if (char* p = ctx->rt->translate(dest, pe); __builtin_expect(p != nullptr, 1)) {
      if (__builtin_expect(reinterpret_cast<std::uintptr_t>(dest) % sizeof(U) != 0, 0)) misaligned<U>(ctx, dest, func);
      const U old = amo_apply<U>(op, reinterpret_cast<U*>(p), value, cond);
      op_counters::amo(ctx, op, true);
      if (op != AmoOp::kFetch) op_counters::target(ctx, pe, func);
      return old;
    }
  }
  return amo_far<U>(ctx, op, dest, value, cond, pe, func);
}

}  // namespace

std::uint32_t amo32(Ctx* ctx, AmoOp op, void* dest, std::uint32_t value, std::uint32_t cond, int pe,
                    const char* func) noexcept {
  return amo<std::uint32_t>(ctx, op, dest, value, cond, pe, func);
}

std::uint64_t amo64(Ctx* ctx, AmoOp op, void* dest, std::uint64_t value, std::uint64_t cond, int pe,
                    const char* func) noexcept {
  return amo<std::uint64_t>(ctx, op, dest, value, cond, pe, func);
}

template <AmoOp Op>
std::uint32_t amo32(Ctx* ctx, void* dest, std::uint32_t value, std::uint32_t cond, int pe, const char* func) noexcept {
  return amo<std::uint32_t>(ctx, Op, dest, value, cond, pe, func);
}

template <AmoOp Op>
std::uint64_t amo64(Ctx* ctx, void* dest, std::uint64_t value, std::uint64_t cond, int pe, const char* func) noexcept {
  return amo<std::uint64_t>(ctx, Op, dest, value, cond, pe, func);
}

// The instances the public routines link to: every operation at both widths.
#define SHMEM_AMO_INSTANCES_(OP)                                                                                 \
  template std::uint32_t amo32<AmoOp::OP>(Ctx*, void*, std::uint32_t, std::uint32_t, int, const char*) noexcept; \
  template std::uint64_t amo64<AmoOp::OP>(Ctx*, void*, std::uint64_t, std::uint64_t, int, const char*) noexcept;
SHMEM_AMO_INSTANCES_(kFetch)
SHMEM_AMO_INSTANCES_(kSet)
SHMEM_AMO_INSTANCES_(kSwap)
SHMEM_AMO_INSTANCES_(kCompareSwap)
SHMEM_AMO_INSTANCES_(kFetchInc)
SHMEM_AMO_INSTANCES_(kInc)
SHMEM_AMO_INSTANCES_(kFetchAdd)
SHMEM_AMO_INSTANCES_(kAdd)
SHMEM_AMO_INSTANCES_(kFetchAnd)
SHMEM_AMO_INSTANCES_(kAnd)
SHMEM_AMO_INSTANCES_(kFetchOr)
SHMEM_AMO_INSTANCES_(kOr)
SHMEM_AMO_INSTANCES_(kFetchXor)
SHMEM_AMO_INSTANCES_(kXor)
#undef SHMEM_AMO_INSTANCES_

// The nonblocking fetching forms (amo_far with the result's address).
void amo32_nbi(Ctx* ctx, AmoOp op, std::uint32_t* fetch, void* dest, std::uint32_t value, std::uint32_t cond,
               int pe, const char* func) noexcept {
  amo_far<std::uint32_t>(ctx, op, dest, value, cond, pe, func, fetch);
}

void amo64_nbi(Ctx* ctx, AmoOp op, std::uint64_t* fetch, void* dest, std::uint64_t value, std::uint64_t cond,
               int pe, const char* func) noexcept {
  amo_far<std::uint64_t>(ctx, op, dest, value, cond, pe, func, fetch);
}

}  // namespace shmem::core
