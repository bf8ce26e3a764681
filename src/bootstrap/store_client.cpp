#include <sys/socket.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <random>
#include <thread>

#include "bootstrap/frame.hpp"
#include "bootstrap/hello_proof.hpp"
#include "bootstrap/store_link.hpp"
#include "bootstrap/store.hpp"
#include "bootstrap/tls_conn.hpp"
#include "base/config.hpp"
#include "base/error.hpp"
#include "base/log.hpp"
#include "util/socket.hpp"
#include "util/parent_only_fd.hpp"

namespace shmem::bootstrap {

using namespace wire;
using Clock = std::chrono::steady_clock;

namespace {

// Least time given to the TLS handshake and the hello round trip (more when the connect
// deadline is further away: a busy store queues connections).
constexpr Millis kHandshakeTimeout{10000};
// A store not reachable yet is reported after kFirstReport, then every kReportEvery.
constexpr Millis kFirstReport{5000};
constexpr Millis kReportEvery{15000};

std::string seconds_text(Millis ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(ms.count()) / 1000.0);
  return buf;
}

void check_key(std::string_view key) {
  if (key.size() > kMaxKey)
    throw Error(Errc::kInvalidValue, "store key of " + std::to_string(key.size()) + " bytes exceeds the limit of " +
                                         std::to_string(kMaxKey) + " bytes");
}

void check_value(std::string_view key, std::string_view value) {
  if (value.size() > kMaxValue)
    throw Error(Errc::kInvalidValue, "value of " + std::to_string(value.size()) + " bytes for store key '" +
                                         printable(key) + "' exceeds the limit of " + std::to_string(kMaxValue) +
                                         " bytes");
}

std::int64_t timeout_ms(Millis t) { return t.count() < 0 ? -1 : static_cast<std::int64_t>(t.count()); }

}  // namespace

struct StoreClient::Impl {
  std::string where;  // "host:port" for messages
  int rank = -1;
  bool certs = false;
  std::mutex mu;  // one outstanding request per connection
  util::ParentOnlyFd fd;  // a forked child gets /dev/null in its place
  std::unique_ptr<TlsContext> tls;
  Channel ch;
  std::uint32_t next_id = 1;
  bool in_handshake = true;
  std::string broken;                     // non-empty once the connection is unusable
  std::chrono::seconds host_timeout{60};  // SHMEM_HOST_TIMEOUT: the connection's keepalive

  struct Reply {
    Status status = Status::kOk;
    std::string payload;
  };

  [[noreturn]] void lost(Op op, const std::string& detail, bool timed_out = false, int err = 0) {
    broken = detail;
    // Keepalive or unacknowledged data gave up (util/socket.hpp), or the route is gone.
    if ((err == ETIMEDOUT || err == EHOSTUNREACH || err == ENETUNREACH) && !in_handshake)
      throw Error(Errc::kStore, "no reply from the host of the bootstrap store (" + where + ") for " +
                                    std::to_string(host_timeout.count()) + " s (SHMEM_HOST_TIMEOUT) during " +
                                    op_name(op) + ": the network link to that host is down, or the host is gone");
    if (in_handshake && timed_out)
      throw Error(Errc::kBootstrap, "the bootstrap store at " + where + " did not answer the handshake within " +
                                        seconds_text(kHandshakeTimeout) + " s");
    if (in_handshake) {
      throw Error(Errc::kAuth, "the bootstrap store at " + where + " refused the connection during the " +
                                   (ch.tls() ? "TLS handshake" : "handshake") + " (" + detail + "): " + auth_hint());
    }
    throw Error(Errc::kStore, "lost the connection to the bootstrap store at " + where + " during " + op_name(op) +
                                  " (" + detail + "); has the launcher or the store exited?");
  }

  std::string auth_hint() const {
    if (certs)
      return "the certificates were not accepted; check tlsCert, tlsPk and tlsCaFile in "
             "SHMEM_BOOTSTRAP_TLS_INFO on both sides";
    return "the job secret did not match the store's or is missing; every PE must get the launcher's "
           "SHMEM_JOB_SECRET, and SHMEM_BOOTSTRAP_TLS must agree with the launcher's";
  }

  // Sends one request and reads its reply; the caller holds mu.
  Reply call(Op op, FrameWriter& w) {
    if (!broken.empty())
      throw Error(Errc::kStore,
                  "the connection to the bootstrap store at " + where + " was lost earlier (" + broken + ")");
    std::uint32_t id = next_id++;
    std::string frame = w.finish(static_cast<std::uint16_t>(op), id);
    util::IoResult r = ch.write(frame.data(), frame.size());
    if (!r.ok()) lost(op, ch.describe(r), r.status == util::IoResult::kTimeout, r.err);
    unsigned char hdr[kHeaderSize];
    r = ch.read(hdr, sizeof hdr);
    if (!r.ok()) lost(op, ch.describe(r), r.status == util::IoResult::kTimeout, r.err);
    Header h;
    std::string detail;
    if (const char* bad = decode_header(hdr, true, &h, &detail))
      lost(op, std::string("invalid reply: ") + bad + " " + detail);
    if (h.op != (static_cast<std::uint16_t>(op) | kReplyBit) || h.id != id)
      lost(op, "invalid reply: it answers another request");
    Reply rep;
    rep.payload.resize(h.length);
    if (h.length) {
      r = ch.read(rep.payload.data(), h.length);
      if (!r.ok()) lost(op, ch.describe(r), r.status == util::IoResult::kTimeout, r.err);
    }
    if (rep.payload.size() < 4) lost(op, "invalid reply: no status");
    PayloadReader in(rep.payload);
    std::uint32_t st = in.u32();
    if (!is_known_status(st)) lost(op, "invalid reply: unknown status " + std::to_string(st));
    rep.status = static_cast<Status>(st);
    rep.payload.erase(0, 4);
    return rep;
  }

  // Throws the error a non-OK reply stands for.
  [[noreturn]] void raise(Op op, const Reply& rep) {
    std::string msg;
    try {
      PayloadReader in(rep.payload);
      msg = std::string(in.bytes(kMaxValue, "message"));
    } catch (const FrameError&) {
      msg = std::string("store ") + op_name(op) + " failed";
    }
    switch (rep.status) {
      case Status::kFailed: throw Error(Errc::kPeerLost, msg);
      case Status::kTimeout: throw Error(Errc::kTimeout, msg);
      case Status::kAuth:
        throw Error(Errc::kAuth, "the bootstrap store at " + where + " refused the hello: " + auth_hint());
      case Status::kBadRequest: throw Error(Errc::kInvalidValue, msg);
      case Status::kShutdown: throw Error(Errc::kStore, msg + " (store at " + where + ")");
      default: throw Error(Errc::kStore, msg);
    }
  }

  Reply request(Op op, FrameWriter& w, std::initializer_list<Status> accepted = {Status::kOk}) {
    std::lock_guard<std::mutex> g(mu);
    Reply rep = call(op, w);
    for (Status s : accepted)
      if (rep.status == s) return rep;
    raise(op, rep);
  }

  template <class F>
  auto parse(Op op, const Reply& rep, F&& f) {
    try {
      PayloadReader in(rep.payload);
      auto v = f(in);
      in.expect_end();
      return v;
    } catch (const FrameError& e) {
      throw Error(Errc::kStore,
                  "the bootstrap store at " + where + " sent a malformed " + op_name(op) + " reply: " + e.what());
    }
  }
};

StoreClient::StoreClient(const std::string& host, std::uint16_t port, const TlsConfig& tls, int rank,
                         Millis connect_timeout, int world_size, const std::string& unreachable,
                         const std::string& gone)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.where = (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
  m.rank = rank;
  m.certs = tls.enabled && tls.uses_certificates();
  // Settings errors surface before any connection attempt.
  if (tls.enabled) m.tls = std::make_unique<TlsContext>(tls, TlsContext::Role::kClient);
  m.host_timeout = host_timeout_from_env();

  // The store may not be listening yet (launcher still starting): retry with short sleeps.
  // A store that closes a new connection before answering anything is busy (it limits the
  // handshakes in progress, or ran out of descriptors): retried until the deadline too. A wrong
  // key or certificate is a TLS alert or a refused hello, never a bare close.
  const Clock::time_point started = Clock::now();
  const Clock::time_point deadline = started + connect_timeout;
  Clock::time_point next_report = started + kFirstReport;
  Millis backoff{5};
  std::string err;
  int closed_attempts = 0;
  std::string last_close;
  bool refusing = false;  // every attempt since refused_since was refused
  Clock::time_point refused_since;
  auto pause = [&] {
    Clock::time_point now = Clock::now();
    // Jittered, so that a host's PEs turned away together do not all come back together.
    const Millis step{backoff.count() / 2 + static_cast<long>(std::random_device{}() % (backoff.count() / 2 + 1))};
    std::this_thread::sleep_for(std::min<Clock::duration>(step, deadline > now ? deadline - now : Millis{0}));
    backoff = std::min(backoff * 2, Millis{500});
  };
  auto turned_away = [&](const std::string& why) {
    ++closed_attempts;
    last_close = why;
    m.ch = Channel();
    m.fd.reset();
    if (Clock::now() >= deadline)
      throw Error(Errc::kBootstrap,
                  "the bootstrap store at " + m.where + " closed the connection during the handshake on each of " +
                      std::to_string(closed_attempts) + " attempts in " + seconds_text(connect_timeout) +
                      " s (last: " + why +
                      "): it is turning connections away (too many handshakes at once, or out of file descriptors: "
                      "the launcher's warnings say which) or it is exiting; SHMEM_BOOTSTRAP_TIMEOUT sets how long to "
                      "keep trying");
    pause();
  };
  for (;;) {
    for (;;) {
      Millis left = std::chrono::duration_cast<Millis>(deadline - Clock::now());
      std::string why;
      // Each attempt gets a little time even at the deadline, so that the error reported is the
      // real one (refused, unreachable) rather than our own cut-off.
      m.fd = util::tcp_connect(host, port, std::max(left, Millis{50}), &why);
      if (m.fd) {
        util::set_keepalive(m.fd.get(), m.host_timeout);  // a silent store host is given up (util/socket.hpp)
        break;
      }
      if (err.empty() || why != std::strerror(ETIMEDOUT)) err = why;
      if (why != std::strerror(ECONNREFUSED)) {
        refusing = false;
      } else if (!refusing) {
        refusing = true;
        refused_since = Clock::now();
      } else if (!gone.empty() && Clock::now() - refused_since >= kStoreGoneAfter) {
        throw Error(
            Errc::kBootstrap,
            "nobody listens at the bootstrap store's address " + m.where + " any more (connections refused for " +
                seconds_text(std::chrono::duration_cast<Millis>(Clock::now() - refused_since)) + " s): " + gone);
      }
      if (Clock::now() >= next_report && Clock::now() < deadline) {
        // Silence is the worst answer: say early that the store is not there yet, and why.
        SHMEM_WARN(
            "store", "%s cannot reach the bootstrap store at %s yet (%s, for %lld s; %s); trying until %s s",
            rank >= 0 ? ("rank " + std::to_string(rank)).c_str() : "this process", m.where.c_str(), err.c_str(),
            static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - started).count()),
            unreachable.empty() ? "is the launcher running?" : unreachable.c_str(),
            seconds_text(connect_timeout).c_str());
        next_report = Clock::now() + kReportEvery;
      }
      if (Clock::now() >= deadline)
        throw Error(Errc::kBootstrap,
                    "cannot reach the bootstrap store at " + m.where + " after " + seconds_text(connect_timeout) +
                        " s (" +
                        (unreachable.empty() ? "is the launcher running? SHMEM_STORE_ADDR=" + m.where : unreachable) +
                        "): " + err);
      pause();
    }
    // A connection may wait in the store's listen queue while it serves others' handshakes
    // (it admits a bounded number at once): the handshake may take until the deadline.
    const Millis handshake_wait =
        std::max(kHandshakeTimeout, std::chrono::duration_cast<Millis>(deadline - Clock::now()));
    util::set_io_timeouts(m.fd.get(), handshake_wait, handshake_wait);
    m.ch = Channel(m.fd.get());
    if (m.tls) {
      std::string why;
      // The rank travels in the server name (SNI), so that a store that cannot authenticate us
      // can still say which rank failed; it is a claim only, used for that message.
      if (!m.ch.start_tls(*m.tls, &why, rank >= 0 ? "rank-" + std::to_string(rank) + ".shmem" : std::string())) {
        if (why == "timed out")
          throw Error(Errc::kBootstrap, "the bootstrap store at " + m.where +
                                            " accepted the connection but did not complete the TLS handshake within " +
                                            seconds_text(handshake_wait) +
                                            " s (SHMEM_BOOTSTRAP_TIMEOUT): it is stalled or far too busy");
        // A socket-level end (reset, closed) mid-handshake is a busy store or one going away,
        // not a refusal: a refused key or certificate shows up as a TLS alert.
        const bool closed = why == "connection closed by the peer" || why.find("reset by peer") != std::string::npos ||
                            why.find("Broken pipe") != std::string::npos;
        if (closed) {
          turned_away(why);
          continue;
        }
        throw Error(Errc::kAuth, (rank >= 0 ? "rank " + std::to_string(rank) + " failed authentication"
                                            : std::string("authentication failed")) +
                                     (m.certs ? "" : " (wrong SHMEM_JOB_SECRET?)") +
                                     ": TLS handshake with the bootstrap store at " + m.where + " failed (" + why +
                                     "): " + m.auth_hint());
      }
    }
    bool answered = false;  // the store has replied on this connection
    try {
      // Plain TCP: the secret itself never crosses the network, only a proof of it that
      // answers this connection's challenge (hello_proof.hpp).
      std::string proof;
      if (!tls.enabled) {
        FrameWriter ask;
        const Impl::Reply rep = m.request(Op::kChallenge, ask);
        const std::string nonce =
            m.parse(Op::kChallenge, rep, [](PayloadReader& in) { return std::string(in.bytes(kNonceBytes, "nonce")); });
        answered = true;
        proof = hello_proof(tls.secret, nonce, rank, world_size);
      }
      FrameWriter w;
      w.i64(rank).bytes(proof).i64(world_size);
      m.request(Op::kHello, w);
    } catch (const Error&) {
      // Closed before any reply: busy, as above. A store that refuses us says so (a TLS alert
      // in the handshake, or a refusal reply); a bare close after a TLS handshake is a store
      // that gave up on this connection (its handshake timeout, on a loaded machine).
      if (m.broken != "connection closed" || answered) throw;
      m.broken.clear();
      turned_away("connection closed");
      continue;
    }
    break;
  }
  m.in_handshake = false;
  util::set_io_timeouts(m.fd.get(), Millis{0}, Millis{0});
  SHMEM_DEBUG_LOG("store", "connected to the store at %s as rank %d", m.where.c_str(), rank);
}

StoreClient::StoreClient(util::UniqueFd connected, const std::string& where, int rank, int world_size)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.where = where;
  m.rank = rank;
  m.fd = std::move(connected);
  m.ch = Channel(m.fd.get());
  // The relay answers as fast as the store does; the store may be busy with a large job.
  util::set_io_timeouts(m.fd.get(), kHandshakeTimeout * 3, kHandshakeTimeout * 3);
  FrameWriter w;
  w.i64(rank).bytes("").i64(world_size);
  m.request(Op::kHello, w);
  m.in_handshake = false;
  util::set_io_timeouts(m.fd.get(), Millis{0}, Millis{0});
  SHMEM_DEBUG_LOG("store", "connected to the store through %s as rank %d", m.where.c_str(), rank);
}

std::unique_ptr<StoreLink> StoreClient::release() {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> g(m.mu);
  auto link = std::make_unique<StoreLink>();
  link->fd = std::move(m.fd);
  link->ch = std::move(m.ch);
  link->where = m.where;
  link->host_timeout = m.host_timeout;
  m.broken = "handed over to a relay";
  return link;
}

StoreClient::~StoreClient() {
  if (impl_ && impl_->fd) impl_->ch.close_notify();
}

void StoreClient::set(std::string_view key, std::string_view value) {
  check_key(key);
  check_value(key, value);
  FrameWriter w;
  w.bytes(key).bytes(value);
  impl_->request(Op::kSet, w);
}

std::string StoreClient::get(std::string_view key, Millis timeout) {
  check_key(key);
  FrameWriter w;
  w.bytes(key).i64(timeout_ms(timeout));
  auto rep = impl_->request(Op::kGet, w);
  return impl_->parse(Op::kGet, rep, [](PayloadReader& in) { return std::string(in.bytes(kMaxValue, "value")); });
}

std::optional<std::string> StoreClient::try_get(std::string_view key) {
  check_key(key);
  FrameWriter w;
  w.bytes(key);
  auto rep = impl_->request(Op::kTryGet, w, {Status::kOk, Status::kNotFound});
  if (rep.status == Status::kNotFound) return std::nullopt;
  return impl_->parse(Op::kTryGet, rep, [](PayloadReader& in) { return std::string(in.bytes(kMaxValue, "value")); });
}

std::int64_t StoreClient::add(std::string_view key, std::int64_t delta) {
  check_key(key);
  FrameWriter w;
  w.bytes(key).i64(delta);
  auto rep = impl_->request(Op::kAdd, w);
  return impl_->parse(Op::kAdd, rep, [](PayloadReader& in) { return in.i64(); });
}

bool StoreClient::compare_and_set(std::string_view key, std::string_view expected, std::string_view desired,
                                  std::string* current) {
  check_key(key);
  check_value(key, expected);
  check_value(key, desired);
  if (key.size() + expected.size() + desired.size() + 64 > kMaxPayload)
    throw Error(Errc::kInvalidValue, "compare_and_set on store key '" + printable(key) +
                                         "': expected and desired values together exceed the frame limit");
  FrameWriter w;
  w.bytes(key).bytes(expected).bytes(desired);
  auto rep = impl_->request(Op::kCompareAndSet, w);
  auto [ok, now] = impl_->parse(Op::kCompareAndSet, rep, [](PayloadReader& in) {
    bool ok = in.u32() != 0;
    return std::pair<bool, std::string>(ok, std::string(in.bytes(kMaxValue, "value")));
  });
  if (current) *current = std::move(now);
  return ok;
}

bool StoreClient::remove(std::string_view key) {
  check_key(key);
  FrameWriter w;
  w.bytes(key);
  auto rep = impl_->request(Op::kRemove, w);
  return impl_->parse(Op::kRemove, rep, [](PayloadReader& in) { return in.u32() != 0; });
}

void StoreClient::barrier(std::string_view name, int nranks, Millis timeout) {
  if (name.size() > kMaxKey - 8)
    throw Error(Errc::kInvalidValue, "barrier name of " + std::to_string(name.size()) + " bytes is too long");
  if (nranks <= 0) throw Error(Errc::kInvalidArgument, "barrier with " + std::to_string(nranks) + " participants");
  FrameWriter w;
  w.bytes(name).i64(nranks).i64(timeout_ms(timeout));
  impl_->request(Op::kBarrier, w);
}

std::string StoreClient::wait_failure(int* exit_status) {
  FrameWriter w;
  auto rep = impl_->request(Op::kWaitFailure, w);
  auto [why, status] = impl_->parse(Op::kWaitFailure, rep, [](PayloadReader& in) {
    std::string why(in.bytes(kMaxValue, "reason"));
    return std::pair<std::string, std::int64_t>(std::move(why), in.i64());
  });
  if (exit_status) *exit_status = static_cast<int>(status);
  return why;
}

void StoreClient::leave(int exit_status, std::string_view reason) {
  FrameWriter w;
  w.i64(exit_status).bytes(reason.size() > kMaxKey ? reason.substr(0, kMaxKey) : reason);
  impl_->request(Op::kLeave, w);
}

void StoreClient::global_exit(int status) {
  FrameWriter w;
  w.i64(status);
  impl_->request(Op::kGlobalExit, w);
}

void StoreClient::interrupt() noexcept {
  if (impl_ && impl_->fd) ::shutdown(impl_->fd.get(), SHUT_RDWR);
}

void StoreClient::goodbye() {
  FrameWriter w;
  impl_->request(Op::kGoodbye, w);
}

std::pair<std::string, std::uint16_t> parse_host_port(std::string_view text, std::string_view what) {
  auto bad = [&](const std::string& why) {
    return Error(Errc::kInvalidValue,
                 std::string(what) + ": " + why + " in '" + printable(text, 300) + "' (expected host:port)");
  };
  std::string_view host;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    std::size_t close = text.find(']');
    if (close == std::string_view::npos) throw bad("unterminated '['");
    host = text.substr(1, close - 1);
    if (close + 1 >= text.size() || text[close + 1] != ':') throw bad("missing ':port'");
    port = text.substr(close + 2);
  } else {
    std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) throw bad("missing ':port'");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) throw bad("an IPv6 address must be written as [addr]:port");
  }
  if (host.empty()) throw bad("empty host");
  if (host.find_first_of(" \t\r\n") != std::string_view::npos) throw bad("whitespace in the host");
  unsigned value = 0;
  auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || p != port.data() + port.size() || value == 0 || value > 65535)
    throw bad("invalid port '" + std::string(port) + "'");
  return {std::string(host), static_cast<std::uint16_t>(value)};
}

}  // namespace shmem::bootstrap
