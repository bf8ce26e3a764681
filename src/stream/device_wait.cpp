// The library's side of device-API waits past their inline spins (include/shmem/device/backoff.hpp):
// each pause is one step of the wait policy of the state's runtime, as the library's own waits
// take them (core/wait.hpp): first the rest of the adaptive spin (SpinPhase), then WaitSteps.
// A wait that went past its inline spins tells the library when it ends, so that the spin
// budget learns from device waits as from the library's own.
#include "shmem/device/backoff.hpp"

#include <new>
#include <optional>
#include <type_traits>

#include "base/log.hpp"
#include "core/wait.hpp"
#include "stream/device_owner.hpp"
#include "stream/pool.hpp"

namespace {

using shmem::SpinPhase;
using shmem::WaitPolicy;
using shmem::WaitSteps;
using shmem::device::detail::WaitScratch;

// One device wait past its inline spins: the spin (which counts the inline pauses), then the steps.
struct DeviceWait {
  SpinPhase spin;
  std::optional<WaitSteps> steps;
};

static_assert(sizeof(DeviceWait) <= sizeof(WaitScratch) && alignof(DeviceWait) <= alignof(WaitScratch),
              "backoff.hpp's WaitScratch holds a DeviceWait");
static_assert(std::is_trivially_destructible_v<DeviceWait>, "a device wait's state needs no destructor");

DeviceWait& wait_of(WaitScratch* w) noexcept { return *std::launder(reinterpret_cast<DeviceWait*>(w->bytes)); }

}  // namespace

extern "C" {

void shmemx_device_wait_pause(const shmem::device::State* s, WaitScratch* w, int first) noexcept {
  shmem::Runtime& rt = shmem::stream::owner(s);
  const WaitPolicy& pol = rt.wait_policy();
  if (first != 0) new (w->bytes) DeviceWait{SpinPhase(pol, shmem::device::detail::Backoff::kSpins), std::nullopt};
  DeviceWait& d = wait_of(w);
  if (!d.steps) {
    if (d.spin.more()) {
      d.spin.pause(pol);
      return;
    }
    d.spin.ran_out(pol);
    // Another kernel thread of this PE running may be what this one waits for.
    d.steps.emplace(pol, shmem::stream::Pool::get().busy() > 1);
  }
  pol.progress(!d.steps->sleeps());
  d.steps->pause(
      pol,
      [&](double waited) {
        shmem::log::write(shmem::log::Level::kFatal, "wait",
                          "a device-API wait (wait_until, signal_wait_until or a device barrier) of PE %d timed out "
                          "after %.1f s (SHMEM_WAIT_TIMEOUT=%g)",
                          rt.my_pe(), waited, pol.timeout_s);
        rt.abort_job(1);
      },
      shmem::sleep_ns);
}

void shmemx_device_wait_end(const shmem::device::State* s, WaitScratch* w) noexcept {
  const DeviceWait& d = wait_of(w);
  const WaitPolicy& pol = shmem::stream::owner(s).wait_policy();
  if (d.steps) {
    d.steps->finished(pol);
  } else {
    d.spin.completed(pol);
  }
}

}  // extern "C"
