// The store server: one acceptor thread, then one thread per connection with blocking I/O.
// A stalled or malicious client therefore only ever blocks its own thread; jobs have at most a
// few hundred PEs, so a thread each is cheap.
#include <openssl/crypto.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <list>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "bootstrap/frame.hpp"
#include "bootstrap/store.hpp"
#include "bootstrap/tls_conn.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "util/scope_exit.hpp"
#include "util/socket.hpp"
#include "util/unique_fd.hpp"

namespace shmem::bootstrap {

using namespace wire;
using Clock = std::chrono::steady_clock;

namespace {

// How often a blocked request looks whether its own client has gone away.
constexpr Millis kHangupCheck{200};

struct Conn {
  util::UniqueFd fd;
  std::string peer;
  std::thread thread;
  std::atomic<bool> done{false};
};

// Per-connection protocol state.
struct Session {
  Conn* conn = nullptr;
  Channel* ch = nullptr;
  bool said_hello = false;
  bool said_goodbye = false;
  int rank = -1;
  bool hung_up = false;  // the client went away while a request was blocked
};

// A protocol violation: the connection is closed with one warning naming the reason.
struct Violation {
  std::string reason;
};

enum class WaitEnd { kReady, kFailed, kTimeout, kStopping, kHungUp };

// Parses a counter value; absent keys count as 0.
bool parse_i64(std::string_view s, std::int64_t* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::string ms_text(std::int64_t ms) { return std::to_string(ms) + " ms"; }

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

struct StoreServer::Impl {
  Options opts;
  std::unique_ptr<TlsContext> tls;
  util::UniqueFd listen_fd;
  util::UniqueFd wake_fd;
  std::uint16_t port = 0;
  std::thread acceptor;

  // Store state, guarded by mu; cv is notified on every change anybody may wait for.
  mutable std::mutex mu;
  mutable std::condition_variable cv;
  std::unordered_map<std::string, std::string> kv;
  bool stopping = false;
  bool failed = false;
  std::string fail_reason;
  std::set<int> connected;
  std::set<int> finalized;
  std::size_t blocked = 0;

  std::mutex conns_mu;
  std::list<std::unique_ptr<Conn>> conns;

  void accept_loop();
  void reap_locked();
  void serve(Conn& c);
  // Reads one frame; false when the connection is over (closed, or a violation was logged).
  bool read_frame(Session& s, bool first, Header* h, std::string* payload);
  // Handles one request; false to close the connection.
  bool handle(Session& s, const Header& h, std::string_view payload);
  bool reply(Session& s, const Header& h, FrameWriter& w);
  bool reply_error(Session& s, const Header& h, Status st, const std::string& msg);
  WaitEnd wait(std::unique_lock<std::mutex>& lk, Session& s, std::int64_t timeout_ms,
               const std::function<bool()>& ready);
  void rank_lost(int rank);
  void enter_failed(const std::string& reason);
  void drop(Session& s, const char* reason, const std::string& detail);
};

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
  SHMEM_WARN("store", "store failed: %s", reason.c_str());
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

bool StoreServer::Impl::handle(Session& s, const Header& h, std::string_view payload) {
  auto op = static_cast<Op>(h.op);
  PayloadReader in(payload);
  FrameWriter out;

  if (op == Op::kHello) {
    if (s.said_hello) throw Violation{"second hello on one connection"};
    std::int64_t rank = in.i64();
    std::string_view secret = in.bytes(kMaxKey, "secret");
    in.expect_end();
    if (rank < -1 || rank > 0x7fffffff) throw Violation{"hello with invalid rank " + std::to_string(rank)};
    if (!tls && !opts.tls.secret.empty() &&
        (secret.size() != opts.tls.secret.size() ||
         CRYPTO_memcmp(secret.data(), opts.tls.secret.data(), secret.size()) != 0)) {
      SHMEM_WARN("store", "authentication failed from %s: wrong job secret in hello (rank %d)",
                 s.conn->peer.c_str(), static_cast<int>(rank));
      reply_error(s, h, Status::kAuth, "the job secret did not match the store's");
      return false;
    }
    s.said_hello = true;
    s.rank = static_cast<int>(rank);
    if (s.rank >= 0) {
      std::lock_guard<std::mutex> g(mu);
      connected.insert(s.rank);
    }
    SHMEM_DEBUG_LOG("store", "hello from %s as rank %d", s.conn->peer.c_str(), s.rank);
    out.u32(static_cast<std::uint32_t>(Status::kOk));
    return reply(s, h, out);
  }
  if (!s.said_hello) throw Violation{std::string("expected hello first, got ") + op_name(op)};

  std::unique_lock<std::mutex> lk(mu);
  auto failed_reply = [&] {
    std::string why = fail_reason;
    lk.unlock();
    return reply_error(s, h, Status::kFailed, why);
  };
  auto wait_error = [&](WaitEnd end, const std::string& timeout_msg) {
    switch (end) {
      case WaitEnd::kFailed: return failed_reply();
      case WaitEnd::kTimeout:
        lk.unlock();
        return reply_error(s, h, Status::kTimeout, timeout_msg);
      case WaitEnd::kStopping:
        lk.unlock();
        return reply_error(s, h, Status::kShutdown, "the bootstrap store is shutting down");
      case WaitEnd::kHungUp:
      case WaitEnd::kReady: break;
    }
    return false;
  };

  switch (op) {
    case Op::kHello: break;  // handled above
    case Op::kGoodbye: {
      in.expect_end();
      s.said_goodbye = true;
      if (s.rank >= 0) finalized.insert(s.rank);
      lk.unlock();
      out.u32(static_cast<std::uint32_t>(Status::kOk));
      return reply(s, h, out);
    }
    case Op::kGlobalExit: {
      std::int64_t status = in.i64();
      in.expect_end();
      lk.unlock();
      int st = static_cast<int>(status);
      SHMEM_WARN("store", "PE %d requested a global exit with status %d", s.rank, st);
      if (opts.on_global_exit) {
        try {
          opts.on_global_exit(s.rank, st);
        } catch (...) {
          SHMEM_ERROR("store", "on_global_exit callback threw");
        }
      }
      enter_failed("PE " + std::to_string(s.rank) + " called shmem_global_exit(" + std::to_string(st) + ")");
      out.u32(static_cast<std::uint32_t>(Status::kOk));
      return reply(s, h, out);
    }
    case Op::kWaitFailure: {
      in.expect_end();
      WaitEnd end = wait(lk, s, -1, [] { return false; });
      if (end == WaitEnd::kFailed) {
        std::string why = fail_reason;
        lk.unlock();
        out.u32(static_cast<std::uint32_t>(Status::kOk)).bytes(why);
        return reply(s, h, out);
      }
      return wait_error(end, "");
    }
    default: break;
  }

  if (failed) return failed_reply();

  switch (op) {
    case Op::kSet: {
      std::string key(in.bytes(kMaxKey, "key"));
      std::string_view value = in.bytes(kMaxValue, "value");
      in.expect_end();
      kv[std::move(key)].assign(value);
      lk.unlock();
      cv.notify_all();
      out.u32(static_cast<std::uint32_t>(Status::kOk));
      return reply(s, h, out);
    }
    case Op::kGet: {
      std::string key(in.bytes(kMaxKey, "key"));
      std::int64_t timeout_ms = in.i64();
      in.expect_end();
      auto it = kv.end();
      WaitEnd end = wait(lk, s, timeout_ms, [&] { return (it = kv.find(key)) != kv.end(); });
      if (end == WaitEnd::kReady) {
        out.u32(static_cast<std::uint32_t>(Status::kOk)).bytes(it->second);
        lk.unlock();
        return reply(s, h, out);
      }
      return wait_error(end, "timed out after " + ms_text(timeout_ms) + " waiting for store key '" +
                                 printable(key) + "'");
    }
    case Op::kTryGet: {
      std::string key(in.bytes(kMaxKey, "key"));
      in.expect_end();
      auto it = kv.find(key);
      if (it == kv.end())
        out.u32(static_cast<std::uint32_t>(Status::kNotFound));
      else
        out.u32(static_cast<std::uint32_t>(Status::kOk)).bytes(it->second);
      lk.unlock();
      return reply(s, h, out);
    }
    case Op::kAdd: {
      std::string key(in.bytes(kMaxKey, "key"));
      std::int64_t delta = in.i64();
      in.expect_end();
      std::int64_t cur = 0;
      auto it = kv.find(key);
      if (it != kv.end() && !parse_i64(it->second, &cur)) {
        std::string msg = "store key '" + printable(key) + "' holds '" + printable(it->second, 40) +
                          "', which is not an integer counter";
        lk.unlock();
        return reply_error(s, h, Status::kBadRequest, msg);
      }
      std::int64_t next;
      if (__builtin_add_overflow(cur, delta, &next)) {
        lk.unlock();
        return reply_error(s, h, Status::kBadRequest, "counter '" + printable(key) + "' would overflow");
      }
      kv[key] = std::to_string(next);
      lk.unlock();
      cv.notify_all();
      out.u32(static_cast<std::uint32_t>(Status::kOk)).i64(next);
      return reply(s, h, out);
    }
    case Op::kCompareAndSet: {
      std::string key(in.bytes(kMaxKey, "key"));
      std::string_view expected = in.bytes(kMaxValue, "expected value");
      std::string_view desired = in.bytes(kMaxValue, "desired value");
      in.expect_end();
      auto it = kv.find(key);
      bool match = expected.empty() ? it == kv.end() : (it != kv.end() && it->second == expected);
      if (match) {
        // "" stands for "absent" on both sides, so a desired "" removes the key.
        if (desired.empty()) {
          if (it != kv.end()) kv.erase(it);
        } else {
          kv[key].assign(desired);
        }
      }
      auto now = kv.find(key);
      out.u32(static_cast<std::uint32_t>(Status::kOk)).u32(match ? 1 : 0).bytes(now == kv.end() ? "" : now->second);
      lk.unlock();
      if (match) cv.notify_all();
      return reply(s, h, out);
    }
    case Op::kRemove: {
      std::string key(in.bytes(kMaxKey, "key"));
      in.expect_end();
      bool existed = kv.erase(key) > 0;
      lk.unlock();
      out.u32(static_cast<std::uint32_t>(Status::kOk)).u32(existed ? 1 : 0);
      return reply(s, h, out);
    }
    case Op::kBarrier: {
      std::string name(in.bytes(kMaxKey - 8, "barrier name"));
      std::int64_t nranks = in.i64();
      std::int64_t timeout_ms = in.i64();
      in.expect_end();
      if (nranks <= 0) {
        lk.unlock();
        return reply_error(s, h, Status::kBadRequest, "barrier '" + printable(name) + "' with " +
                                                          std::to_string(nranks) + " participants");
      }
      // The same keys a client-side add + get barrier would use, so the state is inspectable.
      std::string count_key = name + "/count";
      std::string go_key = name + "/go";
      std::int64_t arrived = 0;
      auto it = kv.find(count_key);
      if (it != kv.end() && !parse_i64(it->second, &arrived)) arrived = nranks;  // poisoned: reject below
      ++arrived;
      if (arrived > nranks) {
        lk.unlock();
        return reply_error(s, h, Status::kBadRequest,
                           "barrier '" + printable(name) + "' entered by more than " + std::to_string(nranks) +
                               " callers (each barrier name may be used once)");
      }
      kv[count_key] = std::to_string(arrived);
      if (arrived == nranks) {
        kv[go_key] = "1";
        cv.notify_all();
      }
      WaitEnd end = wait(lk, s, timeout_ms, [&] { return kv.count(go_key) > 0; });
      if (end == WaitEnd::kReady) {
        lk.unlock();
        out.u32(static_cast<std::uint32_t>(Status::kOk));
        return reply(s, h, out);
      }
      std::string msg;
      if (end == WaitEnd::kTimeout) {
        std::int64_t seen = 0;
        auto c = kv.find(count_key);
        if (c != kv.end()) parse_i64(c->second, &seen);
        msg = "barrier '" + printable(name) + "' timed out after " + ms_text(timeout_ms) + ": " +
              std::to_string(seen) + " of " + std::to_string(nranks) + " PEs arrived";
      }
      return wait_error(end, msg);
    }
    default: break;
  }
  throw Violation{"unhandled op"};
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

bool StoreServer::wait_for_blocked(std::size_t n, Millis timeout) const {
  std::unique_lock<std::mutex> lk(impl_->mu);
  return impl_->cv.wait_for(lk, timeout, [&] { return impl_->blocked >= n; });
}

}  // namespace shmem::bootstrap
