#pragma once
// Whether handing the CPU over with sched_yield is cheap on this PE's CPU right now. A yield
// that nobody else wants the CPU for comes back within microseconds; one that comes back after
// kSlowYieldNs gave the CPU to another task for a time slice (a busy process, another job),
// and on Linux's fair schedulers the next yield will do the same. While that was seen within
// the last kContendedNs, a wait for the network does better to sleep on the transport's event
// descriptor: the kernel wakes a sleeping task as soon as its data arrives, and lets it preempt
// the busy one, where a task that yielded waits for the end of the other's slice (2 hosts x 1
// PE over TCP with two busy processes: 8-byte ping-pong 3.1 ms per half round trip by yields).
// After kContendedNs the next wait yields again and so measures again (a slice lost at most
// once per that window where the CPU stays shared). The same holds for node-local waits that
// hand their CPU over (core/wait.hpp, WaitPolicy::give_cpu): they nap instead of yielding
// while it shows. Unit-tested on its own.
#include <sched.h>

#include <atomic>
#include <cstdint>

#include "util/mono_ns.hpp"

namespace shmem::util {

class YieldCost {
 public:
  static constexpr std::uint64_t kSlowYieldNs = 500 * 1000;
  static constexpr std::uint64_t kContendedNs = 100 * 1000 * 1000;
  static constexpr unsigned kSlowInARow = 2;  // slow yields in a row that show it
  // True while a slow yield was seen within the last kContendedNs.
  bool contended(std::uint64_t now) const noexcept { return now < until_.load(std::memory_order_relaxed); }
  // Records a yield that began at `began` and ended at `ended` (mono_ns()).
  void measured(std::uint64_t began, std::uint64_t ended) noexcept {
    if (ended - began <= kSlowYieldNs) {
      slow_.store(0, std::memory_order_relaxed);
      return;
    }
    const unsigned n = slow_.load(std::memory_order_relaxed) + 1;
    slow_.store(n, std::memory_order_relaxed);
    if (n >= kSlowInARow) until_.store(ended + kContendedNs, std::memory_order_relaxed);
  }
  // sched_yield, timed.
  void yield() noexcept {
    const std::uint64_t began = mono_ns();
    sched_yield();
    measured(began, mono_ns());
  }

 private:
  std::atomic<std::uint64_t> until_{0};  // contended before this time (mono_ns)
  std::atomic<unsigned> slow_{0};         // slow yields in a row so far
};

}  // namespace shmem::util
