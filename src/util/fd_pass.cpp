#include "util/fd_pass.hpp"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace shmem::util {
namespace {
constexpr std::size_t kMaxFds = 8;
}

bool send_with_fds(int sock, std::span<const char> bytes, std::span<const int> fds) noexcept {
  if (fds.size() > kMaxFds || bytes.empty()) {
    errno = EINVAL;
    return false;
  }
  alignas(cmsghdr) char ctrl[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
  std::size_t off = 0;
  while (off < bytes.size()) {
    iovec iov{const_cast<char*>(bytes.data() + off), bytes.size() - off};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (off == 0 && !fds.empty()) {
      msg.msg_control = ctrl;
      msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
      cmsghdr* c = CMSG_FIRSTHDR(&msg);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
      std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
    }
    const ssize_t r = ::sendmsg(sock, &msg, MSG_NOSIGNAL);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    off += static_cast<std::size_t>(r);
  }
  return true;
}

std::size_t recv_with_fds(int sock, std::span<char> bytes, std::span<UniqueFd> fds) noexcept {
  alignas(cmsghdr) char ctrl[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
  std::size_t off = 0;
  while (off < bytes.size()) {
    iovec iov{bytes.data() + off, bytes.size() - off};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = ctrl;
    msg.msg_controllen = sizeof ctrl;
    const ssize_t r = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    std::size_t k = 0;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const std::size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t i = 0; i < n; ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
        if (k < fds.size())
          fds[k++] = UniqueFd(fd);
        else
          ::close(fd);  // more than asked for
      }
    }
    off += static_cast<std::size_t>(r);
  }
  return off;
}

}  // namespace shmem::util
