#pragma once
// Descriptors that a process forked from this one must not keep: the library's connections to the
// bootstrap store, and the store and relay sockets a PE hosts. A child forked without exec (a
// DataLoader worker, a helper started with fork()) would otherwise hold them open after its
// parent died, and the other end would learn of the death only once every such child had exited.
// In the child, before fork() returns there, each is replaced by /dev/null under the same number
// (a pthread_atfork handler), so the number stays taken and nothing in the child reuses it.
// Descriptors numbered 2^20 and above are not marked.
#include <utility>

#include "util/unique_fd.hpp"

namespace shmem::util {

namespace detail {
void mark_parent_only(int fd) noexcept;
void unmark_parent_only(int fd) noexcept;
bool marked_parent_only(int fd) noexcept;  // for the tests
}  // namespace detail

// Owns one descriptor as UniqueFd does, and keeps it marked for forked children while it owns it.
class ParentOnlyFd {
 public:
  ParentOnlyFd() = default;
  explicit ParentOnlyFd(int fd) noexcept { reset(fd); }
  ParentOnlyFd(UniqueFd&& fd) noexcept { reset(fd.release()); }  // NOLINT: taking over a UniqueFd
  ParentOnlyFd(ParentOnlyFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  ParentOnlyFd& operator=(ParentOnlyFd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  ParentOnlyFd& operator=(UniqueFd&& fd) noexcept {
    reset(fd.release());
    return *this;
  }
  ParentOnlyFd(const ParentOnlyFd&) = delete;
  ParentOnlyFd& operator=(const ParentOnlyFd&) = delete;
  ~ParentOnlyFd() { reset(); }

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  // Unmarked, and the caller's to close.
  int release() noexcept {
    detail::unmark_parent_only(fd_);
    return std::exchange(fd_, -1);
  }
  // Closes the one owned (unmarked first, so that its number, once free, is nobody's mark) and
  // owns and marks `fd`.
  void reset(int fd = -1) noexcept {
    if (fd_ >= 0) {
      detail::unmark_parent_only(fd_);
      ::close(fd_);
    }
    fd_ = fd;
    if (fd_ >= 0) detail::mark_parent_only(fd_);
  }

 private:
  int fd_ = -1;
};

}  // namespace shmem::util
