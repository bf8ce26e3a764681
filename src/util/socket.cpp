#include "util/socket.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/sockios.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "base/error.hpp"

namespace shmem::util {
namespace {

struct AddrInfoFree {
  void operator()(addrinfo* a) const noexcept { freeaddrinfo(a); }
};
using AddrInfoPtr = std::unique_ptr<addrinfo, AddrInfoFree>;

AddrInfoPtr resolve(const std::string& host, std::uint16_t port, bool passive, std::string* err) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  addrinfo* res = nullptr;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &res);
  if (rc != 0) {
    if (err) *err = std::string("cannot resolve '") + host + "': " + gai_strerror(rc);
    return nullptr;
  }
  return AddrInfoPtr(res);
}

std::string host_port(const std::string& host, std::uint16_t port) {
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

// Connects one address with a deadline: a non-blocking connect finished by poll, so an
// unreachable host costs at most `timeout` rather than the kernel's SYN retry schedule.
UniqueFd connect_one(const addrinfo* ai, std::chrono::milliseconds timeout, int* err) {
  UniqueFd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol));
  if (!fd) {
    *err = errno;
    return {};
  }
  if (::connect(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0) {
    if (errno != EINPROGRESS) {
      *err = errno;
      return {};
    }
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        *err = ETIMEDOUT;
        return {};
      }
      pollfd p{fd.get(), POLLOUT, 0};
      int rc = ::poll(&p, 1, static_cast<int>(left.count()));
      if (rc < 0 && errno == EINTR) continue;
      if (rc < 0) {
        *err = errno;
        return {};
      }
      if (rc > 0) break;
    }
    int so_err = 0;
    socklen_t len = sizeof so_err;
    if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &so_err, &len) != 0) so_err = errno;
    if (so_err != 0) {
      *err = so_err;
      return {};
    }
  }
  int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) {
    *err = errno;
    return {};
  }
  set_nodelay(fd.get());
  return fd;
}

}  // namespace

std::string IoResult::describe() const {
  switch (status) {
    case kOk: return "ok";
    case kEof: return done ? "connection closed in the middle of a message" : "connection closed";
    case kTimeout: return "timed out";
    case kError: return std::strerror(err);
  }
  return "?";
}

UniqueFd tcp_listen(const std::string& host, std::uint16_t port, int backlog) {
  std::string err;
  AddrInfoPtr res = resolve(host, port, true, &err);
  if (!res) throw Error(Errc::kBootstrap, "cannot listen on " + host_port(host, port) + ": " + err);
  int last = 0;
  for (addrinfo* ai = res.get(); ai; ai = ai->ai_next) {
    UniqueFd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
    if (!fd) {
      last = errno;
      continue;
    }
    int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(fd.get(), backlog) != 0) {
      last = errno;
      continue;
    }
    return fd;
  }
  throw Error(Errc::kBootstrap, "cannot listen on " + host_port(host, port) + ": " + std::strerror(last));
}

// A silent peer host (link down, power off: no reset ever arrives) is given up after about
// `host_timeout`: keepalive probes after 1 s idle, 1 s apart, `host_timeout` unanswered end it,
// and unacknowledged data gives up after `host_timeout` too (TCP_USER_TIMEOUT, which also
// governs keepalive once set). A link that comes back sooner loses nothing: TCP retransmits.
// The peer's kernel answers probes, so a busy or stopped process is never mistaken for a lost one.
void set_keepalive(int fd, std::chrono::seconds host_timeout) noexcept {
  const long long secs = std::max<long long>(1, host_timeout.count());
  int one = 1, idle = 1, intvl = 1;
  int cnt = static_cast<int>(std::min<long long>(secs, 127));  // the kernel's TCP_KEEPCNT limit
  unsigned user_timeout_ms = static_cast<unsigned>(std::min<long long>(secs * 1000, 0x7fffffff));
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
  ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout_ms, sizeof user_timeout_ms);
}

UniqueFd tcp_connect(const std::string& host, std::uint16_t port, std::chrono::milliseconds timeout,
                     std::string* err) {
  std::string why;
  AddrInfoPtr res = resolve(host, port, false, &why);
  if (!res) {
    if (err) *err = why;
    return {};
  }
  int last = ECONNREFUSED;
  for (addrinfo* ai = res.get(); ai; ai = ai->ai_next) {
    UniqueFd fd = connect_one(ai, timeout, &last);
    if (fd) return fd;
  }
  if (err) *err = std::strerror(last);
  return {};
}

std::uint16_t local_port(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0)
    throw Error(Errc::kBootstrap, std::string("getsockname: ") + std::strerror(errno));
  if (ss.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  if (ss.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  throw Error(Errc::kBootstrap, "socket is not a TCP socket");
}

std::string format_address(const sockaddr* sa, socklen_t len) {
  char host[NI_MAXHOST];
  char serv[NI_MAXSERV];
  if (::getnameinfo(sa, len, host, sizeof host, serv, sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    return "unknown peer";
  if (sa->sa_family == AF_INET6) return std::string("[") + host + "]:" + serv;
  return std::string(host) + ":" + serv;
}

std::string peer_address(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return "unknown peer";
  return format_address(reinterpret_cast<sockaddr*>(&ss), len);
}

std::string local_address(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return "unknown address";
  return format_address(reinterpret_cast<sockaddr*>(&ss), len);
}

void set_io_timeouts(int fd, std::chrono::milliseconds recv, std::chrono::milliseconds send) noexcept {
  auto tv = [](std::chrono::milliseconds ms) {
    timeval t{};
    t.tv_sec = static_cast<time_t>(ms.count() / 1000);
    t.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
    return t;
  };
  timeval r = tv(recv);
  timeval s = tv(send);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &r, sizeof r);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &s, sizeof s);
}

void set_nodelay(int fd) noexcept {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

IoResult send_all(int fd, const void* buf, std::size_t n) noexcept {
  IoResult r;
  const char* p = static_cast<const char*>(buf);
  while (r.done < n) {
    ssize_t k = ::send(fd, p + r.done, n - r.done, MSG_NOSIGNAL);
    if (k > 0) {
      r.done += static_cast<std::size_t>(k);
    } else if (k < 0 && errno == EINTR) {
      continue;
    } else if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      r.status = IoResult::kTimeout;
      return r;
    } else {
      r.status = IoResult::kError;
      r.err = k < 0 ? errno : EPIPE;
      return r;
    }
  }
  return r;
}

IoResult recv_all(int fd, void* buf, std::size_t n) noexcept {
  IoResult r;
  char* p = static_cast<char*>(buf);
  while (r.done < n) {
    ssize_t k = ::recv(fd, p + r.done, n - r.done, 0);
    if (k > 0) {
      r.done += static_cast<std::size_t>(k);
    } else if (k == 0) {
      r.status = IoResult::kEof;
      return r;
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      r.status = IoResult::kTimeout;
      return r;
    } else if (errno == ECONNRESET) {
      r.status = IoResult::kEof;
      return r;
    } else {
      r.status = IoResult::kError;
      r.err = errno;
      return r;
    }
  }
  return r;
}

bool wait_readable(int fd, int timeout_ms) noexcept {
  for (;;) {
    pollfd p{fd, POLLIN | POLLRDHUP, 0};
    int rc = ::poll(&p, 1, timeout_ms);
    if (rc < 0 && errno == EINTR) continue;
    return rc != 0;  // errors count as "readable": the following read reports them
  }
}

bool peer_hung_up(int fd) noexcept {
  pollfd p{fd, POLLRDHUP, 0};
  int rc = ::poll(&p, 1, 0);
  return rc > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

void linger_close(std::vector<UniqueFd> fds, std::chrono::milliseconds bound) noexcept {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + bound;
  // Done with fd: every byte sent is acknowledged, or the peer ended it (EOF, reset).
  auto settled = [](int fd) {
    char sink[4096];
    for (;;) {
      const ssize_t r = ::recv(fd, sink, sizeof sink, MSG_DONTWAIT);
      if (r == 0) return true;  // the peer's FIN: it reads nothing more from us either way
      if (r < 0) {
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) return true;  // reset, or not a socket
        break;
      }
    }
    int unacked = 0;
    return ::ioctl(fd, SIOCOUTQ, &unacked) != 0 || unacked == 0;
  };
  for (auto& f : fds)
    if (f) ::shutdown(f.get(), SHUT_WR);
  for (;;) {
    std::vector<pollfd> waiting;
    for (auto& f : fds) {
      if (!f) continue;
      if (settled(f.get()))
        f.reset();
      else
        waiting.push_back({f.get(), POLLIN | POLLRDHUP, 0});
    }
    if (waiting.empty()) return;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return;  // the rest close as they are
    // Acknowledgements raise no event: look again every 10 ms, or when input arrives.
    if (::poll(waiting.data(), waiting.size(), static_cast<int>(std::min<long long>(left, 10))) < 0 && errno != EINTR)
      return;
  }
}

}  // namespace shmem::util
