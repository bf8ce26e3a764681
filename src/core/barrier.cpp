// Node barrier: a counter and a generation word in PE 0's runtime-internal area. Arrivals
// fetch-add the counter; the last one resets it and bumps the generation. Waiters spin
// briefly, then sleep on the generation word with a futex (shared mapping: the kernel keys it
// by the memfd page, so processes mapping it at different addresses meet), and the releaser
// wakes them only when someone sleeps.
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <ctime>

#include "core/log.hpp"
#include "core/runtime.hpp"

namespace shmem {
namespace {

long futex(std::uint32_t* addr, int op, std::uint32_t val, const timespec* ts) {
  return syscall(SYS_futex, addr, op, val, ts, nullptr, 0);
}

}  // namespace

void Runtime::barrier() noexcept {
  if (npes_ == 1) return;
  InternalArea& cell = internal(0);
  std::atomic_ref<std::uint32_t> count(cell.barrier_count);
  std::atomic_ref<std::uint32_t> gen(cell.barrier_gen);
  std::atomic_ref<std::uint32_t> sleepers(cell.barrier_sleepers);
  const std::uint32_t my_gen = gen.load(std::memory_order_acquire);
  if (count.fetch_add(1, std::memory_order_acq_rel) + 1 == static_cast<std::uint32_t>(npes_)) {
    count.store(0, std::memory_order_relaxed);
    gen.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers.load(std::memory_order_seq_cst) != 0) futex(&cell.barrier_gen, FUTEX_WAKE, INT_MAX, nullptr);
    return;
  }
  auto done = [&] { return gen.load(std::memory_order_acquire) != my_gen; };
  for (unsigned i = 0; i < wait_.spin_iterations; ++i) {
    if (done()) return;
    cpu_relax();
  }
  const auto start = std::chrono::steady_clock::now();
  while (!done()) {
    sleepers.fetch_add(1, std::memory_order_seq_cst);
    timespec ts{0, 200 * 1000 * 1000};  // wake up now and then for the watchdog
    if (gen.load(std::memory_order_seq_cst) == my_gen) futex(&cell.barrier_gen, FUTEX_WAIT, my_gen, &ts);
    sleepers.fetch_sub(1, std::memory_order_seq_cst);
    if (wait_.timeout_s > 0 && !done()) {
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (waited > wait_.timeout_s) {
        log::write(log::Level::kFatal, "wait",
                   "barrier timed out after %.1f s (SHMEM_WAIT_TIMEOUT=%g): PE %d waited on the barrier word "
                   "at PE 0 %s for generation != %u; last seen generation %u with %u of %d PEs arrived",
                   waited, wait_.timeout_s, me_, describe(&internal(me_).barrier_gen).c_str(), my_gen,
                   gen.load(), count.load(), npes_);
        abort_job(1);
      }
    }
  }
}

}  // namespace shmem
