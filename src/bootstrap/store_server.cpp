// The store server: one acceptor thread, then one thread per connection with blocking I/O.
// A stalled or malicious client therefore only ever blocks its own thread; jobs have at most a
// few hundred PEs, so a thread each is cheap.
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "bootstrap/store_server_impl.hpp"
#include "base/error.hpp"
#include "base/log.hpp"
#include "util/scope_exit.hpp"
#include "util/socket.hpp"

namespace shmem::bootstrap {

using namespace wire;
using Clock = std::chrono::steady_clock;
using server_detail::Conn;
using server_detail::Session;
using server_detail::Violation;
using server_detail::WaitEnd;

namespace {

// How often a blocked request looks whether its own client has gone away.
constexpr Millis kHangupCheck{200};

// What an OpenSSL handshake failure most likely means, for the server's log line.
const char* handshake_hint(const std::string& why, bool psk) {
  if (why.find("binder does not verify") != std::string::npos) return " (the client's job secret differs)";
  if (psk && (why.find("no suitable signature algorithm") != std::string::npos ||
              why.find("no shared cipher") != std::string::npos))
    return " (the client offered no job-secret key)";
  if (why.find("wrong version number") != std::string::npos || why.find("unexpected message") != std::string::npos ||
      why.find("packet length too long") != std::string::npos)
    return " (not a TLS 1.3 client; is SHMEM_BOOTSTRAP_TLS the same everywhere?)";
  return "";
}

}  // namespace

// ---- connection handling -------------------------------------------------------------------

void StoreServer::Impl::drop(Session& s, const char* reason, const std::string& detail) {
  SHMEM_WARN("store", "closing connection from %s%s: %s%s%s", s.conn->peer.c_str(),
             s.rank >= 0 ? (" (PE " + std::to_string(s.rank) + ")").c_str() : "", reason,
             detail.empty() ? "" : ": ", detail.c_str());
}

bool StoreServer::Impl::read_frame(Session& s, bool first, Header* h, std::string* payload) {
  int fd = s.conn->fd.get();
  // Between requests a client may stay silent for as long as it likes; once a frame has begun
  // (or for the first frame, the hello), io_timeout bounds it.
  if (!first && !s.ch->has_buffered_input()) util::wait_readable(fd, -1);
  unsigned char hdr[kHeaderSize];
  util::IoResult r = s.ch->read(hdr, sizeof hdr);
  bool quiet = false;
  {
    std::lock_guard<std::mutex> g(mu);
    quiet = stopping;
  }
  if (!r.ok()) {
    if (quiet) return false;
    if (r.status == util::IoResult::kEof && r.done == 0) {
      if (first) SHMEM_DEBUG_LOG("store", "connection from %s closed before hello", s.conn->peer.c_str());
      return false;
    }
    if (r.status == util::IoResult::kTimeout)
      drop(s, first ? "no hello within the handshake timeout" : "stalled in the middle of a frame header", "");
    else if (r.status == util::IoResult::kEof)
      drop(s, "truncated frame", "connection closed after " + std::to_string(r.done) + " header bytes");
    else
      drop(s, "read error", s.ch->describe(r));
    return false;
  }
  std::string detail;
  if (const char* bad = decode_header(hdr, false, h, &detail)) {
    drop(s, bad, detail);
    return false;
  }
  // Before hello nobody is authenticated (on plain TCP): allow only a hello-sized frame, so
  // an anonymous peer cannot make the server reserve a large buffer.
  if (first && h->length > kHeaderSize + kMaxKey) {
    drop(s, "frame too large for a hello", std::to_string(h->length) + " bytes");
    return false;
  }
  payload->resize(h->length);
  if (h->length) {
    r = s.ch->read(payload->data(), h->length);
    if (!r.ok()) {
      if (quiet) return false;
      if (r.status == util::IoResult::kTimeout)
        drop(s, "stalled in the middle of a frame",
             std::to_string(r.done) + " of " + std::to_string(h->length) + " payload bytes received");
      else if (r.status == util::IoResult::kEof)
        drop(s, "truncated frame",
             "connection closed after " + std::to_string(r.done) + " of " + std::to_string(h->length) +
                 " payload bytes");
      else
        drop(s, "read error", s.ch->describe(r));
      return false;
    }
  }
  return true;
}

bool StoreServer::Impl::reply(Session& s, const Header& h, FrameWriter& w) {
  std::string frame = w.finish(static_cast<std::uint16_t>(h.op | kReplyBit), h.id);
  util::IoResult r = s.ch->write(frame.data(), frame.size());
  if (r.ok()) return true;
  bool quiet;
  {
    std::lock_guard<std::mutex> g(mu);
    quiet = stopping;
  }
  if (!quiet) drop(s, "cannot send a reply", s.ch->describe(r));
  return false;
}

bool StoreServer::Impl::reply_error(Session& s, const Header& h, Status st, const std::string& msg) {
  FrameWriter w;
  w.u32(static_cast<std::uint32_t>(st)).bytes(msg.size() > kMaxKey * 4 ? msg.substr(0, kMaxKey * 4) : msg);
  return reply(s, h, w);
}

WaitEnd StoreServer::Impl::wait(std::unique_lock<std::mutex>& lk, Session& s, std::int64_t timeout_ms,
                                const std::function<bool()>& ready) {
  bool bounded = timeout_ms >= 0 && timeout_ms < (std::int64_t{1} << 40);
  Clock::time_point deadline = bounded ? Clock::now() + Millis(timeout_ms) : Clock::time_point::max();
  ++blocked;
  cv.notify_all();
  util::ScopeExit unblock([&] { --blocked; });
  Clock::time_point next_check = Clock::now() + kHangupCheck;
  for (;;) {
    if (stopping) return WaitEnd::kStopping;
    if (failed) return WaitEnd::kFailed;
    if (ready()) return WaitEnd::kReady;
    Clock::time_point now = Clock::now();
    if (now >= deadline) return WaitEnd::kTimeout;
    if (now >= next_check) {
      // A client that went away while blocked would otherwise hold this thread (and, for a
      // PE, hide its loss) until the key appears.
      if (util::peer_hung_up(s.conn->fd.get())) {
        s.hung_up = true;
        return WaitEnd::kHungUp;
      }
      next_check = now + kHangupCheck;
    }
    cv.wait_until(lk, std::min(deadline, next_check));
  }
}

void StoreServer::Impl::enter_failed(const std::string& reason) {
  {
    std::lock_guard<std::mutex> g(mu);
    if (failed) return;
    failed = true;
    fail_reason = reason;
  }
  cv.notify_all();
  SHMEM_INFO_LOG("store", "store failed: %s", reason.c_str());
}

void StoreServer::Impl::rank_lost(int rank) {
  std::string reason = "PE " + std::to_string(rank) + " lost: connection closed before shmem_finalize";
  {
    std::lock_guard<std::mutex> g(mu);
    if (stopping) return;
    if (failed) {
      // The job is already failing (or exiting globally); further losses are its consequence.
      SHMEM_INFO_LOG("store", "PE %d disconnected after the store failed (%s)", rank, fail_reason.c_str());
      return;
    }
    failed = true;
    fail_reason = reason;
  }
  cv.notify_all();
  // With a callback the owner (the launcher) reports the loss itself, once.
  if (opts.on_rank_lost)
    SHMEM_INFO_LOG("store", "%s", reason.c_str());
  else
    SHMEM_ERROR("store", "%s", reason.c_str());
  if (opts.on_rank_lost) {
    try {
      opts.on_rank_lost(rank, reason);
    } catch (const std::exception& e) {
      SHMEM_ERROR("store", "on_rank_lost callback threw: %s", e.what());
    } catch (...) {
      SHMEM_ERROR("store", "on_rank_lost callback threw");
    }
  }
}

void StoreServer::Impl::serve(Conn& c) {
  int fd = c.fd.get();
  util::set_io_timeouts(fd, opts.io_timeout, opts.io_timeout);
  Channel ch(fd);
  Session s;
  s.conn = &c;
  s.ch = &ch;
  util::ScopeExit finish([&] {
    ch.close_notify();
    ::shutdown(fd, SHUT_RDWR);
    if (s.rank >= 0 && !s.said_goodbye) rank_lost(s.rank);
    c.done.store(true);
  });
  if (tls) {
    std::string why;
    if (!ch.start_tls(*tls, &why)) {
      bool quiet;
      {
        std::lock_guard<std::mutex> g(mu);
        quiet = stopping;
      }
      if (!quiet)
        SHMEM_WARN("store", "authentication failed from %s: TLS handshake failed: %s%s", c.peer.c_str(), why.c_str(),
                   handshake_hint(why, !tls->uses_certificates()));
      return;
    }
  }
  std::string payload;
  for (bool first = true;; first = false) {
    Header h;
    if (!read_frame(s, first, &h, &payload)) return;
    if (first && h.op != static_cast<std::uint16_t>(Op::kHello)) {
      drop(s, "expected hello first", std::string("got ") + op_name(static_cast<Op>(h.op)));
      return;
    }
    try {
      {
        std::lock_guard<std::mutex> g(mu);
        ++in_flight;
      }
      util::ScopeExit done([&] {
        {
          std::lock_guard<std::mutex> g(mu);
          --in_flight;
        }
        cv.notify_all();
      });
      if (!handle(s, h, payload)) return;
    } catch (const FrameError& e) {
      drop(s, "malformed payload", std::string(op_name(static_cast<Op>(h.op))) + ": " + e.what());
      return;
    } catch (const Violation& v) {
      drop(s, "protocol violation", v.reason);
      return;
    } catch (const std::bad_alloc&) {
      drop(s, "out of memory handling a request", "");
      return;
    }
    if (s.hung_up) return;
    // Large values are not kept around in idle connections.
    if (payload.capacity() > (std::size_t{1} << 20)) std::string().swap(payload);
  }
}

void StoreServer::Impl::reap_locked() {
  for (auto it = conns.begin(); it != conns.end();) {
    if ((*it)->done.load()) {
      if ((*it)->thread.joinable()) (*it)->thread.join();
      it = conns.erase(it);
    } else {
      ++it;
    }
  }
}

void StoreServer::Impl::accept_loop() {
  for (;;) {
    pollfd p[2] = {{listen_fd.get(), POLLIN, 0}, {wake_fd.get(), POLLIN, 0}};
    int rc = ::poll(p, 2, -1);
    if (rc < 0) {
      if (errno == EINTR) continue;
      SHMEM_ERROR("store", "poll on the listening socket failed: %s", std::strerror(errno));
      return;
    }
    if (p[1].revents) return;
    if (!(p[0].revents & POLLIN)) {
      SHMEM_ERROR("store", "listening socket failed (revents 0x%x)", p[0].revents);
      return;
    }
    util::UniqueFd fd = util::tcp_accept(listen_fd.get());
    if (!fd) {
      int e = errno;
      if (e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM) {
        SHMEM_WARN("store", "cannot accept a connection: %s", std::strerror(e));
        pollfd w{wake_fd.get(), POLLIN, 0};  // back off, but stay responsive to shutdown
        if (::poll(&w, 1, 100) > 0) return;
      }
      continue;
    }
    auto conn = std::make_unique<Conn>();
    conn->peer = util::peer_address(fd.get());
    conn->fd = std::move(fd);
    std::lock_guard<std::mutex> g(conns_mu);
    reap_locked();
    Conn& ref = *conn;
    conns.push_back(std::move(conn));
    try {
      ref.thread = std::thread([this, &ref] { serve(ref); });
    } catch (const std::system_error& e) {
      SHMEM_WARN("store", "cannot start a thread for %s: %s", ref.peer.c_str(), e.what());
      conns.pop_back();
    }
  }
}

// ---- public interface ----------------------------------------------------------------------

StoreServer::StoreServer(Options opts) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.opts = std::move(opts);
  if (m.opts.tls.enabled) m.tls = std::make_unique<TlsContext>(m.opts.tls, TlsContext::Role::kServer);
  m.listen_fd = util::tcp_listen(m.opts.bind_host, m.opts.port);
  m.port = util::local_port(m.listen_fd.get());
  m.wake_fd.reset(::eventfd(0, EFD_CLOEXEC));
  if (!m.wake_fd) throw Error(Errc::kInternal, std::string("eventfd: ") + std::strerror(errno));
  try {
    m.acceptor = std::thread([&m] { m.accept_loop(); });
  } catch (const std::system_error& e) {
    throw Error(Errc::kInternal, std::string("cannot start the store server thread: ") + e.what());
  }
  SHMEM_DEBUG_LOG("store", "serving on %s:%u (%s)", m.opts.bind_host.c_str(), m.port,
                  !m.tls ? "plain TCP" : m.tls->uses_certificates() ? "TLS 1.3, certificates" : "TLS 1.3, PSK");
}

StoreServer::~StoreServer() {
  Impl& m = *impl_;
  {
    std::lock_guard<std::mutex> g(m.mu);
    m.stopping = true;
  }
  m.cv.notify_all();
  std::uint64_t one = 1;
  if (::write(m.wake_fd.get(), &one, sizeof one) < 0) {
    // Cannot happen for an eventfd far from overflow; shutting the listener wakes poll too.
    ::shutdown(m.listen_fd.get(), SHUT_RDWR);
  }
  if (m.acceptor.joinable()) m.acceptor.join();
  // Now no connection can be added. Waking every blocked read/write ends each thread promptly.
  std::lock_guard<std::mutex> g(m.conns_mu);
  for (auto& c : m.conns) ::shutdown(c->fd.get(), SHUT_RDWR);
  for (auto& c : m.conns)
    if (c->thread.joinable()) c->thread.join();
  m.conns.clear();
}

std::uint16_t StoreServer::port() const noexcept { return impl_->port; }

bool StoreServer::rank_connected(int rank) const {
  std::lock_guard<std::mutex> g(impl_->mu);
  return impl_->connected.count(rank) > 0;
}

bool StoreServer::rank_finalized(int rank) const {
  std::lock_guard<std::mutex> g(impl_->mu);
  return impl_->finalized.count(rank) > 0;
}

void StoreServer::fail(const std::string& reason) { impl_->enter_failed(reason); }

std::size_t StoreServer::blocked_requests() const {
  std::lock_guard<std::mutex> g(impl_->mu);
  return impl_->blocked;
}

bool StoreServer::wait_idle(Millis timeout) const {
  std::unique_lock<std::mutex> lk(impl_->mu);
  return impl_->cv.wait_for(lk, timeout, [&] { return impl_->in_flight == 0; });
}

bool StoreServer::wait_for_blocked(std::size_t n, Millis timeout) const {
  std::unique_lock<std::mutex> lk(impl_->mu);
  return impl_->cv.wait_for(lk, timeout, [&] { return impl_->blocked >= n; });
}

}  // namespace shmem::bootstrap
