// Distributed locks: a ticket lock held in PE 0's copy of the symmetric `long`. The low 32
// bits count tickets served, the high 32 bits the next ticket, so acquisition is FIFO-fair
// and needs one atomic add; waiting reads the serving half.
//
// When PE 0 is on another host every access is a remote atomic served by PE 0 (its CPU, over
// UCX's TCP transport). A waiter there does not poll without pause: it reads the serving half
// back to back only while it is next in line, and otherwise after half the time the holders
// ahead of it should take (from the rate at which it has seen tickets served), so that a queue of
// waiters does not flood PE 0 while the holder works there. Release is one non-fetching add of
// the serving half (the holder knows it: its own ticket), unless that half is about to wrap.
#include <atomic>
#include <mutex>
#include <string>
#include <utility>

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
  const detail::Target t = detail::target(r, lock, sizeof(long), kLockHome, func, "lock");
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

// A remote waiter's view of the serving half: fetched from PE 0 when the waiter is next in
// line, else after half the time the holders ahead of it should take at the rate seen so far
// (at least one round trip, at most kMaxGapS apart).
class RemoteServing {
 public:
  RemoteServing(const RemoteWord& w, std::uint32_t ticket) : word_(w), ticket_(ticket) {}
  std::uint32_t operator()() {
    const double now = wait_clock();
    if (fetched_ && now < next_) return last_;
    last_ = static_cast<std::uint32_t>(word_.op(AmoOp::kFetch));
    const double t = wait_clock();
    const std::uint32_t ahead = ticket_ - last_;  // holders before us (0: ours)
    if (!fetched_) {
      fetched_ = true;
      first_ = last_;
      first_t_ = t;
    }
    double gap = 0;  // next in line: back to back
    if (ahead > 1) {
      const double per_grant = last_ != first_ ? (t - first_t_) / static_cast<double>(last_ - first_) : t - now;
      gap = static_cast<double>(ahead - 1) * per_grant / 2;  // halve the distance: early rather than late
      if (gap < t - now) gap = t - now;
      if (gap > kMaxGapS) gap = kMaxGapS;
    }
    next_ = t + gap;
    return last_;
  }

 private:
  static constexpr double kMaxGapS = 0.005;
  RemoteWord word_;
  std::uint32_t ticket_;
  bool fetched_ = false;
  std::uint32_t last_ = 0, first_ = 0;  // the serving half: last fetched, first fetched (at first_t_)
  double first_t_ = 0, next_ = 0;
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
  if (!w) r.lock_tickets().hold(lock, ticket);
  RemoteServing remote_serving(remote, ticket);
  auto serving = [&] {
    return w ? static_cast<std::uint32_t>(word.load(std::memory_order_acquire)) : remote_serving();
  };
  wait_for(
      r.wait_policy(), [&] { return serving() == ticket; },
      [&](double waited) {
        log::write(log::Level::kFatal, "wait",
                   "shmem_set_lock timed out after %.1f s (SHMEM_WAIT_TIMEOUT=%g): PE %d waited on lock %s for ticket "
                   "%u; now serving %u",
                   waited, r.wait_policy().timeout_s, r.my_pe(), r.describe(lock).c_str(), ticket, serving());
        r.abort_job(1);
      },
      [&] {  // for the deadlock check (core/deadlock.hpp)
        std::string s = "shmem_set_lock on " + r.describe(lock, false) + " with ticket " + std::to_string(ticket);
        if (w) s += ", now serving " + std::to_string(serving());  // not for a remote lock: no AMO here
        return s;
      });
}

void clear_lock(long* lock) noexcept {
  std::uint64_t* w = home_word(lock, "shmem_clear_lock");
  Runtime& r = rt("shmem_clear_lock");
  quiet(r.default_ctx());  // stores made under the lock are complete first
  // Increment only the serving half: a carry must never reach the ticket half.
  if (!w) {
    const RemoteWord remote{r.default_ctx(), lock, "shmem_clear_lock"};
    // The serving half is our ticket and only we may move it: below the wrap, adding one
    // cannot carry.
    std::uint32_t ticket = 0;
    if (r.lock_tickets().release(lock, &ticket) && ticket != 0xffffffffu) {
      remote.op(AmoOp::kAdd, 1);
      return;
    }
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
      if (seen == old) {
        rt("shmem_test_lock").lock_tickets().hold(lock, static_cast<std::uint32_t>(old >> 32));
        return 0;
      }
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
