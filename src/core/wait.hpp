#pragma once
// Waiting without burning a core that an oversubscribed peer needs: spin briefly with a pause
// instruction, then yield, then sleep in short steps. A watchdog (SHMEM_WAIT_TIMEOUT) turns a
// wait that never completes into a report and a job abort instead of a silent hang.
#include <sched.h>
#include <time.h>

#include <chrono>

#include "shmem/device/cpu.hpp"

namespace shmem {

using device::detail::cpu_relax;

struct WaitPolicy {
  unsigned spin_iterations = 4096;  // few when the node is oversubscribed
  bool oversubscribed = false;      // more PEs on this node than CPUs
  double timeout_s = 0;             // 0 = wait forever
  // Drives a remote transport that needs it to see remote updates (software RMA, e.g. UCX
  // over TCP); null on single-host jobs.
  void (*poll)(void*) = nullptr;
  void* poll_arg = nullptr;
  void drive() const noexcept {
    if (poll) poll(poll_arg);
  }
};

// Calls done() until it returns true. report(elapsed_seconds) is called once if the watchdog
// fires and must not return (it ends the job).
template <class Done, class Report>
inline void wait_for(const WaitPolicy& pol, Done&& done, Report&& report) {
  if (done()) return;
  for (unsigned i = 0; i < pol.spin_iterations; ++i) {
    cpu_relax();
    pol.drive();
    if (done()) return;
  }
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  long sleep_ns = 1000;
  for (unsigned n = 0;; ++n) {
    pol.drive();
    if (done()) return;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (pol.timeout_s > 0 && elapsed > pol.timeout_s) report(elapsed);
    if (elapsed < 0.002) {
      sched_yield();
    } else {
      timespec ts{0, sleep_ns};
      nanosleep(&ts, nullptr);
      if (sleep_ns < 100000) sleep_ns *= 2;
    }
  }
}

}  // namespace shmem
