#pragma once
// What the progress thread (progress_thread.hpp) knows of the application's own use of the
// worker. No UCX here (unit-tested on its own).
#include <atomic>
#include <cstdint>
#include <utility>

#include "util/mono_ns.hpp"

namespace shmem::transport::ucx {

// CLOCK_MONOTONIC in nanoseconds (the clock of AppPolls).
inline std::uint64_t now_ns() noexcept { return util::mono_ns(); }

// When the application last drove the worker itself from a continual poll: a wait that spins
// or yields, a blocking call, a loop of tests (RemoteTransport::progress(continual)). A wait
// that has begun to sleep between polls (core/wait.hpp: after 10 ms) does not count, and a PE
// that computes leaves the worker alone. (Until this version a poll counted only if it came
// less than 20 us after the one before, to tell a sleeping wait from a spinning one; where PEs
// outnumber CPUs a spinning wait that was descheduled failed that test, and the thread then
// woke for every message the wait was about to read itself: 4 hosts x 1 PE on 2 CPUs,
// back-to-back 8-byte broadcasts 20-30 us per call against 15 us without the thread.)
class AppPolls {
 public:
  static constexpr std::uint64_t kBusyNs = 200 * 1000;  // polled this recently: still polling
  static constexpr std::uint64_t kGapNs = 20 * 1000;    // look again after this while it holds the worker
  // While it goes on polling, the progress thread looks back after kBusyNs, then after twice
  // as long each time, up to this.
  static constexpr std::uint64_t kLongestNapNs = 1000 * 1000;
  // Returns the time (now_ns).
  std::uint64_t polled() noexcept {
    const std::uint64_t now = now_ns();
    last_.store(now, std::memory_order_relaxed);
    return now;
  }
  // The application is polling continually: it serves the worker's events itself.
  bool spinning(std::uint64_t now) const noexcept { return now - last_.load(std::memory_order_relaxed) < kBusyNs; }
  // Bumped by every wait of the application as it begins (WaitPolicy::entered).
  std::atomic<std::uint32_t>* activity() noexcept { return &waits_; }
  // The progress thread's view: true when it has seen a wait begin (the word change between two
  // of its calls) within the last kBusyNs. A window of time, not "since the last call": the
  // thread calls this again right after it served a message, and a PE that is busy in the
  // library has rarely begun its next wait within those microseconds.
  bool waits_began(std::uint64_t now) noexcept {
    const std::uint32_t n = waits_.load(std::memory_order_relaxed);
    if (n != std::exchange(seen_waits_, n)) seen_at_ = now;
    return seen_at_ != 0 && now - seen_at_ < kBusyNs;
  }

 private:
  std::atomic<std::uint64_t> last_{0};
  std::atomic<std::uint32_t> waits_{0};
  std::uint32_t seen_waits_ = 0;  // the progress thread's: the word at its last look ...
  std::uint64_t seen_at_ = 0;     // ... and when it last saw it change (0: never)
};

}  // namespace shmem::transport::ucx
