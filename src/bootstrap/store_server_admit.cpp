// The store server's admission (store_server_impl.hpp): accepting connections, and the limits
// on those that have not said hello yet, per source address and in total. An idle handshake may
// be closed to make room; when none may, the listener pauses and new connections wait in the
// kernel's queue: load turns into waiting, never into an error (docs/design.md, "Bootstrap").
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "bootstrap/store_server_impl.hpp"
#include "base/log.hpp"
#include "util/socket.hpp"

namespace shmem::bootstrap {

using server_detail::Clock;
using server_detail::Conn;
using server_detail::kEvictAfter;
using server_detail::ms_text;
using server_detail::Phase;

namespace {

constexpr int kAcceptsPerWakeup = 64;
// A listener paused this long (every handshake slot busy) is worth a warning.
constexpr auto kPausedWarnAfter = std::chrono::seconds(5);

// "1.2.3.4:5" -> "1.2.3.4", "[::1]:5" -> "::1".
std::string source_of(const std::string& peer) {
  if (!peer.empty() && peer.front() == '[') {
    const auto close = peer.find(']');
    return close == std::string::npos ? peer : peer.substr(1, close - 1);
  }
  const auto colon = peer.rfind(':');
  return colon == std::string::npos ? peer : peer.substr(0, colon);
}

}  // namespace

void StoreServer::Impl::set_admission_limits() {
  // Connections without hello may use at most half of the descriptors the process may open.
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
    max_pending_total = std::clamp<std::size_t>(rl.rlim_cur / 2, 16, 512);
    max_pending_per_source = std::min<std::size_t>(max_pending_per_source, max_pending_total);
  }
}

void StoreServer::Impl::note_pending_end(Conn& c) {
  if (!c.pending()) return;
  --pending_total;
  auto it = pending_by_source.find(c.source);
  if (it != pending_by_source.end() && --it->second == 0) pending_by_source.erase(it);
}

// A connection without hello that has sent nothing at all for kEvictAfter (of `source` when
// given; the oldest first). One that has sent its first bytes is progressing, however slowly
// the loop gets to it, and is never closed to make room: that turned load into failures.
Conn* StoreServer::Impl::evictable(const std::string* source, Clock::time_point now) {
  Conn* oldest = nullptr;
  for (auto& [id, cp] : conns) {
    Conn& c = *cp;
    if (!c.pending() || c.heard || now - c.accepted < kEvictAfter) continue;
    if (source && c.source != *source) continue;
    if (oldest && c.accepted >= oldest->accepted) continue;
    int waiting = 0;
    if (::ioctl(c.fd.get(), FIONREAD, &waiting) == 0 && waiting > 0) {
      c.heard = true;  // its bytes are in the socket: the loop just has not read them yet
      continue;
    }
    oldest = &c;
  }
  return oldest;
}

void StoreServer::Impl::pause_listen(bool pause) {
  if (pause == listen_paused) return;
  epoll_event ev{};
  ev.events = pause ? 0u : static_cast<unsigned>(EPOLLIN);
  ev.data.fd = listen_fd.get();
  if (::epoll_ctl(epoll_fd.get(), EPOLL_CTL_MOD, listen_fd.get(), &ev) != 0) return;
  listen_paused = pause;
  if (pause) {
    paused_since = Clock::now();
    paused_warned = false;
  }
  SHMEM_DEBUG_LOG("store", "%s accepting: %zu handshakes in progress (at most %zu)", pause ? "paused" : "resumed",
                  pending_total, max_pending_total);
}

void StoreServer::Impl::resume_or_warn(Clock::time_point now) {
  if (pending_total < max_pending_total || evictable(nullptr, now)) {
    pause_listen(false);  // level-triggered: the queue's connections are reported at once
    return;
  }
  if (!paused_warned && now - paused_since >= kPausedWarnAfter) {
    paused_warned = true;
    warnings.warn("any", "handshake slots full", false,
                  "new connections have waited " + ms_text(now - paused_since) + ": all " +
                      std::to_string(max_pending_total) +
                      " handshake slots (half the open-file limit, at most 512) are taken by clients still in "
                      "their handshake; they wait in the listen queue, none is refused (raise ulimit -n for more "
                      "at once; a store short of CPU is slower)");
  }
}

void StoreServer::Impl::on_listen() {
  for (int k = 0; k < kAcceptsPerWakeup; ++k) {
    if (pending_total >= max_pending_total) {
      // Every handshake slot is taken. Close an idle one if there is one; otherwise leave the
      // rest in the listen queue until a handshake ends (the clients wait; none is refused).
      if (Conn* idle = evictable(nullptr, Clock::now()))
        drop(*idle, "closed to make room: it sent nothing", "open for " + ms_text(Clock::now() - idle->accepted));
      else {
        pause_listen(true);
        return;
      }
    }
    sockaddr_storage sa{};
    socklen_t len = sizeof sa;
    int fd = ::accept4(listen_fd.get(), reinterpret_cast<sockaddr*>(&sa), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      const int e = errno;
      if (e == EAGAIN || e == EWOULDBLOCK) return;
      if (e == EINTR || e == ECONNABORTED) continue;
      if ((e == EMFILE || e == ENFILE) && spare_fd) {
        // Out of descriptors: use the spare one to take the connection off the queue and close
        // it, rather than leave the listener readable forever. The client retries.
        spare_fd.reset();
        int victim = ::accept4(listen_fd.get(), nullptr, nullptr, SOCK_CLOEXEC);
        if (victim >= 0) ::close(victim);
        spare_fd.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
        warnings.warn("any", "out of file descriptors", false,
                      std::string("turned a connection away: the process is out of file descriptors (") +
                          std::strerror(e) + "; raise the open-file limit, ulimit -n); the client retries");
        continue;
      }
      warnings.warn("any", "accept failed", false, std::string("cannot accept a connection: ") + std::strerror(e));
      return;
    }
    util::UniqueFd owned(fd);
    const auto now = Clock::now();
    std::string peer = util::format_address(reinterpret_cast<sockaddr*>(&sa), len);
    std::string source = source_of(peer);
    if (auto it = pending_by_source.find(source);
        it != pending_by_source.end() && it->second >= max_pending_per_source) {
      // One source may hold only so many handshakes: close its oldest idle one, or turn this
      // one away (its client retries: an honest client sees a busy store, never an error).
      if (Conn* idle = evictable(&source, now)) {
        drop(*idle, "closed to make room: it sent nothing", "open for " + ms_text(now - idle->accepted));
      } else {
        SHMEM_DEBUG_LOG("store", "turned away a connection from %s: %zu handshakes from %s in progress", peer.c_str(),
                        max_pending_per_source, source.c_str());
        continue;  // owned closes it
      }
    }
    auto c = std::make_unique<Conn>();
    c->fd = std::move(owned);
    c->peer = std::move(peer);
    c->source = source;
    c->ch = Channel(c->fd.get());
    c->phase = tls ? Phase::kTls : Phase::kHello;
    c->accepted = now;
    c->handshake_deadline = now + opts.io_timeout;
    util::set_nodelay(c->fd.get());
    util::set_keepalive(c->fd.get(), host_timeout);  // a silent peer host is given up (util/socket.hpp)
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.fd = c->fd.get();
    if (::epoll_ctl(epoll_fd.get(), EPOLL_CTL_ADD, c->fd.get(), &ev) != 0) {
      warnings.warn("any", "epoll_ctl failed", false,
                    std::string("cannot watch a connection: ") + std::strerror(errno));
      continue;
    }
    c->events = ev.events;
    ++pending_by_source[c->source];
    ++pending_total;
    conns.emplace(c->fd.get(), std::move(c));
    ++conns_total;
    conns_peak = std::max(conns_peak, ++sockets_open);
  }
}

}  // namespace shmem::bootstrap
