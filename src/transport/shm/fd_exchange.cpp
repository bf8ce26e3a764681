#include "transport/shm/fd_exchange.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/error.hpp"
#include "base/log.hpp"

namespace shmem::transport::shm {
namespace {

constexpr std::uint32_t kMagic = 0x53484d46;  // "SHMF"

struct Hello {
  std::uint32_t magic;
  std::int32_t pe;
  std::uint32_t secret_len;
};
struct Reply {
  std::uint32_t magic;
  std::int32_t pe;
  std::uint64_t heap_size, heap_addr, data_size, data_addr;
  std::uint32_t nfds;
};

sockaddr_un abstract_addr(const std::string& job_id, int pe, socklen_t* len) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::string name = "shmem-" + job_id + "-" + std::to_string(pe);
  if (name.size() > sizeof(a.sun_path) - 2) name.resize(sizeof(a.sun_path) - 2);
  std::memcpy(a.sun_path + 1, name.data(), name.size());  // sun_path[0] == 0: abstract
  *len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  return a;
}

[[noreturn]] void fail(const std::string& what) {
  throw Error(Errc::kBootstrap, "segment exchange: " + what + ": " + std::strerror(errno));
}

void set_timeout(int fd, std::chrono::milliseconds t) {
  timeval tv{};
  tv.tv_sec = t.count() / 1000;
  tv.tv_usec = (t.count() % 1000) * 1000;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

bool read_full(int fd, void* buf, std::size_t n) {
  auto* p = static_cast<char*>(buf);
  while (n) {
    ssize_t r = ::recv(fd, p, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

bool write_full(int fd, const void* buf, std::size_t n) {
  auto* p = static_cast<const char*>(buf);
  while (n) {
    ssize_t r = ::send(fd, p, n, MSG_NOSIGNAL);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

// Serves one peer's request: checks uid and secret, replies with our descriptors.
bool serve_one(int conn, int my_pe, const std::string& secret, const SegmentDesc& heap, const SegmentDesc& data) {
  ucred cred{};
  socklen_t cl = sizeof cred;
  if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0 || cred.uid != getuid()) {
    SHMEM_WARN("shm", "refused a segment request from uid %u (not ours)", cred.uid);
    return false;
  }
  Hello h{};
  if (!read_full(conn, &h, sizeof h) || h.magic != kMagic || h.secret_len != secret.size()) {
    SHMEM_WARN("shm", "refused a malformed segment request (pid %d)", (int)cred.pid);
    return false;
  }
  std::string got(h.secret_len, '\0');
  if (!read_full(conn, got.data(), got.size()) || got != secret) {
    SHMEM_WARN("shm", "refused a segment request without the job secret (pid %d)", (int)cred.pid);
    return false;
  }
  Reply rep{kMagic, my_pe, heap.size, heap.addr, data.size, data.addr, data.fd >= 0 ? 2u : 1u};
  int fds[2] = {heap.fd, data.fd};
  iovec iov{&rep, sizeof rep};
  alignas(cmsghdr) char ctrl[CMSG_SPACE(sizeof fds)] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = ctrl;
  msg.msg_controllen = CMSG_SPACE(sizeof(int) * rep.nfds);
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * rep.nfds);
  std::memcpy(CMSG_DATA(c), fds, sizeof(int) * rep.nfds);
  while (sendmsg(conn, &msg, MSG_NOSIGNAL) < 0) {
    if (errno != EINTR) fail("sending descriptors to PE " + std::to_string(h.pe));
  }
  return true;
}

PeerSegments receive(int fd, int pe) {
  Reply rep{};
  iovec iov{&rep, sizeof rep};
  alignas(cmsghdr) char ctrl[CMSG_SPACE(sizeof(int) * 2)] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = ctrl;
  msg.msg_controllen = sizeof ctrl;
  ssize_t r;
  while ((r = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL)) < 0 && errno == EINTR) {
  }
  if (r != static_cast<ssize_t>(sizeof rep) || rep.magic != kMagic || rep.pe != pe)
    throw Error(Errc::kBootstrap, "segment exchange: PE " + std::to_string(pe) +
                                      " refused or did not answer (different job secret or uid?)");
  PeerSegments out;
  out.pe = pe;
  out.heap.size = rep.heap_size;
  out.heap.addr = rep.heap_addr;
  out.data.size = rep.data_size;
  out.data.addr = rep.data_addr;
  int fds[2] = {-1, -1};
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
      std::memcpy(fds, CMSG_DATA(c), std::min<std::size_t>(c->cmsg_len - CMSG_LEN(0), sizeof fds));
  }
  out.heap_fd = util::UniqueFd(fds[0]);
  out.data_fd = util::UniqueFd(fds[1]);
  if (!out.heap_fd) throw Error(Errc::kBootstrap, "segment exchange: no descriptor from PE " + std::to_string(pe));
  return out;
}

}  // namespace

FdExchange::FdExchange(const std::string& job_id, int my_pe, const std::string& secret)
    : job_id_(job_id), my_pe_(my_pe), secret_(secret) {
  listener_ = util::UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!listener_) fail("socket");
  socklen_t len;
  sockaddr_un a = abstract_addr(job_id_, my_pe_, &len);
  if (::bind(listener_.get(), reinterpret_cast<sockaddr*>(&a), len) != 0)
    fail("binding the abstract socket for PE " + std::to_string(my_pe_) + " (another job with the same SHMEM_JOB_ID?)");
  if (::listen(listener_.get(), 4096) != 0) fail("listen");
}

std::vector<PeerSegments> FdExchange::exchange(const std::vector<int>& peers, const SegmentDesc& heap,
                                               const SegmentDesc& data, std::chrono::milliseconds timeout) {
  // 1. Connect to every peer and send our request; connect() completes from the listen
  //    backlog without the peer accepting, so nobody waits on anybody here.
  //    A peer whose socket does not exist here is in another network namespace (or on another
  //    machine with the same host name): not node-local. Reachability is symmetric, so that
  //    peer does not ask us either.
  std::vector<util::UniqueFd> out;
  std::vector<int> reached;
  out.reserve(peers.size());
  for (int pe : peers) {
    util::UniqueFd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!s) fail("socket");
    set_timeout(s.get(), timeout);
    socklen_t len;
    sockaddr_un a = abstract_addr(job_id_, pe, &len);
    if (::connect(s.get(), reinterpret_cast<sockaddr*>(&a), len) != 0) {
      if (errno == ECONNREFUSED || errno == ENOENT) {
        SHMEM_DEBUG_LOG("shm", "PE %d is not reachable over shared memory (another network namespace): remote", pe);
        continue;
      }
      fail("connecting to PE " + std::to_string(pe));
    }
    Hello h{kMagic, my_pe_, static_cast<std::uint32_t>(secret_.size())};
    if (!write_full(s.get(), &h, sizeof h) || !write_full(s.get(), secret_.data(), secret_.size()))
      fail("sending to PE " + std::to_string(pe));
    out.push_back(std::move(s));
    reached.push_back(pe);
  }
  // 2. Serve every peer's request.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (std::size_t served = 0; served < reached.size();) {
    pollfd p{listener_.get(), POLLIN, 0};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      throw Error(Errc::kTimeout, "segment exchange: only " + std::to_string(served) + " of " +
                                      std::to_string(reached.size()) + " node peers asked for our segments within " +
                                      std::to_string(timeout.count() / 1000) + " s (SHMEM_BOOTSTRAP_TIMEOUT)");
    int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (r < 0 && errno != EINTR) fail("poll");
    if (r <= 0) continue;
    util::UniqueFd conn(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!conn) continue;
    set_timeout(conn.get(), std::chrono::milliseconds(5000));
    if (serve_one(conn.get(), my_pe_, secret_, heap, data)) ++served;
  }
  // 3. Collect the answers.
  std::vector<PeerSegments> result;
  result.reserve(reached.size());
  for (std::size_t i = 0; i < reached.size(); ++i) result.push_back(receive(out[i].get(), reached[i]));
  listener_.reset();
  return result;
}

}  // namespace shmem::transport::shm

namespace shmem::transport {

std::unique_ptr<NodeExchange> listen_node(const std::string& job_id, int my_pe, const std::string& secret) {
  return std::make_unique<shm::FdExchange>(job_id, my_pe, secret);
}

}  // namespace shmem::transport
