#include <atomic>
#include <cstring>

#include "core/access.hpp"
#include "core/gpu_heap.hpp"
#include "core/op_counters.hpp"
#include "core/ops.hpp"

namespace shmem::core {
namespace {

void signal_update(char* sig, std::uint64_t signal, int sig_op) noexcept {
  std::atomic_ref<std::uint64_t> s(*reinterpret_cast<std::uint64_t*>(sig));
  if (sig_op == 1)
    s.fetch_add(signal, std::memory_order_seq_cst);
  else
    s.store(signal, std::memory_order_seq_cst);
}

// A remote signal: the payload (already issued) is ordered before it by a fence.
void remote_signal(Ctx* ctx, const detail::Target& sig, std::uint64_t signal, int sig_op,
                   const char* func) noexcept {
  ctx->rt->remote()->amo(sig.pe, sig.seg, sig.off, sig_op == 1 ? AmoOp::kAdd : AmoOp::kSet, 8, signal, 0, nullptr, func);
}

void remote_put_signal(Ctx* ctx, const detail::Target& sig, void* dest, const void* src, std::size_t bytes,
                       std::uint64_t signal, int sig_op, int pe, bool nbi, const char* func) noexcept {
  transport::RemoteTransport* tr = ctx->rt->remote();
  if (bytes) {
    const detail::Target d = detail::target(ctx, dest, bytes, pe, func, "dest");
    tr->put(d.pe, d.seg, d.off, src, bytes, nbi, func);
    tr->fence();
  }
  remote_signal(ctx, sig, signal, sig_op, func);
}

// The payload of a put-with-signal to a node-local PE: a copy into its CPU memory, or through
// the CUDA driver into its GPU heap (complete on return).
void local_payload(Ctx* ctx, void* dest, const void* src, std::size_t bytes, int pe, const char* func) noexcept {
  if (!bytes) return;
  const detail::Target d = detail::target<true>(ctx, dest, bytes, pe, func, "dest");
  if (d.gpu)
    gpu_transfer(*ctx->rt, true, dest, d.gpu, const_cast<void*>(src), bytes, func);
  else  // pe is node-local (the signal word's target said so): d is local or GPU memory
    std::memcpy(d.local, src, bytes);
}

// The signal word is in a node-local PE's GPU heap: the payload first, then the signal as an
// atomic of the CUDA plugin, whose kernel fences before it.
void gpu_put_signal(Ctx* ctx, const detail::Target& sig, std::uint64_t* sig_addr, void* dest, const void* src,
                    std::size_t bytes, std::uint64_t signal, int sig_op, int pe, const char* func) noexcept {
  local_payload(ctx, dest, src, bytes, pe, func);
  gpu_amo(*ctx->rt, sig_op == 1 ? AmoOp::kAdd : AmoOp::kSet, sig_addr, sig.pe, sizeof(std::uint64_t), signal, 0, func);
}

}  // namespace

void put_signal(Ctx* ctx, void* dest, const void* src, std::size_t bytes, std::uint64_t* sig_addr,
                std::uint64_t signal, int sig_op, int pe, const char* func) noexcept {
  const detail::Target sig = detail::target<true>(ctx, sig_addr, sizeof(std::uint64_t), pe, func, "sig_addr");
  op_counters::write(ctx, sig.local != nullptr || sig.gpu != nullptr);
  if (sig.gpu) {
    gpu_put_signal(ctx, sig, sig_addr, dest, src, bytes, signal, sig_op, pe, func);
    return op_counters::target(ctx, sig.pe, func);
  }
  if (!sig.local) {
    remote_put_signal(ctx, sig, dest, src, bytes, signal, sig_op, pe, false, func);
    return op_counters::target(ctx, sig.pe, func);
  }
  local_payload(ctx, dest, src, bytes, pe, func);
  detail::store_fence();  // the data is visible before the signal
  signal_update(sig.local, signal, sig_op);
  op_counters::target(ctx, sig.pe, func);
}

void put_signal_nbi(Ctx* ctx, void* dest, const void* src, std::size_t bytes, std::uint64_t* sig_addr,
                    std::uint64_t signal, int sig_op, int pe, const char* func) noexcept {
  const detail::Target sig = detail::target<true>(ctx, sig_addr, sizeof(std::uint64_t), pe, func, "sig_addr");
  if (!sig.local && !sig.gpu) {
    op_counters::write(ctx, false);
    remote_put_signal(ctx, sig, dest, src, bytes, signal, sig_op, pe, true, func);
    return op_counters::target(ctx, sig.pe, func);
  }
  put_signal(ctx, dest, src, bytes, sig_addr, signal, sig_op, pe, func);
}

void signal_op(Ctx* ctx, std::uint64_t* sig_addr, std::uint64_t signal, int sig_op, int pe, const char* func) noexcept {
  const detail::Target sig = detail::target<true>(ctx, sig_addr, sizeof(std::uint64_t), pe, func, "sig_addr");
  op_counters::write(ctx, sig.local != nullptr || sig.gpu != nullptr);  // an AMO on the signal word
  if (sig.gpu)
    gpu_amo(*ctx->rt, sig_op == 1 ? AmoOp::kAdd : AmoOp::kSet, sig_addr, sig.pe, sizeof(std::uint64_t), signal, 0,
            func);
  else if (!sig.local)
    remote_signal(ctx, sig, signal, sig_op, func);
  else
    signal_update(sig.local, signal, sig_op);
  op_counters::target(ctx, sig.pe, func);
}

std::uint64_t signal_fetch(const std::uint64_t* sig_addr) noexcept {
  if (Runtime* r = current_runtime()) {
    r->wait_policy().progress();  // see ops_wait.cpp: polling loops
    if (r->gpu() && r->gpu()->contains(sig_addr)) {
      std::uint64_t v = 0;
      gpu_read(*r, sig_addr, &v, sizeof v, "shmem_signal_fetch");
      return v;
    }
  }
  return std::atomic_ref<std::uint64_t>(*const_cast<std::uint64_t*>(sig_addr)).load(std::memory_order_acquire);
}

}  // namespace shmem::core
