// Distributed locks: a ticket lock held in PE 0's copy of the symmetric `long`. The low 32
// bits count tickets served, the high 32 bits the next ticket, so acquisition is FIFO-fair
// and needs one atomic add; waiting reads the serving half.
#include <atomic>

#include "core/access.hpp"
#include "base/log.hpp"
#include "core/ops.hpp"

namespace shmem::core {
namespace {

constexpr int kLockHome = 0;
constexpr std::uint64_t kTicket = 1ull << 32;

// The lock word as mapped here, or nullptr when PE 0 is on another host: then every access is
// a remote atomic (remote_word below), and waiting polls the serving half over the network.
std::uint64_t* home_word(long* lock, const char* func) {
  Runtime& r = rt(func);
  static_assert(sizeof(long) == sizeof(std::uint64_t));
  const detail::Target t = detail::target(r, lock, kLockHome, func, "lock");
  return reinterpret_cast<std::uint64_t*>(t.local);
}

struct RemoteWord {
  Ctx* ctx;
  long* lock;
  const char* func;
  std::uint64_t op(AmoOp o, std::uint64_t v = 0, std::uint64_t cond = 0) const noexcept {
    return amo64(ctx, o, lock, v, cond, kLockHome, func);
  }
};

}  // namespace

void set_lock(long* lock) noexcept {
  std::uint64_t* w = home_word(lock, "shmem_set_lock");
  Runtime& r = rt("shmem_set_lock");
  const RemoteWord remote{r.default_ctx(), lock, "shmem_set_lock"};
  std::uint64_t local_copy = 0;
  std::atomic_ref<std::uint64_t> word(w ? *w : local_copy);
  const std::uint64_t before = w ? word.fetch_add(kTicket, std::memory_order_acq_rel) : remote.op(AmoOp::kFetchAdd, kTicket);
  const std::uint32_t ticket = static_cast<std::uint32_t>(before >> 32);
  auto serving = [&] {
    return static_cast<std::uint32_t>(w ? word.load(std::memory_order_acquire) : remote.op(AmoOp::kFetch));
  };
  wait_for(r.wait_policy(), [&] { return serving() == ticket; }, [&](double waited) {
    log::write(log::Level::kFatal, "wait",
               "shmem_set_lock timed out after %.1f s (SHMEM_WAIT_TIMEOUT=%g): PE %d waited on lock %s for ticket "
               "%u; now serving %u",
               waited, r.wait_policy().timeout_s, r.my_pe(), r.describe(lock).c_str(), ticket, serving());
    r.abort_job(1);
  });
}

void clear_lock(long* lock) noexcept {
  std::uint64_t* w = home_word(lock, "shmem_clear_lock");
  Runtime& r = rt("shmem_clear_lock");
  quiet(r.default_ctx());  // stores made under the lock are complete first
  // Increment only the serving half: a carry must never reach the ticket half.
  if (!w) {
    const RemoteWord remote{r.default_ctx(), lock, "shmem_clear_lock"};
    std::uint64_t old = remote.op(AmoOp::kFetch);
    for (;;) {
      const std::uint64_t next = (old & ~0xffffffffull) | static_cast<std::uint32_t>(old + 1);
      const std::uint64_t seen = remote.op(AmoOp::kCompareSwap, next, old);
      if (seen == old) return;
      old = seen;
    }
  }
  std::atomic_ref<std::uint64_t> word(*w);
  std::uint64_t old = word.load(std::memory_order_relaxed);
  std::uint64_t next;
  do {
    next = (old & ~0xffffffffull) | static_cast<std::uint32_t>(old + 1);
  } while (!word.compare_exchange_weak(old, next, std::memory_order_acq_rel, std::memory_order_relaxed));
}

int test_lock(long* lock) noexcept {
  std::uint64_t* w = home_word(lock, "shmem_test_lock");
  rt("shmem_test_lock").wait_policy().progress();  // callers poll it in loops (see ops_wait.cpp)
  if (!w) {
    const RemoteWord remote{rt("shmem_test_lock").default_ctx(), lock, "shmem_test_lock"};
    std::uint64_t old = remote.op(AmoOp::kFetch);
    for (;;) {
      if (static_cast<std::uint32_t>(old >> 32) != static_cast<std::uint32_t>(old)) return 1;  // held
      const std::uint64_t next = ((old >> 32) + 1) << 32 | static_cast<std::uint32_t>(old);
      const std::uint64_t seen = remote.op(AmoOp::kCompareSwap, next, old);
      if (seen == old) return 0;
      old = seen;
    }
  }
  std::atomic_ref<std::uint64_t> word(*w);
  std::uint64_t old = word.load(std::memory_order_acquire);
  for (;;) {
    if (static_cast<std::uint32_t>(old >> 32) != static_cast<std::uint32_t>(old)) return 1;  // held
    const std::uint64_t next = ((old >> 32) + 1) << 32 | static_cast<std::uint32_t>(old);
    if (word.compare_exchange_weak(old, next, std::memory_order_acq_rel, std::memory_order_acquire)) return 0;
  }
}

}  // namespace shmem::core
