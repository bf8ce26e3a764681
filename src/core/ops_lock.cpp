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

std::uint64_t* home_word(long* lock, const char* func) {
  Runtime& r = rt(func);
  static_assert(sizeof(long) == sizeof(std::uint64_t));
  return reinterpret_cast<std::uint64_t*>(detail::local_target(r, lock, kLockHome, func));
}

}  // namespace

void set_lock(long* lock) noexcept {
  std::uint64_t* w = home_word(lock, "shmem_set_lock");
  std::atomic_ref<std::uint64_t> word(*w);
  const std::uint32_t ticket = static_cast<std::uint32_t>(word.fetch_add(kTicket, std::memory_order_acq_rel) >> 32);
  auto serving = [&] { return static_cast<std::uint32_t>(word.load(std::memory_order_acquire)); };
  Runtime& r = rt("shmem_set_lock");
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
  quiet(rt("shmem_clear_lock").default_ctx());  // stores made under the lock are complete first
  // Increment only the serving half: a carry must never reach the ticket half.
  std::atomic_ref<std::uint64_t> word(*w);
  std::uint64_t old = word.load(std::memory_order_relaxed);
  std::uint64_t next;
  do {
    next = (old & ~0xffffffffull) | static_cast<std::uint32_t>(old + 1);
  } while (!word.compare_exchange_weak(old, next, std::memory_order_acq_rel, std::memory_order_relaxed));
}

int test_lock(long* lock) noexcept {
  std::uint64_t* w = home_word(lock, "shmem_test_lock");
  std::atomic_ref<std::uint64_t> word(*w);
  std::uint64_t old = word.load(std::memory_order_acquire);
  for (;;) {
    if (static_cast<std::uint32_t>(old >> 32) != static_cast<std::uint32_t>(old)) return 1;  // held
    const std::uint64_t next = ((old >> 32) + 1) << 32 | static_cast<std::uint32_t>(old);
    if (word.compare_exchange_weak(old, next, std::memory_order_acq_rel, std::memory_order_acquire)) return 0;
  }
}

}  // namespace shmem::core
