// TcpLinks: TCP connections to the ranks on other hosts for large all_to_all blocks (tcp_links.hpp).
#include "tcp_links.hpp"

#include <arpa/inet.h>
#include <c10/util/Exception.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <shmem.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace shmem_torch {

namespace {

constexpr std::uint32_t kMagic = 0x73684c4b;  // "shLK"
constexpr int kMaxAddrs = 4;
constexpr std::size_t kTokenBytes = 32;
// Setup's bounds: one connection attempt, and all of a rank's setup (its peers' own attempts
// at wrong addresses come first).
constexpr int kConnectMs = 5000;
constexpr auto kSetupLimit = std::chrono::seconds(60);

// What a rank publishes in symmetric memory for its peers (read with shmem_getmem).
struct Card {
  std::uint32_t magic;
  std::uint16_t port;  // network order
  std::uint16_t naddrs;
  std::uint32_t addr[kMaxAddrs];  // network order
  std::uint32_t mask[kMaxAddrs];
  unsigned char token[kTokenBytes];
};

// The connector's first words and the acceptor's answer.
struct Hello {
  std::uint32_t magic;
  std::uint32_t rank;
  unsigned char token[kTokenBytes];  // the acceptor's
};
struct Answer {
  std::uint32_t magic;
  std::uint32_t pad;
  unsigned char token[kTokenBytes];  // the connector's
};

using Clock = std::chrono::steady_clock;

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

std::string ip_text(std::uint32_t addr_net) {
  char buf[INET_ADDRSTRLEN] = {};
  in_addr a{};
  a.s_addr = addr_net;
  ::inet_ntop(AF_INET, &a, buf, sizeof buf);
  return buf;
}

bool same_token(const unsigned char* a, const unsigned char* b) {
  unsigned char diff = 0;  // constant time
  for (std::size_t i = 0; i < kTokenBytes; ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// Up, non-loopback IPv4 addresses (SHMEM_BOOTSTRAP_IFACE's only, when set and it has one),
// else the loopback address.
void local_addresses(Card& c) {
  c.naddrs = 0;
  const char* only = std::getenv("SHMEM_BOOTSTRAP_IFACE");
  ifaddrs* all = nullptr;
  if (::getifaddrs(&all) == 0) {
    for (int pass = 0; pass < 2 && c.naddrs == 0; ++pass) {  // pass 1: any interface
      for (ifaddrs* i = all; i != nullptr && c.naddrs < kMaxAddrs; i = i->ifa_next) {
        if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
        if (!(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK)) continue;
        if (pass == 0 && only != nullptr && *only != '\0' && std::strcmp(i->ifa_name, only) != 0) continue;
        c.addr[c.naddrs] = reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr;
        c.mask[c.naddrs] = i->ifa_netmask ? reinterpret_cast<sockaddr_in*>(i->ifa_netmask)->sin_addr.s_addr : 0;
        ++c.naddrs;
      }
    }
    ::freeifaddrs(all);
  }
  if (c.naddrs == 0) {
    c.addr[0] = htonl(INADDR_LOOPBACK);
    c.mask[0] = htonl(0xff000000u);
    c.naddrs = 1;
  }
}

// The peer's addresses, those on a subnet of one of this host's first.
std::vector<std::uint32_t> ordered_addresses(const Card& peer, const Card& mine) {
  std::vector<std::uint32_t> near, far;
  for (int i = 0; i < peer.naddrs && i < kMaxAddrs; ++i) {
    bool shared = false;
    for (int k = 0; k < mine.naddrs; ++k)
      shared = shared || (mine.mask[k] != 0 && (peer.addr[i] & mine.mask[k]) == (mine.addr[k] & mine.mask[k]));
    (shared ? near : far).push_back(peer.addr[i]);
  }
  near.insert(near.end(), far.begin(), far.end());
  return near;
}

// Waits until fd is ready for `events` or the deadline passes; false on a timeout.
bool wait_fd(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

// All of buf through a nonblocking socket by the deadline; an error text, or empty.
std::string io_all(int fd, void* buf, std::size_t len, bool out, Clock::time_point deadline) {
  auto* p = static_cast<char*>(buf);
  while (len > 0) {
    const ssize_t n = out ? ::send(fd, p, len, MSG_NOSIGNAL) : ::recv(fd, p, len, 0);
    if (n > 0) {
      p += n;
      len -= static_cast<std::size_t>(n);
      continue;
    }
    if (n == 0) return "the connection closed";
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return errno_text(out ? "send" : "recv");
    if (!wait_fd(fd, out ? POLLOUT : POLLIN, deadline)) return "no answer in time";
  }
  return {};
}

void tune(int fd) {
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// Connects to addr:port (network order) by the deadline; the socket (nonblocking), or none and why.
OwnedFd connect_to(std::uint32_t addr, std::uint16_t port, Clock::time_point deadline, std::string& why) {
  OwnedFd s(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!s.open()) {
    why = errno_text("socket");
    return s;
  }
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = port;
  sa.sin_addr.s_addr = addr;
  if (::connect(s.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    if (errno != EINPROGRESS) {
      why = errno_text("connect");
      return OwnedFd();
    }
    if (!wait_fd(s.get(), POLLOUT, deadline)) {
      why = "connect: no answer in time";
      return OwnedFd();
    }
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(s.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      why = std::string("connect: ") + std::strerror(err);
      return OwnedFd();
    }
  }
  tune(s.get());
  return s;
}

}  // namespace

TcpLinks::TcpLinks(int rank, int size, const std::vector<char>& remote)
    : rank_(rank), size_(size), fd_(static_cast<std::size_t>(size)) {
  const auto n = static_cast<std::size_t>(size);
  const auto me = static_cast<std::size_t>(rank);
  // Symmetric: this rank's card, then the min-reduction's two words.
  auto* card = static_cast<Card*>(shmem_malloc(sizeof(Card) + 2 * sizeof(int)));
  TORCH_CHECK(card != nullptr, "shmem backend: no room for ", sizeof(Card),
              " bytes on the symmetric heap (raise SHMEM_SYMMETRIC_SIZE)");
  int* ok_words = reinterpret_cast<int*>(card + 1);
  std::string why;  // this rank's first failure

  OwnedFd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  Card mine{};
  mine.magic = kMagic;
  local_addresses(mine);
  if (::getrandom(mine.token, kTokenBytes, 0) != static_cast<ssize_t>(kTokenBytes)) why = errno_text("getrandom");
  {
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t len = sizeof sa;
    if (why.empty() && !listener.open()) why = errno_text("socket");
    if (why.empty() && ::bind(listener.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0)
      why = errno_text("bind");
    if (why.empty() && ::listen(listener.get(), size) != 0) why = errno_text("listen");
    if (why.empty() && ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&sa), &len) != 0)
      why = errno_text("getsockname");
    mine.port = sa.sin_port;
  }
  if (!why.empty()) mine.magic = 0;  // peers see this rank cannot take connections
  *card = mine;
  shmem_barrier_all();  // every card is written

  std::vector<Card> cards(n);
  for (std::size_t j = 0; j < n; ++j)
    if (remote[j]) shmem_getmem(&cards[j], card, sizeof(Card), static_cast<int>(j));

  const auto deadline = Clock::now() + kSetupLimit;
  // Accept from the higher remote ranks in a thread while this one connects to the lower ones
  // (which accept in theirs), so no rank's connecting waits on another's.
  std::size_t expected = 0;
  for (std::size_t j = me + 1; j < n; ++j) expected += remote[j] ? 1 : 0;
  std::string accept_why;
  std::atomic<bool> stop_accepting{false};  // a connector somewhere gave up: none will come
  std::thread acceptor;
  if (why.empty() && expected > 0) {
    ::fcntl(listener.get(), F_SETFL, ::fcntl(listener.get(), F_GETFL) | O_NONBLOCK);
    acceptor = std::thread([&] {
      std::size_t have = 0;
      while (have < expected) {
        if (!wait_fd(listener.get(), POLLIN, std::min(deadline, Clock::now() + std::chrono::milliseconds(100)))) {
          if (stop_accepting.load()) return;
          if (Clock::now() < deadline) continue;
          accept_why =
              "no connection from every rank on another host within " + std::to_string(kSetupLimit.count()) + " s";
          return;
        }
        OwnedFd c(::accept4(listener.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
        if (!c.open()) continue;
        Hello h{};
        if (!io_all(c.get(), &h, sizeof h, false,
                    std::min(deadline, Clock::now() + std::chrono::milliseconds(kConnectMs)))
                 .empty())
          continue;
        const std::size_t from = h.rank;
        if (h.magic != kMagic || from <= me || from >= n || !remote[from] || fd_[from].open() ||
            !same_token(h.token, mine.token))
          continue;  // a stranger: closed
        Answer a{kMagic, 0, {}};
        std::memcpy(a.token, cards[from].token, kTokenBytes);
        if (!io_all(c.get(), &a, sizeof a, true, deadline).empty()) continue;
        tune(c.get());
        fd_[from] = std::move(c);
        ++have;
      }
    });
  }
  for (std::size_t j = 0; j < me && why.empty(); ++j) {
    if (!remote[j]) continue;
    if (cards[j].magic != kMagic) {
      why = "rank " + std::to_string(j) + " could not listen";
      break;
    }
    std::string tried;
    for (const std::uint32_t addr : ordered_addresses(cards[j], mine)) {
      std::string fail;
      const auto by = std::min(deadline, Clock::now() + std::chrono::milliseconds(kConnectMs));
      OwnedFd s(connect_to(addr, cards[j].port, by, fail));
      if (s.open()) {
        Hello h{kMagic, static_cast<std::uint32_t>(rank), {}};
        std::memcpy(h.token, cards[j].token, kTokenBytes);
        Answer a{};
        fail = io_all(s.get(), &h, sizeof h, true, by);
        if (fail.empty()) fail = io_all(s.get(), &a, sizeof a, false, deadline);
        if (fail.empty() && (a.magic != kMagic || !same_token(a.token, mine.token))) fail = "a stranger answered";
        if (fail.empty()) {
          fd_[j] = std::move(s);
          break;
        }
      }
      tried += (tried.empty() ? "" : "; ") + ip_text(addr) + ":" + std::to_string(ntohs(cards[j].port)) + ": " + fail;
    }
    if (!fd_[j].open()) why = "could not connect to rank " + std::to_string(j) + " (" + tried + ")";
  }
  // Every rank learns whether every connector got through, before any waits on: when one gave
  // up, the acceptors stop now instead of at the deadline. Then whether every acceptor has all
  // (it has, unless strangers held it up until the deadline).
  auto all_ranks = [&](bool mine_ok) {
    ok_words[0] = mine_ok ? 1 : 0;
    shmem_barrier_all();
    shmem_int_min_reduce(SHMEM_TEAM_WORLD, ok_words + 1, ok_words, 1);
    return ok_words[1] == 1;
  };
  ok_ = all_ranks(why.empty());
  if (!ok_) stop_accepting.store(true);
  if (acceptor.joinable()) acceptor.join();
  if (ok_) {
    why = accept_why;
    ok_ = all_ranks(why.empty());
  }
  shmem_barrier_all();  // no rank frees the card while a peer may still read it
  shmem_free(card);
  if (!ok_) {
    for (OwnedFd& f : fd_) f = OwnedFd();
    if (!why.empty())
      TORCH_WARN("shmem backend: all_to_all: rank ", rank, ": ", why,
                 "; large blocks to other hosts keep the library's transport (set SHMEM_BOOTSTRAP_IFACE to "
                 "the interface the hosts reach each other on)");
  }
}

bool TcpLinks::Flow::done() const { return sent == 8 + b.send_bytes && received == 8 + b.recv_bytes; }

void TcpLinks::start(const std::vector<Block>& blocks) {
  flows_.clear();
  for (const Block& b : blocks) {
    TORCH_CHECK(b.peer >= 0 && b.peer < size_ && fd_[static_cast<std::size_t>(b.peer)].open(),
                "shmem backend: all_to_all: no connection to rank ", b.peer);
    Flow f;
    f.b = b;
    f.send_len = b.send_bytes;
    flows_.push_back(f);
  }
}

bool TcpLinks::move(Flow& f) {
  const int fd = fd_[static_cast<std::size_t>(f.b.peer)].get();
  bool moved = false;
  // The length word, then the block, in one call each way.
  auto iov_for = [](std::size_t at, void* word, char* data, std::size_t bytes, iovec* v) {
    int k = 0;
    if (at < 8) v[k++] = iovec{static_cast<char*>(word) + at, 8 - at};
    const std::size_t from = at < 8 ? 0 : at - 8;
    if (bytes > from) v[k++] = iovec{data + from, bytes - from};
    return k;
  };
  while (f.sent < 8 + f.b.send_bytes) {
    iovec v[2];
    msghdr m{};
    m.msg_iov = v;
    m.msg_iovlen =
        static_cast<std::size_t>(iov_for(f.sent, &f.send_len, const_cast<char*>(f.b.send), f.b.send_bytes, v));
    const ssize_t k = ::sendmsg(fd, &m, MSG_NOSIGNAL);
    if (k > 0) {
      f.sent += static_cast<std::size_t>(k);
      moved = true;
      continue;
    }
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    TORCH_CHECK(false, "shmem backend: all_to_all: sending to rank ", f.b.peer, " failed (",
                k < 0 ? std::strerror(errno) : "connection closed", "; did rank ", f.b.peer, " fail?)");
  }
  while (f.received < 8 + f.b.recv_bytes) {
    iovec v[2];
    const int parts = iov_for(f.received, &f.recv_len, f.b.recv, f.b.recv_bytes, v);
    const ssize_t k = ::readv(fd, v, parts);
    if (k > 0) {
      const bool had_word = f.received >= 8;
      f.received += static_cast<std::size_t>(k);
      moved = true;
      TORCH_CHECK(had_word || f.received < 8 || f.recv_len == f.b.recv_bytes, "shmem backend: all_to_all: rank ",
                  f.b.peer, " sends a block of ", f.recv_len, " bytes to rank ", rank_, ", which expects ",
                  f.b.recv_bytes, " (the ranks' split sizes disagree)");
      continue;
    }
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    TORCH_CHECK(false, "shmem backend: all_to_all: receiving from rank ", f.b.peer, " failed (",
                k < 0 ? std::strerror(errno) : "connection closed", "; did rank ", f.b.peer, " fail?)");
  }
  return moved;
}

bool TcpLinks::progress(int timeout_ms) {
  for (;;) {
    bool moved = false;
    std::size_t open = 0;
    for (Flow& f : flows_) {
      if (f.done()) continue;
      moved = move(f) || moved;
      open += f.done() ? 0 : 1;
    }
    if (open == 0) return true;
    if (moved || timeout_ms == 0) return false;
    std::vector<pollfd> p;
    for (const Flow& f : flows_) {
      if (f.done()) continue;
      short ev = 0;
      if (f.sent < 8 + f.b.send_bytes) ev |= POLLOUT;
      if (f.received < 8 + f.b.recv_bytes) ev |= POLLIN;
      p.push_back(pollfd{fd_[static_cast<std::size_t>(f.b.peer)].get(), ev, 0});
    }
    const int r = ::poll(p.data(), p.size(), timeout_ms < 0 ? 1000 : timeout_ms);
    if (r == 0 && timeout_ms > 0) return false;
  }
}

}  // namespace shmem_torch
