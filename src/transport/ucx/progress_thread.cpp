#include "transport/ucx/progress_thread.hpp"

#include <sys/epoll.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace shmem::transport::ucx {

ProgressThread::ProgressThread(ucp_worker_h worker, unsigned (*progress)(void*), void* arg,
                               AppPolls* app, std::mutex* worker_mu)
    : worker_(worker), progress_(progress), arg_(arg), app_(app), mu_(worker_mu) {
  ucs_status_t st = ucp_worker_get_efd(worker_, &worker_fd_);
  if (st != UCS_OK)
    throw std::runtime_error(std::string("ucp_worker_get_efd: ") + ucs_status_string(st));
  epoll_ = util::UniqueFd(::epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_ || !wake_) throw std::runtime_error("progress thread: epoll/eventfd failed");
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = worker_fd_;
  ::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, worker_fd_, &ev);
  ev.data.fd = wake_.fd();
  ::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, wake_.fd(), &ev);
  thread_ = std::thread([this] { run(); });
}

ProgressThread::~ProgressThread() {
  stop_.store(true, std::memory_order_release);
  wake_.signal();
  if (thread_.joinable()) thread_.join();
}

void ProgressThread::run() noexcept {
  const timespec short_nap{0, static_cast<long>(AppPolls::kGapNs)};
  pollfd wake{wake_.fd(), POLLIN, 0};
  std::uint64_t nap_ns = AppPolls::kBusyNs;
  while (!stop_.load(std::memory_order_acquire)) {
    const std::uint64_t now = now_ns();
    if (app_->waits_began(now) || app_->spinning(now)) {
      // The application is in the library (a wait, a blocking call, a leader-channel
      // transfer) and drives the worker itself: stay out of its way (no wake-up per message,
      // no lock traffic), and look back less often the longer it goes on (each look is a
      // switch that, where PEs outnumber CPUs, takes the CPU from a PE).
      const timespec nap{0, static_cast<long>(nap_ns)};
      ::ppoll(&wake, 1, &nap, nullptr);
      nap_ns = std::min<std::uint64_t>(nap_ns * 2, AppPolls::kLongestNapNs);
      continue;
    }
    nap_ns = AppPolls::kBusyNs;
    ucs_status_t st;
    {
      std::unique_lock<std::mutex> lk(*mu_, std::try_to_lock);
      if (!lk.owns_lock()) {  // the application is in the worker right now: look again soon
        ::ppoll(&wake, 1, &short_nap, nullptr);
        continue;
      }
      while (progress_(arg_) != 0) {
      }
      // Arm, then sleep until the worker has an event. BUSY: events arrived meanwhile.
      st = ucp_worker_arm(worker_);
    }
    if (st == UCS_ERR_BUSY) continue;
    epoll_event evs[2];
    // The timeout only bounds how long UCX's own timers (keepalive, which detects a lost
    // host) may wait for an event.
    ::epoll_wait(epoll_.get(), evs, 2, 100);
  }
}

}  // namespace shmem::transport::ucx
