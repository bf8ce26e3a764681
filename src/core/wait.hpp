#pragma once
// Waiting that adapts to whether the PE it waits for can run: spin for an adaptive budget, then
// hand the CPU over or spin on as the wait board (wait_board.hpp) says, nap while this PE counts
// as contended, sleep only when old, and end the job past SHMEM_WAIT_TIMEOUT. The rules and the
// reason for each are in docs/design.md#waiting (written there once); the constants below carry
// their names.
//
// Every iteration of every phase calls WaitPolicy::progress() first: the hook through which a
// network transport gets driven while its PE waits (null, and free, when there is none).
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "core/cpus.hpp"
#include "core/wait_board.hpp"
#include "shmem/device/cpu.hpp"
#include "util/yield_cost.hpp"

namespace shmem {

using device::detail::cpu_relax;

// What a wait waits for, in words ("shmem_int_wait_until on ... for == 1, seeing 0"), for the
// deadlock check (core/deadlock.hpp): the point-to-point waits and the locks say it; waits
// inside collective calls are told by the collective check's line; any other wait says nothing
// and never counts as waiting there (it may wait for something other than a PE). The text is
// made only by a wait that has lasted SHMEM_COLL_CHECK_AFTER.
struct WaitWhat {
  void (*text)(const void* self, std::string& out);
  const void* self;
  template <class F>
  static WaitWhat of(const F& f) noexcept {
    return {[](const void* s, std::string& out) { out = (*static_cast<const F*>(s))(); }, &f};
  }
  std::string operator()() const {
    std::string s;
    text(self, s);
    return s;
  }
};

struct WaitPolicy {
  static constexpr unsigned kCap = 4096;             // budget cap when every PE has a CPU
  static constexpr unsigned kCapOversubscribed = 64;  // ... and when PEs outnumber CPUs
  static constexpr long kFloorNs = 300;              // the budget never goes below ~this long
  static constexpr double kYieldOnlyS = 0.010;       // yield (never sleep) for this long
  static constexpr long kMaxSleepNs = 1000000;       // longest sleep step, 1 ms
  static constexpr long kSleepFraction = 128;        // a sleep step is <= waited / this
  static constexpr long kRecheckNs = 10000;          // ask the wait board again after this long
  static constexpr unsigned kClockEvery = 16;        // spinning after the budget: read the clock this often
  static constexpr long kMoveAfterNs = 1000000;      // sharing a CPU with a PE this long: move
  static constexpr long kMoveEveryNs = 10000000;     // at most one move per 10 ms
  static constexpr long kLostCpuNs = 500000;         // a gap this long between clock reads: the CPU was taken
  static constexpr long kContendedForNs = 100000000;  // ... and then for this long the PE is contended
  static constexpr long kContendedSpinNs = 50000;    // contended, a wait spins on this long, then naps
  static constexpr long kNapNs = 20000;              // one nap (plus the kernel's timer slack)

  unsigned spin_iterations = kCap;  // the most pause iterations a wait spins before yielding
  unsigned spin_floor = 8;          // the least (from a calibration of the pause instruction)
  bool adaptive = true;             // false: SHMEM_WAIT_SPIN fixed the budget
  bool oversubscribed = false;      // more PEs on this node than CPUs they may use
  bool threads_share = false;       // SHMEM_THREAD_MULTIPLE: the peer may be a thread of this PE
  double timeout_s = 0;             // 0 = wait forever
  // Called every long_wait_after_s of one wait (SHMEM_COLL_CHECK_AFTER: core/deadlock.hpp), with
  // when the wait began (wait_clock(): it tells one wait from the next) and what it waits for
  // (nullptr: it does not say), always between two looks at what it waits for.
  void (*long_wait)(void*, double started, const WaitWhat* what) noexcept = nullptr;
  // Called when a wait that called long_wait completes (same argument).
  void (*long_wait_end)(void*) noexcept = nullptr;
  void* long_wait_arg = nullptr;
  double long_wait_after_s = 0;
  // Called when a wait has lasted past SHMEM_WAIT_TIMEOUT, before its report ends the job: says
  // where the other PEs are (core/deadlock.hpp); arg is the Runtime.
  void (*timed_out)(void*) noexcept = nullptr;
  void* timed_out_arg = nullptr;
  void (*poll)(void*, bool continual) = nullptr;  // driven on every wait iteration when set
  void* poll_arg = nullptr;
  // The transport's idle (RemoteTransport::idle, with poll_arg): how a wait that hands its CPU
  // over does so when no other PE of this node last waited on its CPU. It yields, or where
  // yields cost a time slice, sleeps until the network's next event, at most kIdleNs.
  void (*idle)(void*, long max_ns) = nullptr;
  static constexpr long kIdleNs = 100000;
  mutable std::atomic<unsigned> spin_budget{kCap};  // the adaptive estimate (relaxed; a hint)
  WaitBoard board;                                  // where the node's PEs last waited
  mutable std::atomic<double> shared_since{0};      // since when a PE was seen on this CPU (0: not)
  mutable std::atomic<double> next_move{0};         // no move to another CPU before this
  mutable std::atomic<double> contended_until{0};   // a wait lost its CPU recently: naps until then

  // Sets the budget from SHMEM_WAIT_SPIN (-1: automatic) once oversubscribed is known.
  void configure_spin(std::int64_t wait_spin) noexcept;
  // `continual` false: from a wait that has begun to sleep between polls (the transport's
  // progress thread must then serve the peers, RemoteTransport::progress).
  [[gnu::always_inline]] void progress(bool continual = true) const noexcept {
    if (poll) poll(poll_arg, continual);
  }
  // Every wait_for begins here: counts, in the transport's word, that the application is in the
  // library (RemoteTransport::activity), also when what it waits for is already there.
  std::atomic<std::uint32_t>* activity = nullptr;
  [[gnu::always_inline]] void entered() const noexcept {
    if (activity) activity->store(activity->load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
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
  // One hand-over of the CPU after the spin: the transport's idle (above; it decides whether
  // yields cost a time slice here, and never sleeps where PEs outnumber the kernel's CPUs),
  // unless another PE of this node last waited on this CPU (it is then likely what this wait
  // needs: yield to it) or SHMEM_WAIT_SPIN fixed the waits (always sched_yield).
  // Where yields are seen to cost a time slice (yield_or_nap), it naps instead.
  void give_cpu() const noexcept {
    if (idle && adaptive && !board.look().peer_here) {
      idle(poll_arg, kIdleNs);
    } else {
      yield_or_nap();
    }
  }
  // sched_yield, timed (util::YieldCost); while two yields in a row each gave the CPU away for
  // more than 500 us within the last 100 ms (another task took it for a slice: a busy process,
  // or a computing thread or PE), a nap of kNapNs instead. The task that needs this CPU runs
  // either way, and a PE that napped preempts an outside one when it wakes, where one that
  // yielded waits for the end of its slice: with SHMEM_THREAD_MULTIPLE (every wait hands over
  // at once) and a busy process next to each PE, barriers took 1.3-2 ms by yields. Where PEs
  // outnumber CPUs and under SHMEM_WAIT_SPIN always sched_yield: there a yield goes to another
  // PE, which is what it is for, even when that PE then keeps the CPU for a while (napping
  // instead made 8-byte reductions at 4 and 8 PEs on 2 CPUs 7-11x slower).
  void yield_or_nap() const noexcept;
  mutable util::YieldCost yields;
  // A spinning wait read the clock `gap` seconds after its previous read: longer than
  // kLostCpuNs means another task had this CPU meanwhile, and this PE counts as contended for
  // the next kContendedForNs (see nap_ns).
  void saw_gap(double gap, double now) const noexcept {
    if (adaptive && gap > static_cast<double>(kLostCpuNs) * 1e-9)
      contended_until.store(now + static_cast<double>(kContendedForNs) * 1e-9, std::memory_order_relaxed);
  }
  // The nap of a wait that spins on (its peers are on other CPUs) after `waited` seconds: 0
  // unless this PE counts as contended and the wait is older than kContendedSpinNs, else
  // kNapNs. Spinning there would burn this PE's share of its CPU while the peer is off its own
  // (the two would run in turns, a time slice per hand-off); a PE that naps lets the other
  // task run now and, woken, preempts it (it has slept: the scheduler owes it time).
  long nap_ns(double waited, double now) const noexcept {
    if (!adaptive || waited <= static_cast<double>(kContendedSpinNs) * 1e-9) return 0;
    return now < contended_until.load(std::memory_order_relaxed) ? kNapNs : 0;
  }
  // Where PEs outnumber CPUs, under SHMEM_WAIT_SPIN, and with SHMEM_THREAD_MULTIPLE (or in a job
  // that spans hosts: threads_share). But with SHMEM_THREAD_MULTIPLE on one host, not while
  // yields are seen to cost a time slice (yield_or_nap): each such yield also pushes this PE's
  // deadline back by a slice, and a PE that keeps yielding next to a busy process starves
  // (1.3-2 ms barriers with a busy process next to each PE); the wait then spins on or yields
  // by the board, and naps, like any other. Where a transport's idle gives the CPU away (a job
  // that spans hosts), that idle takes care of it (it sleeps on the network instead).
  // And on one host such a wait first goes by the board for kThreadsSpinNs (`waited`, seconds):
  // a sibling thread it waits for that is queued behind it costs that much more, while the
  // answer of a PE on another CPU, which comes within a microsecond, no longer waits for a
  // yield to return (2.4 us per hand-off with a busy process on the PE's CPU, 0.6 for OSHMEM).
  static constexpr long kThreadsSpinNs = kRecheckNs;
  bool hands_over_at_once(double waited = 1e9) const noexcept {
    if (!adaptive || oversubscribed) return true;
    if (!threads_share) return false;
    if (idle != nullptr) return true;
    return !yields.contended(util::mono_ns()) && waited >= static_cast<double>(kThreadsSpinNs) * 1e-9;
  }
  // Where PEs outnumber CPUs and every other PE (awake) last waited on this CPU, whatever this
  // PE waits for needs this CPU first: no spin (with PEs on other CPUs too, the spin is what
  // catches their answers without a switch).
  bool skips_spin() const noexcept {
    if (!adaptive || !oversubscribed) return false;
    const WaitBoard::Look seen = board.look();
    return seen.peer_here && !seen.peer_elsewhere;
  }
  // After the spin: true to hand the CPU over, false to go on spinning (see the header). `now`
  // is wait_clock(). A PE that has found another PE on its CPU for kMoveAfterNs, and is the
  // highest-numbered there, moves to a CPU of its mask where no PE last waited (at most once
  // per kMoveEveryNs) and spins there.
  bool hand_over(double now, double waited = 1e9) const noexcept {
    if (hands_over_at_once(waited)) return true;
    const WaitBoard::Look seen = board.look();
    if (!seen.peer_here) {
      shared_since.store(0, std::memory_order_relaxed);
      return false;
    }
    const double since = shared_since.load(std::memory_order_relaxed);
    if (since == 0) {
      shared_since.store(now, std::memory_order_relaxed);
    } else if (seen.highest_here && now - since > static_cast<double>(kMoveAfterNs) * 1e-9 &&
               now >= next_move.load(std::memory_order_relaxed)) {
      next_move.store(now + static_cast<double>(kMoveEveryNs) * 1e-9, std::memory_order_relaxed);
      cpu_set_t taken;
      board.occupied(&taken);
      if (cpus::move_off(taken)) {
        shared_since.store(0, std::memory_order_relaxed);
        return board.look().peer_here;  // publishes the new CPU
      }
    }
    return true;
  }
};

inline double wait_clock() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The spin phase of one wait, one pause at a time: the budget it began with and the pauses it
// has used. Where PEs outnumber CPUs and the board shows every other PE on this CPU, there is
// nothing to spin for: they need this CPU (to answer, or to arrive at the barrier that this one
// waits in), so the budget is 0 and the wait hands over at once. An object, like WaitSteps, so
// that the device API's waits (src/stream/device_wait.cpp) spin and learn as spin_for does.
class SpinPhase {
 public:
  explicit SpinPhase(const WaitPolicy& pol, unsigned used = 0) noexcept
      : budget_(pol.skips_spin() ? 0 : pol.budget()), used_(used) {}
  // The spin loop's steps are forced inline: out of line (GCC at -O2 left them so in the
  // larger waits) every look at the flag paid two calls between the pause and the load.
  [[gnu::always_inline]] bool more() const noexcept { return used_ < budget_; }
  [[gnu::always_inline]] void pause(const WaitPolicy& pol) noexcept {
    ++used_;
    cpu_relax();
    pol.progress();
  }
  // The wait completed within the budget, or the budget ran out (WaitPolicy::learn).
  void completed(const WaitPolicy& pol) const noexcept { pol.learn(budget_, used_, true); }
  void ran_out(const WaitPolicy& pol) const noexcept {
    if (budget_ != 0) pol.learn(budget_, budget_, false);
  }

 private:
  unsigned budget_;
  unsigned used_;
};

// The spin phase: true when done() came true within the budget.
template <class Done>
inline bool spin_for(const WaitPolicy& pol, Done&& done) {
  SpinPhase spin(pol);
  while (spin.more()) {
    spin.pause(pol);
    if (done()) {
      spin.completed(pol);
      return true;
    }
  }
  spin.ran_out(pol);
  return false;
}

// The sleep step after `waited` seconds of waiting: 0 while the wait is still young (yield
// only), then at most 1/kSleepFraction of the time waited and at most kMaxSleepNs.
inline long sleep_step_ns(double waited) noexcept {
  if (waited < WaitPolicy::kYieldOnlyS) return 0;
  const double ns = waited * 1e9 / static_cast<double>(WaitPolicy::kSleepFraction);
  return ns > static_cast<double>(WaitPolicy::kMaxSleepNs) ? WaitPolicy::kMaxSleepNs : static_cast<long>(ns);
}

// After the spin, one pause at a time: the state of the wait between two looks at what it waits
// for. Hands the CPU over (WaitPolicy::give_cpu) while WaitPolicy::hand_over() says so (asked
// again every kRecheckNs), else spins on (napping where WaitPolicy::nap_ns() says so); sleeps
// (sleep(ns), which may return early when woken) only once the wait is old. report(elapsed
// seconds) is called if the watchdog fires and must not return (it ends the job). An object, so
// that a wait whose loop lies outside the library (the device API's Backoff, through
// src/stream/device_wait.cpp) takes the same steps as yield_or_spin_until.
// `siblings`: other threads of this PE run and may be what the wait needs (a device kernel of
// several threads, which the wait board cannot tell apart): hand over at once, by
// WaitPolicy::yield_or_nap. `what`: what the wait waits for, for WaitPolicy::long_wait.
class WaitSteps {
 public:
  explicit WaitSteps(const WaitPolicy& pol, bool siblings = false, const WaitWhat* what = nullptr) noexcept
      : what_(what),
        start_(wait_clock()),
        prev_(start_),
        recheck_(start_ + static_cast<double>(WaitPolicy::kRecheckNs) * 1e-9),
        siblings_(siblings),
        yield_(siblings || pol.hand_over(start_, 0)),
        next_long_(pol.long_wait_after_s) {}
  // The wait has begun to sleep between polls (the transport's progress thread must then serve
  // the peers: WaitPolicy::progress(false)).
  bool sleeps() const noexcept { return sleeps_; }
  // The wait completed. A wait that lost its CPU to another task finds, once it runs again,
  // what it waited for usually there: the peer ran meanwhile. So the gap since the last clock
  // read is looked at here too; pause() alone would never see it. Two PEs that each share a
  // CPU with a busy process otherwise settle into running in turns (each one hand-off per time
  // slice, 2-4 ms) without either of them ever counting as contended, and never nap.
  void finished(const WaitPolicy& pol) const noexcept {
    if (next_long_ > pol.long_wait_after_s && pol.long_wait_end != nullptr) pol.long_wait_end(pol.long_wait_arg);
    if (yield_ || i_ == 0) return;
    const double now = wait_clock();
    pol.saw_gap(now - prev_, now);
  }
  template <class Report, class Sleep>
  void pause(const WaitPolicy& pol, Report&& report, Sleep&& sleep) {
    ++i_;
    if (yield_ || i_ % WaitPolicy::kClockEvery == 0) {
      const double now = wait_clock();
      const double waited = now - start_;
      if (pol.timeout_s > 0 && waited > pol.timeout_s) {
        if (pol.timed_out != nullptr) pol.timed_out(pol.timed_out_arg);
        report(waited);
      }
      if (pol.long_wait != nullptr && waited > next_long_) {
        next_long_ = waited + pol.long_wait_after_s;
        pol.long_wait(pol.long_wait_arg, start_, what_);
      }
      if (!yield_) pol.saw_gap(now - prev_, now);
      prev_ = now;
      long ns = sleep_step_ns(waited);
      if (ns == 0 && !yield_) ns = pol.nap_ns(waited, now);
      if (ns != 0) {
        pol.board.asleep();
        sleeps_ = true;
        sleep(ns);
        recheck_ = 0;  // publish again, and ask again, once awake
        prev_ = wait_clock();
        return;
      }
      if (now >= recheck_) {
        if (!siblings_) yield_ = pol.hand_over(now, waited);
        recheck_ = now + static_cast<double>(WaitPolicy::kRecheckNs) * 1e-9;
      }
    }
    if (!yield_) {
      cpu_relax();
    } else if (siblings_) {
      pol.yield_or_nap();
    } else {
      pol.give_cpu();
    }
  }

 private:
  const WaitWhat* what_;
  double start_;
  double prev_;     // the previous clock read (a long gap since: the CPU was taken)
  double recheck_;  // when to ask hand_over() again
  unsigned i_ = 0;
  bool siblings_;
  bool yield_;
  bool sleeps_ = false;
  double next_long_;  // waited seconds at which to call pol.long_wait next
};

// After the spin: WaitSteps until done().
template <class Done, class Report, class Sleep>
inline void yield_or_spin_until(const WaitPolicy& pol, Done&& done, Report&& report, Sleep&& sleep,
                                const WaitWhat* what = nullptr) {
  WaitSteps steps(pol, false, what);
  for (;;) {
    pol.progress(!steps.sleeps());
    if (done()) {
      steps.finished(pol);
      return;
    }
    steps.pause(pol, report, sleep);
  }
}

// WaitPolicy::long_wait for a wait outside WaitSteps (the central barrier's futex sleeps), after
// each sleep: calls the hook each time another long_wait_after_s has passed since `start`.
inline void after_sleep(const WaitPolicy& pol, std::chrono::steady_clock::time_point start) noexcept {
  if (pol.long_wait == nullptr) return;
  const auto now = std::chrono::steady_clock::now();
  const double waited = std::chrono::duration<double>(now - start).count();
  thread_local double next = 0;
  thread_local std::chrono::steady_clock::time_point of;
  if (of != start) {
    of = start;
    next = pol.long_wait_after_s;
  }
  if (waited > next) {
    next = waited + pol.long_wait_after_s;
    pol.long_wait(pol.long_wait_arg, std::chrono::duration<double>(start.time_since_epoch()).count(), nullptr);
  }
}

// ... and when that wait completes: WaitPolicy::long_wait_end if it lasted long enough to have
// called long_wait.
inline void sleeps_done(const WaitPolicy& pol, std::chrono::steady_clock::time_point start) noexcept {
  if (pol.long_wait_end == nullptr) return;
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (waited > pol.long_wait_after_s) pol.long_wait_end(pol.long_wait_arg);
}

// A sleep of a wait (the naps of 20 us, the late steps of up to 1 ms). The kernel lets a timer
// of a normal thread fire as late as its timer slack, 50 us by default, and on a machine with
// no other timers that is when it fires: a 20 us nap took 90-110 us here, 38-52 us with the
// slack at 1 ns (about the cost of a wake-up on this VM). So for the sleep the thread's slack
// is at most a quarter of the sleep, and then the caller's again.
inline void sleep_ns(long ns) noexcept {
  timespec ts{0, ns};
  const long slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  const long want = ns / 4 > 0 ? ns / 4 : 1;  // 0 would mean "the default" to PR_SET_TIMERSLACK
  if (slack <= want) {
    nanosleep(&ts, nullptr);
    return;
  }
  prctl(PR_SET_TIMERSLACK, want, 0, 0, 0);
  nanosleep(&ts, nullptr);
  prctl(PR_SET_TIMERSLACK, slack, 0, 0, 0);
}

inline void WaitPolicy::yield_or_nap() const noexcept {
  if (!adaptive || oversubscribed) {  // where PEs outnumber CPUs a yield goes to a PE: its purpose
    sched_yield();
  } else if (yields.contended(util::mono_ns())) {
    board.asleep();  // queued behind nobody meanwhile; the next look publishes again
    sleep_ns(kNapNs);
  } else {
    yields.yield();
  }
}

// Calls done() until it returns true: spin, then yield or spin on, then (late) sleep.
template <class Done, class Report>
inline void wait_for(const WaitPolicy& pol, Done&& done, Report&& report) {
  pol.entered();
  if (done()) return;
  if (spin_for(pol, done)) return;
  yield_or_spin_until(pol, done, report, sleep_ns);
}

// The same for a wait that says what it waits for (WaitWhat): describe() returns the text. It
// costs nothing until the spin has run out.
template <class Done, class Report, class Describe>
inline void wait_for(const WaitPolicy& pol, Done&& done, Report&& report, const Describe& describe) {
  pol.entered();
  if (done()) return;
  if (spin_for(pol, done)) return;
  const WaitWhat what = WaitWhat::of(describe);
  yield_or_spin_until(pol, done, report, sleep_ns, &what);
}

}  // namespace shmem
