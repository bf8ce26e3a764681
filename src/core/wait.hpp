#pragma once
// Waiting that adapts to whether the PE it waits for can run.
//
// A wait spins with a pause instruction for an adaptive budget, then yields its CPU in a loop,
// and only once it has waited a long time does it sleep, in steps bounded by a small fraction
// of the time already waited (so no timed sleep ever sets the latency of a hand-off).
//
// The spin budget is the library's estimate of how long a peer takes to answer while it runs:
//   - a wait that runs out of spins saw no progress: the peer is probably not running (it may
//     be queued behind this very PE on its CPU), so the budget drops to an eighth at once and
//     the PE hands its CPU over after a few hundred nanoseconds from then on;
//   - a wait that completes in the upper half of its budget doubles it (up to the cap), so a
//     PE whose peers do run on CPUs of their own goes back to pure spinning.
// A yield is cheap when the CPU goes to the peer (it answers and yields back within
// microseconds) and costs a whole time slice when it goes to an unrelated busy process. So the
// yield phase keeps one more estimate, the yield spin: how long to go on spinning before a
// yield, learnt like renting versus buying skis. A yield that took a slice-scale time (over
// kLongYieldNs) raises it towards 3/4 of what that yield cost; a yield spin that runs out
// without progress (the peer is probably queued behind this PE) cuts it to a quarter. It is
// used only when every PE has a CPU of its own (by mask and quota): next to busy processes it
// keeps a PE on its CPU while its peer, running elsewhere, comes back; where PEs outnumber
// CPUs it is zero and every yield hands over at once.
// The budget starts at the cap when every PE has a CPU of its own (cpus.hpp decides that from
// the affinity mask and the cgroup CPU quota), and at the floor when PEs outnumber CPUs.
// SHMEM_WAIT_SPIN fixes the budget (no adaptation). A watchdog (SHMEM_WAIT_TIMEOUT) turns a wait
// that never completes into a report and a job abort instead of a silent hang.
//
// Every iteration of every phase calls WaitPolicy::progress() first: the hook through which a
// network transport gets driven while its PE waits (null, and free, when there is none).
#include <sched.h>
#include <time.h>

#include <atomic>
#include <cstdint>

#include "core/cpus.hpp"
#include "shmem/device/cpu.hpp"

namespace shmem {

using device::detail::cpu_relax;

struct WaitPolicy {
  static constexpr unsigned kCap = 4096;             // budget cap when every PE has a CPU
  static constexpr unsigned kCapOversubscribed = 64;  // ... and when PEs outnumber CPUs
  static constexpr long kFloorNs = 300;              // the budget never goes below ~this long
  static constexpr double kYieldOnlyS = 0.010;       // yield (never sleep) for this long
  static constexpr long kMaxSleepNs = 1000000;       // longest sleep step, 1 ms
  static constexpr long kSleepFraction = 128;        // a sleep step is <= waited / this
  static constexpr long kLongYieldNs = 50000;        // a yield this long lost a time slice
  static constexpr long kMaxYieldSpinNs = 2000000;   // the yield spin's cap, 2 ms

  unsigned spin_iterations = kCap;  // the most pause iterations a wait spins before yielding
  unsigned spin_floor = 8;          // the least (from a calibration of the pause instruction)
  bool adaptive = true;             // false: SHMEM_WAIT_SPIN fixed the budget
  bool oversubscribed = false;      // more PEs on this node than CPUs they may use
  double timeout_s = 0;             // 0 = wait forever
  void (*poll)(void*) = nullptr;    // driven on every wait iteration when set
  void* poll_arg = nullptr;
  mutable std::atomic<unsigned> spin_budget{kCap};  // the adaptive estimate (relaxed; a hint)
  mutable std::atomic<long> yield_spin_ns{0};       // spin this long before each yield (adaptive)

  // Sets the budget from SHMEM_WAIT_SPIN (-1: automatic) once oversubscribed is known.
  void configure_spin(std::int64_t wait_spin) noexcept;
  void progress() const noexcept {
    if (poll) poll(poll_arg);
  }
  unsigned budget() const noexcept { return adaptive ? spin_budget.load(std::memory_order_relaxed) : spin_iterations; }
  // The outcome of one spin phase of `budget` iterations: completed after `used` of them, or
  // ran out (used == budget and !completed).
  void learn(unsigned budget, unsigned used, bool completed) const noexcept {
    if (!adaptive) return;
    unsigned next = budget;
    if (!completed) {
      next = budget / 8;
    } else if (used > budget / 2) {
      next = budget * 2;
    }
    if (next < spin_floor) next = spin_floor;
    if (next > spin_iterations) next = spin_iterations;
    if (next != budget) spin_budget.store(next, std::memory_order_relaxed);
  }
  // Only where every PE has a CPU of its own: there a slice-long yield means an outside process
  // took this PE's CPU while its peers run elsewhere. Where PEs outnumber CPUs, a peer is
  // likely queued right behind this PE, and a yield is always the right move.
  bool yield_spins() const noexcept { return adaptive && !oversubscribed; }
  long yield_spin() const noexcept { return yield_spins() ? yield_spin_ns.load(std::memory_order_relaxed) : 0; }
  // A yield that took `ns`: one that took a slice-scale time, longer than twice the current
  // yield spin, raises the spin to 3/4 of it (at least double, at most the cap).
  void learn_yield(long ns) const noexcept {
    if (!yield_spins() || ns <= kLongYieldNs) return;
    const long spin = yield_spin_ns.load(std::memory_order_relaxed);
    if (ns <= 2 * spin) return;
    long next = ns / 4 * 3;
    if (next < 2 * spin) next = 2 * spin;
    if (next > kMaxYieldSpinNs) next = kMaxYieldSpinNs;
    yield_spin_ns.store(next, std::memory_order_relaxed);
  }
  // A yield spin of `spin` ran out without progress: cut to a quarter (below 1 us: dropped).
  void learn_yield_spin_ran_out(long spin) const noexcept {
    if (yield_spins() && spin > 0) yield_spin_ns.store(spin / 4 < 1000 ? 0 : spin / 4, std::memory_order_relaxed);
  }
};

inline double wait_clock() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The spin phase: true when done() came true within the budget.
template <class Done>
inline bool spin_for(const WaitPolicy& pol, Done&& done) {
  const unsigned budget = pol.budget();
  for (unsigned i = 0; i < budget; ++i) {
    cpu_relax();
    pol.progress();
    if (done()) {
      pol.learn(budget, i + 1, true);
      return true;
    }
  }
  pol.learn(budget, budget, false);
  return false;
}

// The sleep step after `waited` seconds of waiting: 0 while the wait is still young (yield
// only), then at most 1/kSleepFraction of the time waited and at most kMaxSleepNs.
inline long sleep_step_ns(double waited) noexcept {
  if (waited < WaitPolicy::kYieldOnlyS) return 0;
  const double ns = waited * 1e9 / static_cast<double>(WaitPolicy::kSleepFraction);
  return ns > static_cast<double>(WaitPolicy::kMaxSleepNs) ? WaitPolicy::kMaxSleepNs : static_cast<long>(ns);
}

// The yield phase: hands the CPU over until done(); sleeps (sleep(ns), which may return early
// when woken) only once the wait is old. report(elapsed_seconds) is called if the watchdog
// fires and must not return (it ends the job).
template <class Done, class Report, class Sleep>
inline void yield_until(const WaitPolicy& pol, Done&& done, Report&& report, Sleep&& sleep) {
  const double start = wait_clock();
  const long spin_ns = pol.yield_spin();
  const double spin_until = start + static_cast<double>(spin_ns) * 1e-9;
  bool spun_out = spin_ns == 0;
  for (;;) {
    pol.progress();
    if (done()) return;
    const double now = wait_clock();
    const double waited = now - start;
    if (pol.timeout_s > 0 && waited > pol.timeout_s) report(waited);
    if (const long ns = sleep_step_ns(waited)) {
      sleep(ns);
    } else if (now < spin_until) {
      cpu_relax();  // a yield would likely cost more than waiting here (see the header)
    } else {
      if (!spun_out) {
        spun_out = true;
        pol.learn_yield_spin_ran_out(spin_ns);
      }
      sched_yield();
      pol.learn_yield(static_cast<long>((wait_clock() - now) * 1e9));
    }
  }
}

inline void sleep_ns(long ns) noexcept {
  timespec ts{0, ns};
  nanosleep(&ts, nullptr);
}

// Calls done() until it returns true: spin, then yield, then (late) sleep.
template <class Done, class Report>
inline void wait_for(const WaitPolicy& pol, Done&& done, Report&& report) {
  if (done()) return;
  if (spin_for(pol, done)) return;
  yield_until(pol, done, report, sleep_ns);
}

}  // namespace shmem
