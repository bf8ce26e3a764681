// The spin budget's configuration (see wait.hpp): SHMEM_WAIT_SPIN, or the automatic, adaptive
// budget whose floor comes from timing the pause instruction on this CPU.
#include "core/wait.hpp"

#include <cmath>

namespace shmem {
namespace {

// Nanoseconds per pause instruction: the fastest of a few short timed runs (a run that got
// preempted only comes out slower). About 3 us at init.
double pause_ns() noexcept {
  constexpr int kRuns = 3, kPauses = 64;
  double best = 0;
  for (int r = 0; r < kRuns; ++r) {
    const double t0 = wait_clock();
    for (int i = 0; i < kPauses; ++i) cpu_relax();
    const double per = (wait_clock() - t0) * 1e9 / kPauses;
    if (r == 0 || per < best) best = per;
  }
  return best;
}

}  // namespace

void WaitPolicy::configure_spin(std::int64_t wait_spin) noexcept {
  if (wait_spin >= 0) {
    adaptive = false;
    spin_iterations = static_cast<unsigned>(wait_spin);
    spin_floor = spin_iterations;
  } else {
    adaptive = true;
    spin_iterations = oversubscribed ? kCapOversubscribed : kCap;
    const double ns = pause_ns();
    // Enough pauses to cover a cache-line hand-off between two running PEs (~0.1 us) several
    // times over, so that waits between running PEs finish in the spin phase and keep the
    // budget up; few enough that a PE sharing its CPU with the peer hands it over promptly.
    const double want = ns > 0 ? std::ceil(static_cast<double>(kFloorNs) / ns) : 8.0;
    spin_floor = static_cast<unsigned>(want < 4 ? 4 : (want > 256 ? 256 : want));
    if (spin_floor > spin_iterations) spin_floor = spin_iterations;
  }
  spin_budget.store(oversubscribed ? spin_floor : spin_iterations, std::memory_order_relaxed);
}

}  // namespace shmem
