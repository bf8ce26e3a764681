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

#include "transport/ucx/app_polls.hpp"
#include "util/event_fd.hpp"
#include "util/unique_fd.hpp"

namespace shmem::transport::ucx {

class ProgressThread {
 public:
  // Every call into the worker holds `worker_mu` (the transport's lock; the worker is
  // SERIALIZED); the worker needs UCP_FEATURE_WAKEUP. `progress(arg)` is the transport's
  // progress call (ucp_worker_progress and what must follow it), returning its count.
  // `app` records the application's own use of the worker (app_polls.hpp): while it is in the
  // library (it polled continually, or a wait began, within the last 200 us), the thread stays
  // out of the way and looks back after 200 us, then twice as long each time up to 1 ms, so that
  // a PE waiting for a peer does not also pay for this thread's wake-up and the worker's lock on
  // every message; once the application computes, or its wait sleeps between polls, the thread
  // serves every message as it arrives. Throws std::runtime_error when the worker has no event
  // descriptor.
  ProgressThread(ucp_worker_h worker, unsigned (*progress)(void*), void* arg,
                 AppPolls* app, std::mutex* worker_mu);
  ~ProgressThread();  // stops and joins
  ProgressThread(const ProgressThread&) = delete;
  ProgressThread& operator=(const ProgressThread&) = delete;

 private:
  void run() noexcept;

  ucp_worker_h worker_;
  unsigned (*progress_)(void*);
  void* arg_;
  AppPolls* app_;
  std::mutex* mu_;
  int worker_fd_ = -1;  // owned by the worker
  util::UniqueFd epoll_;
  util::EventFd wake_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace shmem::transport::ucx
