#pragma once
// Waiting in kernel code: the pause of every device-API wait (wait_until, signal waits, the
// device barrier). A wait first spins kSpins times inline (a peer on another CPU usually answers
// within them, and no library call is made); past them each pause is one step of the library's
// own waits (src/core/wait.hpp, out of line in src/stream/device_wait.cpp), so kernel waits
// adapt to contention as host waits do, and the library's spin budget learns from them:
//   - the rest of the adaptive spin budget (none where PEs outnumber CPUs and the other PEs
//     last waited on this CPU);
//   - then, with no other kernel thread of this PE running, the wait asks the node's wait board
//     whether another PE last waited on this CPU: yes, it hands the CPU over (that PE is likely
//     what it waits for); no, it spins on, napping once this PE counts as contended (a busy
//     process took its CPU) instead of burning its share of the CPU while the peer is off its own;
//   - with other kernel threads of this PE running (a grid or block of several threads, which
//     the board cannot tell apart), it hands the CPU over on every pause (sched_yield; a nap
//     while yields are seen to cost a time slice and PEs do not outnumber CPUs);
//   - only a wait that has lasted 10 ms sleeps, in steps of at most 1/128 of the time waited
//     (at most 1 ms), so a sleep never sets the latency of a hand-off;
//   - SHMEM_WAIT_TIMEOUT's watchdog ends the job, with a message, if the wait never completes;
//   - in a job with PEs on other hosts every pause also drives the network transport.
// Internal like remote.hpp: kernel code calls the device API, never these.
#include "shmem/device/cxx20.hpp"  // first: refuses C++ before 20 in words
#include "shmem/device/cpu.hpp"
#include "shmem/device/remote.hpp"
#include "shmem/device/state.hpp"

namespace shmem::device::detail {

// The library's state of one wait past its inline spins (a core WaitSteps); opaque here, with
// room to spare (the library asserts that it fits).
struct alignas(8) WaitScratch {
  unsigned char bytes[64];
};

}  // namespace shmem::device::detail

extern "C" {
// One pause of wait `w` by the library's wait policy; `first` nonzero on the wait's first call
// (which begins it).
SHMEM_DEVICE_REMOTE_API void shmemx_device_wait_pause(const shmem::device::State* s,
                                                      shmem::device::detail::WaitScratch* w, int first) noexcept;
// The end of a wait that called shmemx_device_wait_pause.
SHMEM_DEVICE_REMOTE_API void shmemx_device_wait_end(const shmem::device::State* s,
                                                    shmem::device::detail::WaitScratch* w) noexcept;
}

namespace shmem::device::detail {

class Backoff {
 public:
  static constexpr unsigned kSpins = 8;  // inline, before the library's steps

  explicit Backoff(const State& s) noexcept : s_(&s) {}
  ~Backoff() {
    if (n_ > kSpins) shmemx_device_wait_end(s_, &steps_);
  }
  Backoff(const Backoff&) = delete;
  Backoff& operator=(const Backoff&) = delete;
  void pause() noexcept {
    if (n_ < kSpins) {
      ++n_;
      if (s_->remote) shmemx_device_remote_progress(s_);
      cpu_relax();
      return;
    }
    shmemx_device_wait_pause(s_, &steps_, n_ == kSpins);
    n_ = kSpins + 1;
  }

 private:
  const State* s_;
  unsigned n_ = 0;
  WaitScratch steps_;
};

}  // namespace shmem::device::detail
