#include <atomic>
#include <cstring>

#include "core/access.hpp"
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

}  // namespace

void put_signal(Ctx* ctx, void* dest, const void* src, std::size_t bytes, std::uint64_t* sig_addr,
                std::uint64_t signal, int sig_op, int pe) noexcept {
  char* sig = detail::local_target(ctx, sig_addr, pe, "shmem_put_signal");
  if (bytes) std::memcpy(detail::local_target(ctx, dest, pe, "shmem_put_signal"), src, bytes);
  detail::store_fence();  // the data is visible before the signal
  signal_update(sig, signal, sig_op);
}

void put_signal_nbi(Ctx* ctx, void* dest, const void* src, std::size_t bytes, std::uint64_t* sig_addr,
                    std::uint64_t signal, int sig_op, int pe) noexcept {
  put_signal(ctx, dest, src, bytes, sig_addr, signal, sig_op, pe);
}

void signal_op(Ctx* ctx, std::uint64_t* sig_addr, std::uint64_t signal, int sig_op, int pe) noexcept {
  signal_update(detail::local_target(ctx, sig_addr, pe, "shmem_signal_op"), signal, sig_op);
}

std::uint64_t signal_fetch(const std::uint64_t* sig_addr) noexcept {
  return std::atomic_ref<std::uint64_t>(*const_cast<std::uint64_t*>(sig_addr)).load(std::memory_order_acquire);
}

}  // namespace shmem::core
