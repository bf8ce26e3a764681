#include <atomic>
#include <cstring>

#include "core/access.hpp"
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

}  // namespace

void put_signal(Ctx* ctx, void* dest, const void* src, std::size_t bytes, std::uint64_t* sig_addr,
                std::uint64_t signal, int sig_op, int pe, const char* func) noexcept {
  const detail::Target sig = detail::target(ctx, sig_addr, sizeof(std::uint64_t), pe, func, "sig_addr");
  op_counters::write(ctx, sig.local != nullptr);
  if (!sig.local) {
    remote_put_signal(ctx, sig, dest, src, bytes, signal, sig_op, pe, false, func);
    return op_counters::target(ctx, sig.pe, func);
  }
  if (bytes) std::memcpy(detail::local_target(ctx, dest, bytes, pe, func, "dest"), src, bytes);
  detail::store_fence();  // the data is visible before the signal
  signal_update(sig.local, signal, sig_op);
  op_counters::target(ctx, sig.pe, func);
}

void put_signal_nbi(Ctx* ctx, void* dest, const void* src, std::size_t bytes, std::uint64_t* sig_addr,
                    std::uint64_t signal, int sig_op, int pe, const char* func) noexcept {
  const detail::Target sig = detail::target(ctx, sig_addr, sizeof(std::uint64_t), pe, func, "sig_addr");
  if (!sig.local) {
    op_counters::write(ctx, false);
    remote_put_signal(ctx, sig, dest, src, bytes, signal, sig_op, pe, true, func);
    return op_counters::target(ctx, sig.pe, func);
  }
  put_signal(ctx, dest, src, bytes, sig_addr, signal, sig_op, pe, func);
}

void signal_op(Ctx* ctx, std::uint64_t* sig_addr, std::uint64_t signal, int sig_op, int pe, const char* func) noexcept {
  const detail::Target sig = detail::target(ctx, sig_addr, sizeof(std::uint64_t), pe, func, "sig_addr");
  op_counters::write(ctx, sig.local != nullptr);  // an AMO on the signal word
  if (!sig.local)
    remote_signal(ctx, sig, signal, sig_op, func);
  else
    signal_update(sig.local, signal, sig_op);
  op_counters::target(ctx, sig.pe, func);
}

std::uint64_t signal_fetch(const std::uint64_t* sig_addr) noexcept {
  if (Runtime* r = current_runtime()) r->wait_policy().progress();  // see ops_wait.cpp: polling loops
  return std::atomic_ref<std::uint64_t>(*const_cast<std::uint64_t*>(sig_addr)).load(std::memory_order_acquire);
}

}  // namespace shmem::core
