#include "oshrun/events.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "base/error.hpp"

namespace oshrun {

StoreEventQueue::StoreEventQueue() : efd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (!efd_)
    throw shmem::Error(shmem::Errc::kInternal, std::string("eventfd: ") + std::strerror(errno));
}

void StoreEventQueue::push(StoreEvent ev) noexcept {
  try {
    std::lock_guard<std::mutex> g(mu_);
    events_.push_back(std::move(ev));
  } catch (...) {
    return;  // out of memory on a server thread: the PE's exit status still reaches us
  }
  std::uint64_t one = 1;
  ssize_t r = ::write(efd_.get(), &one, sizeof one);
  (void)r;  // only fails when the counter would overflow, i.e. it is already readable
}

std::vector<StoreEvent> StoreEventQueue::drain() {
  std::uint64_t n;
  ssize_t r = ::read(efd_.get(), &n, sizeof n);
  (void)r;
  std::lock_guard<std::mutex> g(mu_);
  std::vector<StoreEvent> out(std::make_move_iterator(events_.begin()),
                              std::make_move_iterator(events_.end()));
  events_.clear();
  return out;
}

}  // namespace oshrun
