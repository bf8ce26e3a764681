#pragma once
// EventFd: an eventfd (nonblocking, close-on-exec) by which one thread wakes another's poll
// loop: signal() makes it readable, drain() makes it quiet again. Owns its descriptor.
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

#include "util/unique_fd.hpp"

namespace shmem::util {

class EventFd {
 public:
  // False (errno set) when the kernel would not make one.
  EventFd() noexcept : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
  explicit operator bool() const noexcept { return static_cast<bool>(fd_); }
  int fd() const noexcept { return fd_.get(); }
  void signal() const noexcept {
    const std::uint64_t one = 1;
    [[maybe_unused]] ssize_t r = ::write(fd_.get(), &one, sizeof one);  // fails only on a full counter: signalled
  }
  void drain() const noexcept {
    std::uint64_t v;
    [[maybe_unused]] ssize_t r = ::read(fd_.get(), &v, sizeof v);  // nonblocking: nothing to read is fine
  }

 private:
  UniqueFd fd_;
};

}  // namespace shmem::util
