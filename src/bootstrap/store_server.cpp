// The store server's event loop: one thread, non-blocking sockets under epoll, TLS through
// OpenSSL on those sockets. Requests that wait are parked on their connection (no thread
// each), so a job of thousands of PEs, or a stalled or malicious client, costs a connection's
// state and nothing more. Every phase has its deadline: the whole handshake (TLS and hello), a
// frame once it has begun, a reply the client does not read. Connections that have not said
// hello are limited per source address and in total (store_server_admit.cpp); warnings about
// bad clients are rate-limited (store_server_warn.hpp).
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <vector>

#include "bootstrap/store_mismatch.hpp"
#include "bootstrap/store_server_impl.hpp"
#include "base/config.hpp"
#include "base/error.hpp"
#include "base/log.hpp"
#include "util/socket.hpp"

namespace shmem::bootstrap {

using namespace wire;
using server_detail::Clock;
using server_detail::Conn;
using server_detail::kEvictAfter;
using server_detail::kMaxUnhandledInput;
using server_detail::ms_text;
using server_detail::Phase;
using server_detail::Violation;

namespace {

constexpr int kMaxEvents = 256;
constexpr std::size_t kReadChunk = 64 * 1024;
// Replies a client may leave unread before the server stops handling its requests.
constexpr std::size_t kMaxUnreadOutput = 1 << 20;
// At the end, how long the connections may stay open until the network has delivered what was
// sent on them (util::linger_close): on a lossy link, the last replies to a relay's goodbyes.
constexpr Millis kCloseLinger{2000};

// "rank-3.shmem" (the client's server name) -> 3; -1 for anything else.
int claimed_rank(const std::string& sni) {
  static constexpr std::string_view kPrefix = "rank-", kSuffix = ".shmem";
  std::string_view v = sni;
  if (!v.starts_with(kPrefix) || !v.ends_with(kSuffix)) return -1;
  v = v.substr(kPrefix.size(), v.size() - kPrefix.size() - kSuffix.size());
  if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string_view::npos) return -1;
  return std::stoi(std::string(v));
}

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

// ---- failure tracking ------------------------------------------------------------------------

void StoreServer::Impl::wake() noexcept { wake_fd.signal(); }

void StoreServer::Impl::enter_failed(const std::string& reason, int status) {
  {
    std::lock_guard<std::mutex> g(mu);
    if (failed) return;
    failed = true;
    fail_reason = reason;
    fail_status = status;
  }
  cv.notify_all();
  wake();
  SHMEM_INFO_LOG("store", "store failed: %s", reason.c_str());
}

void StoreServer::Impl::rank_lost(int rank, const std::string& why) {
  lose(rank,
       "PE " + std::to_string(rank) + " lost: " + (why.empty() ? "connection closed" : why) + " before shmem_finalize",
       1, false);
}

void StoreServer::Impl::depart(int rank, const std::string& reason, int status) { lose(rank, reason, status, true); }

void StoreServer::Impl::lose(int rank, const std::string& reason, int status, bool departed) {
  {
    std::lock_guard<std::mutex> g(mu);
    if (stopping) return;
    if (failed) {
      // The job is already failing (or exiting globally); further losses are its consequence.
      SHMEM_INFO_LOG("store", "PE %d %s after the store failed (%s)", rank, departed ? "left" : "disconnected",
                     fail_reason.c_str());
      return;
    }
    failed = true;
    fail_reason = reason;
    fail_status = status;
  }
  cv.notify_all();
  wake();
  // With a callback the owner (the launcher) reports the loss itself, once; a PE that left
  // said why, and every other PE's job watcher reports that.
  if (opts.on_rank_lost || departed)
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

void StoreServer::Impl::auth_failed(const std::string& peer, int rank, const char* how) {
  if (rank < 0) return;
  const std::string why = std::string(how) == "certificates"
                              ? "its certificate was not accepted (check SHMEM_BOOTSTRAP_TLS_INFO on every rank)"
                              : "wrong SHMEM_JOB_SECRET? It must be the same on every rank, including the store's host";
  const std::string reason = "rank " + std::to_string(rank) + " failed authentication from " + peer + " (" + why + ")";
  {
    std::lock_guard<std::mutex> g(mu);
    if (stopping || failed || gathered() || live.count(rank) || (job_size > 0 && rank >= job_size)) return;
    if (job_size == 0) {  // nobody has said how large the job is: decided at the first ranked hello
      if (auth_claims.size() < 64) auth_claims.emplace(rank, reason);
      return;
    }
  }
  enter_failed(reason);
}

// ---- connections -----------------------------------------------------------------------------

void StoreServer::Impl::drop(Conn& c, const char* reason, const std::string& detail) {
  bool quiet;
  {
    std::lock_guard<std::mutex> g(mu);
    quiet = stopping;
  }
  if (!quiet) {
    const std::string line = "closing connection from " + c.peer +
                             (c.rank >= 0 ? " (PE " + std::to_string(c.rank) + ")" : std::string()) + ": " + reason +
                             (detail.empty() ? "" : ": " + detail);
    if (c.rank >= 0)
      SHMEM_WARN("store", "%s", line.c_str());  // a PE: always worth its own line
    else
      warnings.warn(c.source, reason, c.said_hello, line);
  }
  close_conn(c, false);
}

void StoreServer::Impl::close_conn(Conn& c, bool quiet) {
  if (c.phase == Phase::kClosing) return;
  note_pending_end(c);
  c.phase = Phase::kClosing;
  c.parked.reset();
  if (c.parent) {
    mux_closed(c);
  } else {
    if (!quiet) c.ch.close_notify();
    ::epoll_ctl(epoll_fd.get(), EPOLL_CTL_DEL, c.fd.get(), nullptr);
    ::shutdown(c.fd.get(), closing_all ? SHUT_WR : SHUT_RDWR);  // at the end: still read, in linger_close
    --sockets_open;
    close_channels(c);
  }
  bool report = c.rank >= 0 && !c.said_goodbye && !c.left;
  if (c.live) {
    std::lock_guard<std::mutex> g(mu);
    live.erase(c.rank);
    c.live = false;
  }
  c.in.clear();
  c.out.clear();
  if (report) rank_lost(c.rank, c.lost_why);
}

void StoreServer::Impl::update_interest(Conn& c) {
  if (c.phase == Phase::kClosing || c.parent) return;  // a channel's parent: flush_relays
  unsigned want = EPOLLIN | EPOLLRDHUP;
  if (c.out_off < c.out.size() || c.want_write) want |= EPOLLOUT;
  if (want == c.events) return;
  epoll_event ev{};
  ev.events = want;
  ev.data.fd = c.fd.get();
  if (::epoll_ctl(epoll_fd.get(), EPOLL_CTL_MOD, c.fd.get(), &ev) == 0) c.events = want;
}

void StoreServer::Impl::take_adoptions() {
  std::vector<std::pair<util::UniqueFd, int>> taken;
  {
    std::lock_guard<std::mutex> g(mu);
    taken.swap(adoptions);
  }
  for (auto& [fd, rank] : taken) {
    auto c = std::make_unique<Conn>();
    c->fd = std::move(fd);
    c->peer = "this host's PE " + std::to_string(rank) + " (socketpair)";
    c->source = "local";
    c->ch = Channel(c->fd.get());
    c->phase = Phase::kHello;
    c->adopted = true;
    c->declared_rank = rank;
    c->accepted = Clock::now();
    c->handshake_deadline = Clock::time_point::max();  // the PE says hello when it gets there
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.fd = c->fd.get();
    if (::epoll_ctl(epoll_fd.get(), EPOLL_CTL_ADD, c->fd.get(), &ev) != 0) {
      SHMEM_ERROR("store", "cannot watch PE %d's socketpair: %s", rank, std::strerror(errno));
      continue;
    }
    c->events = ev.events;
    conns.emplace(c->fd.get(), std::move(c));
    ++conns_total;
    conns_peak = std::max(conns_peak, ++sockets_open);
  }
}

bool StoreServer::Impl::read_available(Conn& c) {
  char buf[kReadChunk];
  for (;;) {
    std::size_t got = 0;
    Channel::Nb r = c.ch.read_some(buf, sizeof buf, &got);
    if (r == Channel::Nb::kOk) {
      c.in.append(buf, got);
      bytes_in += got;
      // (A relay is never parked; it carries many PEs' requests, and its agent has the secret.)
      if (!c.relay && (c.parked || c.out_off < c.out.size()) && c.in.size() > kMaxUnhandledInput) {
        drop(c, "protocol violation", "sent " + std::to_string(c.in.size()) + " bytes while a request was unanswered");
        return false;
      }
      // Handle as we go: a frame that is bad (or too large for its phase) is refused before
      // the rest of it is read; memory grows only with what has arrived.
      handle_frames(c);
      if (c.phase == Phase::kClosing) return false;
      continue;
    }
    if (r == Channel::Nb::kWantRead) {
      c.want_write = false;
      return true;
    }
    if (r == Channel::Nb::kWantWrite) {
      c.want_write = true;
      return true;
    }
    if (r == Channel::Nb::kEof) {
      if (c.in.empty() && c.phase == Phase::kHello) {
        SHMEM_DEBUG_LOG("store", "connection from %s closed before hello", c.peer.c_str());
        close_conn(c, true);
      } else if (!c.in.empty()) {
        drop(c, "truncated frame", "connection closed after " + std::to_string(c.in.size()) + " bytes of a frame");
      } else {
        close_conn(c, true);  // between requests, or while one was parked: the client went away
      }
      return false;
    }
    const int err = c.ch.sys_errno();
    if (err == ETIMEDOUT || err == EHOSTUNREACH || err == ENETUNREACH) {
      // Keepalive or unacknowledged data gave up (util/socket.hpp), or the route is gone.
      c.lost_why = "no reply from its host (" + c.peer + ") for " + std::to_string(host_timeout.count()) +
                   " s (SHMEM_HOST_TIMEOUT; network link down, or host gone)";
      // One line per host, not per PE: every connection from it times out together.
      warnings.warn(c.source, "no reply", c.said_hello,
                    "no reply from " + c.source + " for " + std::to_string(host_timeout.count()) +
                        " s (SHMEM_HOST_TIMEOUT): closing its connections");
      close_conn(c, false);
      return false;
    }
    drop(c, "read error", c.ch.tls_error().empty() ? "connection error" : c.ch.tls_error());
    return false;
  }
}

void StoreServer::Impl::handle_frames(Conn& c) {
  std::size_t off = 0;
  while (!c.parked && c.phase != Phase::kClosing && c.out.size() - c.out_off < kMaxUnreadOutput) {
    if (c.phase == Phase::kHello && off == 0 && !tls && !c.trusted() &&
        mismatch::tls_record(reinterpret_cast<const unsigned char*>(c.in.data()), c.in.size())) {
      // A TLS client at a plain-TCP store: a TLS alert makes its handshake fail at once.
      mismatch::answer_and_drain(c.fd.get(), mismatch::tls_alert());
      warnings.warn(c.source, "TLS client at a plain store", false,
                    "authentication failed from " + c.peer +
                        ": it speaks TLS and this store plain TCP (is SHMEM_BOOTSTRAP_TLS the same everywhere?)");
      close_conn(c, true);
      return;
    }
    if (c.in.size() - off < kHeaderSize) break;
    Header h;
    std::string detail;
    if (const char* bad = decode_header(reinterpret_cast<const unsigned char*>(c.in.data() + off), false, &h, &detail)) {
      drop(c, bad, detail);
      return;
    }
    // Before hello nobody is authenticated (on plain TCP): only a hello-sized frame.
    if (c.phase == Phase::kHello && h.length > kHeaderSize + kMaxKey) {
      drop(c, "frame too large for a hello", std::to_string(h.length) + " bytes");
      return;
    }
    if (c.phase == Phase::kHello && h.op != static_cast<std::uint16_t>(Op::kHello) &&
        h.op != static_cast<std::uint16_t>(Op::kChallenge)) {
      drop(c, "expected hello first", std::string("got ") + op_name(static_cast<Op>(h.op)));
      return;
    }
    if (c.in.size() - off - kHeaderSize < h.length) break;
    std::string_view payload(c.in.data() + off + kHeaderSize, h.length);
    bool keep = false;
    try {
      keep = handle(c, h, payload);
    } catch (const FrameError& e) {
      drop(c, "malformed payload", std::string(op_name(static_cast<Op>(h.op))) + ": " + e.what());
      return;
    } catch (const Violation& v) {
      drop(c, "protocol violation", v.reason);
      return;
    } catch (const std::bad_alloc&) {
      drop(c, "out of memory handling a request", "");
      return;
    }
    off += kHeaderSize + h.length;
    if (!keep) {
      // The reply (a refusal) goes out first, then the connection closes.
      c.in.clear();
      flush(c);
      if (c.phase != Phase::kClosing) close_conn(c, false);
      return;
    }
  }
  c.in.erase(0, off);
  if (c.in.capacity() > (std::size_t{1} << 20) && c.in.size() < kReadChunk) c.in.shrink_to_fit();
  // A frame that has begun must complete within io_timeout (before hello, the handshake
  // deadline covers it).
  if (c.in.empty() || c.parked)
    c.frame_deadline = Clock::time_point::max();
  else if (c.frame_deadline == Clock::time_point::max())
    c.frame_deadline = Clock::now() + opts.io_timeout;
}

void StoreServer::Impl::flush(Conn& c) {
  if (c.parent) {
    mux_flush(c);
    return;
  }
  while (c.phase != Phase::kClosing && c.out_off < c.out.size()) {
    std::size_t put = 0;
    Channel::Nb r = c.ch.write_some(c.out.data() + c.out_off, c.out.size() - c.out_off, &put);
    if (r == Channel::Nb::kOk) {
      c.out_off += put;
      bytes_out += put;
      continue;
    }
    if (r == Channel::Nb::kWantWrite || r == Channel::Nb::kWantRead) {
      c.want_write = r == Channel::Nb::kWantWrite;
      if (c.write_deadline == Clock::time_point::max()) c.write_deadline = Clock::now() + opts.io_timeout;
      return;
    }
    drop(c, "cannot send a reply", r == Channel::Nb::kEof ? "connection closed" : c.ch.tls_error());
    return;
  }
  if (c.phase == Phase::kClosing) return;
  c.out.clear();
  c.out_off = 0;
  c.write_deadline = Clock::time_point::max();
  if (c.out.capacity() > (std::size_t{1} << 20)) std::string().swap(c.out);
}

// A plain-TCP client at a TLS store (SHMEM_BOOTSTRAP_TLS differs): answered in its own
// protocol, so that it fails at once naming the variable instead of retrying a busy store.
bool StoreServer::Impl::refuse_plain_client(Conn& c) {
  unsigned char head[kHeaderSize];
  const ssize_t n = ::recv(c.fd.get(), head, sizeof head, MSG_PEEK | MSG_DONTWAIT);
  if (n <= 0) return false;  // nothing yet: look again when it arrives
  c.looked = true;
  Header h;
  if (static_cast<std::size_t>(n) < kHeaderSize || !mismatch::plain_request(head, kHeaderSize) ||
      decode_header(head, false, &h, nullptr) != nullptr)
    return false;
  mismatch::answer_and_drain(c.fd.get(), mismatch::plain_refusal(h.op, h.id));
  warnings.warn(c.source, "plain client at a TLS store", false,
                "authentication failed from " + c.peer +
                    ": it speaks plain TCP and this store TLS (is SHMEM_BOOTSTRAP_TLS the same everywhere?)");
  close_conn(c, true);
  return true;
}

void StoreServer::Impl::advance(Conn& c) {
  if (c.phase == Phase::kTls) {
    if (!c.looked && refuse_plain_client(c)) return;
    std::string why;
    Channel::Nb r = c.ch.accept_step(*tls, &why);
    if (r == Channel::Nb::kWantRead || r == Channel::Nb::kWantWrite) {
      c.want_write = r == Channel::Nb::kWantWrite;
      update_interest(c);
      return;
    }
    if (r != Channel::Nb::kOk) {
      bool quiet;
      {
        std::lock_guard<std::mutex> g(mu);
        quiet = stopping;
      }
      if (!quiet) {
        warnings.warn(c.source, "TLS handshake failed", false,
                      "authentication failed from " + c.peer + ": TLS handshake failed: " + why +
                          handshake_hint(why, !tls->uses_certificates()));
        auth_failed(c.peer, claimed_rank(c.ch.server_name()), tls->uses_certificates() ? "certificates" : "secret");
      }
      close_conn(c, true);
      return;
    }
    c.phase = Phase::kHello;
  }
  if (c.phase == Phase::kClosing || !read_available(c)) return;
  flush(c);
  // A relay stops handling its frames while its channels' replies are not out; once they are,
  // the frames that wait go on (its agent may have nothing more to send).
  if (c.relay && !c.in.empty() && c.phase != Phase::kClosing) {
    handle_frames(c);
    flush(c);
  }
  update_interest(c);
}

void StoreServer::Impl::on_conn(Conn& c, unsigned events) {
  if (c.phase == Phase::kClosing) return;
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)) c.heard = true;
  // The handshake's time counts from when this thread first gets to it: on a loaded machine
  // (hundreds of handshakes through this one thread) a client may wait in our backlog for
  // longer than the timeout. Counted once, so that a client trickling bytes is still dropped.
  if ((events & EPOLLIN) && c.phase == Phase::kTls && !c.stepped) {
    c.stepped = true;
    c.handshake_deadline = std::max(c.handshake_deadline, Clock::now() + opts.io_timeout);
  }
  if (events & EPOLLOUT) flush(c);
  if (c.phase == Phase::kClosing) return;
  advance(c);
}

void StoreServer::Impl::wake_parked() {
  bool all;
  {
    std::lock_guard<std::mutex> g(mu);
    all = wake_all || failed || stopping;
    wake_all = false;
  }
  if (!all && changed_keys.empty()) return;
  const auto now = Clock::now();
  for (auto& [fd, cp] : conns) {
    Conn& c = *cp;
    if (!c.parked || c.phase == Phase::kClosing) continue;
    if (!all && !changed_keys.count(c.parked->key)) continue;
    if (try_unpark(c, now)) {
      flush(c);
      handle_frames(c);  // anything the client sent meanwhile
      flush(c);
      update_interest(c);
    }
  }
  changed_keys.clear();
}

void StoreServer::Impl::sweep(Clock::time_point now) {
  for (auto& [fd, cp] : conns) {
    Conn& c = *cp;
    if (c.phase == Phase::kClosing) continue;
    if (c.pending() && now >= c.handshake_deadline) {
      drop(c,
           c.phase == Phase::kTls ? "TLS handshake not completed within the handshake timeout"
                                  : "no hello within the handshake timeout",
           ms_text(opts.io_timeout) + (c.stepped ? " after this store first read from it, " : " after connecting, ") +
               std::to_string(c.in.size()) + " bytes of hello received");
      continue;
    }
    if (now >= c.frame_deadline) {
      drop(c, "stalled in the middle of a frame", std::to_string(c.in.size()) + " bytes received");
      continue;
    }
    if (now >= c.write_deadline) {
      drop(c, "cannot send a reply", "the client has read nothing for " + ms_text(opts.io_timeout));
      continue;
    }
    if (c.parked && now >= c.parked->deadline && try_unpark(c, now)) {
      flush(c);
      handle_frames(c);
      flush(c);
      update_interest(c);
    }
  }
}

std::optional<Clock::time_point> StoreServer::Impl::next_deadline() const {
  std::optional<Clock::time_point> d = warnings.next_flush();
  auto consider = [&](Clock::time_point t) {
    if (t != Clock::time_point::max() && (!d || t < *d)) d = t;
  };
  for (const auto& [fd, cp] : conns) {
    const Conn& c = *cp;
    if (c.phase == Phase::kClosing) continue;
    if (c.pending()) consider(c.handshake_deadline);
    if (listen_paused && c.pending() && !c.heard) consider(c.accepted + kEvictAfter);
    consider(c.frame_deadline);
    consider(c.write_deadline);
    if (c.parked) consider(c.parked->deadline);
  }
  return d;
}

void StoreServer::Impl::recount_locked() {
  std::size_t parked = 0, writing = 0;
  for (const auto& [fd, cp] : conns) {
    if (cp->phase == Phase::kClosing) continue;
    if (cp->parked) ++parked;
    if (cp->out_off < cp->out.size()) ++writing;
  }
  blocked = parked;
  in_flight = parked + writing;
}

void StoreServer::Impl::run() noexcept {
  epoll_event evs[kMaxEvents];
  for (;;) {
    int timeout_ms = -1;
    if (auto d = next_deadline()) {
      auto left = std::chrono::ceil<Millis>(*d - Clock::now()).count();
      timeout_ms = static_cast<int>(std::clamp<long long>(left, 0, 60'000));
    }
    int n = ::epoll_wait(epoll_fd.get(), evs, kMaxEvents, timeout_ms);
    if (n < 0) {
      if (errno == EINTR) continue;
      SHMEM_ERROR("store", "epoll_wait failed: %s; the store stops serving", std::strerror(errno));
      break;
    }
    for (int i = 0; i < n; ++i) {
      const int fd = evs[i].data.fd;
      if (fd == listen_fd.get()) {
        on_listen();
      } else if (fd == wake_fd.fd()) {
        wake_fd.drain();
        {
          std::lock_guard<std::mutex> g(mu);
          wake_all = true;
        }
        take_adoptions();
      } else if (auto it = conns.find(fd); it != conns.end()) {
        on_conn(*it->second, evs[i].events);
      }
    }
    wake_parked();
    const auto now = Clock::now();
    sweep(now);
    flush_relays();
    warnings.flush(now);
    // Closed connections go now (their fds may be reused by the next accept).
    for (auto it = conns.begin(); it != conns.end();)
      it = it->second->phase == Phase::kClosing ? conns.erase(it) : std::next(it);
    if (listen_paused) resume_or_warn(now);
    bool stop;
    {
      std::lock_guard<std::mutex> g(mu);
      recount_locked();
      stop = stopping;
    }
    cv.notify_all();
    if (stop) break;
  }
  // Stopping: parked requests hear so, what can be written without waiting is, then all close,
  // once the network has delivered what was sent.
  wake_parked();
  closing_all = true;
  std::vector<util::UniqueFd> sockets;
  for (auto& [fd, cp] : conns) {
    close_conn(*cp, false);
    if (!cp->parent && cp->fd) sockets.emplace_back(cp->fd.release());  // unmarked while they linger
  }
  conns.clear();
  {
    std::lock_guard<std::mutex> g(mu);
    blocked = in_flight = 0;
  }
  cv.notify_all();
  util::linger_close(std::move(sockets), kCloseLinger);
}

// ---- public interface ----------------------------------------------------------------------

StoreServer::StoreServer(Options opts) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.opts = std::move(opts);
  m.host_timeout = host_timeout_from_env();
  m.kv_max_bytes = parse_size(config_raw("SHMEM_STORE_MAX_SIZE"), config_label("SHMEM_STORE_MAX_SIZE"));
  if (m.opts.tls.enabled) m.tls = std::make_unique<TlsContext>(m.opts.tls, TlsContext::Role::kServer);
  m.listen_fd = util::tcp_listen(m.opts.bind_host, m.opts.port);
  m.port = util::local_port(m.listen_fd.get());
  int fl = ::fcntl(m.listen_fd.get(), F_GETFL);
  if (fl < 0 || ::fcntl(m.listen_fd.get(), F_SETFL, fl | O_NONBLOCK) < 0)
    throw Error(Errc::kInternal, std::string("fcntl(O_NONBLOCK): ") + std::strerror(errno));
  if (!m.wake_fd) throw Error(Errc::kInternal, std::string("eventfd: ") + std::strerror(errno));
  m.epoll_fd.reset(::epoll_create1(EPOLL_CLOEXEC));
  if (!m.epoll_fd) throw Error(Errc::kInternal, std::string("epoll_create1: ") + std::strerror(errno));
  for (int fd : {m.listen_fd.get(), m.wake_fd.fd()}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    if (::epoll_ctl(m.epoll_fd.get(), EPOLL_CTL_ADD, fd, &ev) != 0)
      throw Error(Errc::kInternal, std::string("epoll_ctl: ") + std::strerror(errno));
  }
  m.spare_fd.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  m.set_admission_limits();
  try {
    m.loop_thread = std::thread([&m] { m.run(); });
  } catch (const std::system_error& e) {
    throw Error(Errc::kInternal, std::string("cannot start the store server thread: ") + e.what());
  }
  SHMEM_DEBUG_LOG("store", "serving on %s:%u (%s)", m.opts.bind_host.c_str(), m.port,
                  !m.tls ? "plain TCP" : m.tls->uses_certificates() ? "TLS 1.3, certificates" : "TLS 1.3, PSK");
}

StoreServer::~StoreServer() {
  Impl& m = *impl_;
  if (m.opts.linger_on_failure.count() > 0) wait_all_told(m.opts.linger_on_failure);
  {
    std::lock_guard<std::mutex> g(m.mu);
    m.stopping = true;
  }
  m.cv.notify_all();
  m.wake();
  if (m.loop_thread.joinable()) m.loop_thread.join();
  // One line (bench/scale.sh reads it): what the job cost the store.
  SHMEM_INFO_LOG("store", "%llu connections (peak %zu open), %llu bytes in, %llu bytes out",
                 static_cast<unsigned long long>(m.conns_total), m.conns_peak,
                 static_cast<unsigned long long>(m.bytes_in), static_cast<unsigned long long>(m.bytes_out));
  if (m.channels_total > 0)
    SHMEM_INFO_LOG("store", "%llu PEs reached it through their host's relay (one connection per relay, counted above)",
                   static_cast<unsigned long long>(m.channels_total));
}

std::uint16_t StoreServer::port() const noexcept { return impl_->port; }

void StoreServer::adopt(util::UniqueFd fd, int rank) {
  const int fl = ::fcntl(fd.get(), F_GETFL);
  if (fl < 0 || ::fcntl(fd.get(), F_SETFL, fl | O_NONBLOCK) < 0)
    throw Error(Errc::kInternal, std::string("StoreServer::adopt: fcntl(O_NONBLOCK): ") + std::strerror(errno));
  {
    std::lock_guard<std::mutex> g(impl_->mu);
    impl_->adoptions.emplace_back(std::move(fd), rank);
  }
  impl_->wake();
}

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
  return impl_->cv.wait_for(lk, timeout, [&] { return impl_->in_flight == 0 && !impl_->wake_all; });
}

void StoreServer::wait_all_told(Millis timeout) const {
  std::unique_lock<std::mutex> lk(impl_->mu);
  const Impl& m = *impl_;
  m.cv.wait_for(lk, timeout, [&] { return !m.failed || (m.gathered() && m.in_flight == 0 && !m.wake_all); });
}

bool StoreServer::wait_for_blocked(std::size_t n, Millis timeout) const {
  std::unique_lock<std::mutex> lk(impl_->mu);
  return impl_->cv.wait_for(lk, timeout, [&] { return impl_->blocked >= n; });
}

}  // namespace shmem::bootstrap
