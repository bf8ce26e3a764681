#pragma once
// Drives a UCX worker while the PE's own threads are busy computing. UCX's TCP transport (and
// any transport without hardware RMA/atomics) performs a peer's put, get or atomic only when
// the *target's* worker is progressed; without this thread a PE in a long computation would
// stall every peer that reads or writes its memory. The thread sleeps on the worker's event
// descriptor when there is nothing to do (ucp_worker_arm), so an idle job costs no CPU.
#include <ucp/api/ucp.h>

#include <atomic>
#include <mutex>
#include <cstdint>
#include <thread>

#include "util/unique_fd.hpp"

namespace shmem::transport::ucx {

// CLOCK_MONOTONIC in nanoseconds (the clock of app_last_poll).
std::uint64_t now_ns() noexcept;

class ProgressThread {
 public:
  // Every call into the worker holds `worker_mu` (the transport's lock; the worker is
  // SERIALIZED); the worker needs UCP_FEATURE_WAKEUP.
  // `app_last_poll` is when (now_ns) the application last drove the worker itself: while it
  // does so continually (a wait spinning, a blocking call), the thread stays out of the way
  // and checks back every 200 us, so that a PE waiting for a peer does not also pay for this
  // thread's wake-up and the worker's lock on every message; once the application computes or
  // sleeps, the thread serves every message as it arrives. Throws std::runtime_error when the
  // worker has no event descriptor.
  ProgressThread(ucp_worker_h worker, const std::atomic<std::uint64_t>* app_last_poll, std::mutex* worker_mu);
  ~ProgressThread();  // stops and joins
  ProgressThread(const ProgressThread&) = delete;
  ProgressThread& operator=(const ProgressThread&) = delete;

 private:
  void run() noexcept;

  ucp_worker_h worker_;
  const std::atomic<std::uint64_t>* app_last_poll_;
  std::mutex* mu_;
  int worker_fd_ = -1;  // owned by the worker
  util::UniqueFd epoll_, wake_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace shmem::transport::ucx
