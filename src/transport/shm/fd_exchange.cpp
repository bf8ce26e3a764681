#include "transport/shm/fd_exchange.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "base/error.hpp"
#include "base/log.hpp"
#include "util/fd_pass.hpp"
#include "util/socket.hpp"

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

// Serves one peer's request: checks uid and secret, replies with our descriptors.
bool serve_one(int conn, int my_pe, const std::string& secret, const SegmentDesc& heap, const SegmentDesc& data) {
  ucred cred{};
  socklen_t cl = sizeof cred;
  if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0 || cred.uid != getuid()) {
    SHMEM_WARN("shm", "refused a segment request from uid %u (not ours)", cred.uid);
    return false;
  }
  Hello h{};
  if (!util::recv_all(conn, &h, sizeof h).ok() || h.magic != kMagic || h.secret_len != secret.size()) {
    SHMEM_WARN("shm", "refused a malformed segment request (pid %d)", (int)cred.pid);
    return false;
  }
  std::string got(h.secret_len, '\0');
  if (!util::recv_all(conn, got.data(), got.size()).ok() || got != secret) {
    SHMEM_WARN("shm", "refused a segment request without the job secret (pid %d)", (int)cred.pid);
    return false;
  }
  Reply rep{kMagic, my_pe, heap.size, heap.addr, data.size, data.addr, data.fd >= 0 ? 2u : 1u};
  const int fds[2] = {heap.fd, data.fd};
  if (!util::send_with_fds(conn, {reinterpret_cast<const char*>(&rep), sizeof rep}, {fds, rep.nfds}))
    fail("sending descriptors to PE " + std::to_string(h.pe));
  return true;
}

PeerSegments receive(int fd, int pe) {
  Reply rep{};
  std::array<util::UniqueFd, 2> fds;
  const std::size_t got = util::recv_with_fds(fd, {reinterpret_cast<char*>(&rep), sizeof rep}, fds);
  if (got != sizeof rep || rep.magic != kMagic || rep.pe != pe)
    throw Error(Errc::kBootstrap, "segment exchange: PE " + std::to_string(pe) +
                                      " refused or did not answer (different job secret or uid?)");
  PeerSegments out;
  out.pe = pe;
  out.heap.size = rep.heap_size;
  out.heap.addr = rep.heap_addr;
  out.data.size = rep.data_size;
  out.data.addr = rep.data_addr;
  out.heap_fd = std::move(fds[0]);
  out.data_fd = std::move(fds[1]);
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
    util::set_io_timeouts(s.get(), timeout, timeout);
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
    if (!util::send_all(s.get(), &h, sizeof h).ok() || !util::send_all(s.get(), secret_.data(), secret_.size()).ok())
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
    util::set_io_timeouts(conn.get(), std::chrono::milliseconds(5000), std::chrono::milliseconds(5000));
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
