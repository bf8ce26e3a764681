#pragma once
// Private to the store server: its state and per-connection types, shared by
// store_server.cpp (the event loop: connections, I/O, deadlines, failure tracking),
// store_server_admit.cpp (accepting connections, the handshake limits, eviction),
// store_server_ops.cpp (requests) and store_server_mux.cpp (a host agent's channels).
//
// One thread serves every connection with non-blocking sockets (epoll; TLS through OpenSSL on
// non-blocking sockets). A request that must wait (get of an absent key, barrier, wait_failure)
// is parked on its connection and answered when the store changes, fails or its deadline
// passes; it costs no thread. A connection holds no more memory than what has arrived.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "bootstrap/frame.hpp"
#include "bootstrap/store.hpp"
#include "bootstrap/store_server_warn.hpp"
#include "bootstrap/tls_conn.hpp"
#include "util/event_fd.hpp"
#include "util/parent_only_fd.hpp"

namespace shmem::bootstrap {
namespace server_detail {

using Clock = std::chrono::steady_clock;

// A connection that has not said hello after this long may be closed to make room for a new
// one from the same source (an honest handshake takes milliseconds).
constexpr auto kEvictAfter = std::chrono::seconds(1);

inline std::string ms_text(Clock::duration d) {
  return std::to_string(std::chrono::duration_cast<Millis>(d).count()) + " ms";
}

// What a client may send while its request is parked or its reply is not out yet (the client
// library never pipelines; this bounds one that does).
constexpr std::size_t kMaxUnhandledInput = 64 * 1024;

// A request waiting for the store to change.
struct Parked {
  wire::Op op;
  std::uint32_t id = 0;
  std::string key;       // get: the key; barrier: its go key; wait_failure: empty
  std::string name;      // barrier: its name (for the timeout message)
  std::int64_t nranks = 0;
  std::int64_t timeout_ms = -1;
  Clock::time_point deadline = Clock::time_point::max();
};

enum class Phase { kTls, kHello, kReady, kClosing };

struct Conn {
  util::ParentOnlyFd fd;
  std::string peer;    // "1.2.3.4:5", from accept (known even if the peer resets at once)
  std::string lost_why;  // why the connection ended, when more is known than "closed"
  std::string nonce;     // plain TCP: the challenge this connection's hello must answer
  std::string source;  // "1.2.3.4": the unit of the per-source limits
  Channel ch;
  Phase phase = Phase::kTls;
  Clock::time_point accepted;
  Clock::time_point handshake_deadline;                      // TLS + hello, as a whole
  bool stepped = false;  // the TLS handshake has been read from once (handshake_deadline restarted)
  Clock::time_point frame_deadline = Clock::time_point::max();  // a frame that has begun
  Clock::time_point write_deadline = Clock::time_point::max();  // a reply that is not out
  std::string in;       // received, not yet handled (grows only with what arrived)
  std::string out;      // reply bytes not yet written
  std::size_t out_off = 0;
  bool want_write = false;  // TLS wants the socket writable to go on
  bool heard = false;       // the client has sent something (an idle one may be evicted)
  bool looked = false;      // its first bytes were checked for the other protocol
  unsigned events = 0;      // epoll interest registered now
  std::optional<Parked> parked;
  // Protocol state.
  bool said_hello = false;
  bool said_goodbye = false;
  bool live = false;  // counted in Impl::live (said hello as a rank, still connected)
  bool left = false;  // announced its departure (kLeave): its disconnect is no news
  int rank = -1;
  // A channel of a host agent's relay (store_server_mux.cpp): no socket of its own, its bytes
  // come and go in its parent's kMuxData frames, and its parent authenticated it. Otherwise a
  // connection like any other: its own phase, hello, parked request and goodbye.
  Conn* parent = nullptr;
  std::uint32_t chan = 0;
  int declared_rank = -1;    // the rank its agent started on it: the only one its hello may say
  bool peer_closed = false;  // the agent closed it (no kMuxClose goes back)
  // A relay's own connection (its host, from the channel opens) and its open channels.
  std::string host;
  std::unordered_map<std::uint32_t, Conn*> channels;
  bool relay = false;
  bool relay_dirty = false;  // channels queued output since it was last flushed
  // A socketpair end the store's owner handed over for a PE of its host (StoreServer::adopt):
  // authenticated by being handed over; its hello must say declared_rank.
  bool adopted = false;
  bool trusted() const { return parent || adopted; }  // no TLS, no challenge: declared_rank
  bool pending() const { return !trusted() && (phase == Phase::kTls || phase == Phase::kHello); }
};

// A protocol violation: the connection is closed with one warning naming the reason.
struct Violation {
  std::string reason;
};

}  // namespace server_detail

struct StoreServer::Impl {
  using Conn = server_detail::Conn;
  using Parked = server_detail::Parked;
  using Phase = server_detail::Phase;
  using Clock = server_detail::Clock;
  using Header = wire::Header;
  using FrameWriter = wire::FrameWriter;
  using Status = wire::Status;

  Options opts;
  std::chrono::seconds host_timeout{60};  // SHMEM_HOST_TIMEOUT: keepalive of every connection
  std::unique_ptr<TlsContext> tls;
  util::ParentOnlyFd listen_fd;
  util::EventFd wake_fd;
  util::UniqueFd epoll_fd;
  util::UniqueFd spare_fd;  // given up to accept-and-close when the process runs out of fds
  std::uint16_t port = 0;
  std::thread loop_thread;

  // Limits on connections that have not said hello yet (chosen at start from RLIMIT_NOFILE).
  std::size_t max_pending_total = 512;
  std::size_t max_pending_per_source = 128;

  // Store state, guarded by mu (the loop holds it while it handles requests; the public
  // methods read it from other threads). cv is notified whenever any of it changes.
  mutable std::mutex mu;
  mutable std::condition_variable cv;
  std::unordered_map<std::string, std::string> kv;
  std::size_t kv_bytes = 0;      // keys and values held in kv (under mu)
  std::size_t kv_max_bytes = 0;  // SHMEM_STORE_MAX_SIZE: a set that would pass it is refused
  bool stopping = false;
  bool failed = false;
  std::string fail_reason;
  int fail_status = 1;  // the exit status the failure stands for (wait_failure replies carry it)
  std::set<int> connected;
  std::set<int> finalized;
  std::set<int> live;      // ranks connected now (a second hello for one is refused)
  int job_size = 0;        // the world size the first ranked hello said (0: not yet known)
  int job_size_from = -1;  // ... and the rank that said it
  std::map<int, std::string> auth_claims;  // failed authentication before the size was known
  std::size_t blocked = 0;    // parked requests
  std::size_t in_flight = 0;  // parked requests and replies not yet written
  bool gathered() const { return job_size > 0 && static_cast<int>(connected.size()) >= job_size; }

  // Loop-only state.
  std::unordered_map<int, std::unique_ptr<Conn>> conns;  // by fd
  std::size_t pending_total = 0;
  std::unordered_map<std::string, std::size_t> pending_by_source;
  bool closing_all = false;    // the loop's end: close_conn leaves the sockets readable (linger_close)
  bool listen_paused = false;  // every handshake slot is taken: new connections wait in the queue
  Clock::time_point paused_since;
  bool paused_warned = false;
  std::unordered_set<std::string> changed_keys;  // since the parked requests were last looked at
  bool wake_all = false;                        // failure or stop: look at every parked request
  WarnLimiter warnings;
  // Traffic (loop only), logged once at INFO when the server stops: connections accepted, the
  // most open at once, and the protocol bytes read and written (after TLS).
  std::uint64_t conns_total = 0;
  std::size_t conns_peak = 0;
  std::size_t sockets_open = 0;      // connections with a socket (relay channels are not)
  std::uint64_t channels_total = 0;  // relay channels opened
  int next_channel_key = -2;         // a channel's key in conns (a socket's is its fd)
  std::vector<int> dirty_relays;     // keys of relays whose channels queued output
  // Socketpair ends StoreServer::adopt handed over, with their ranks (under mu).
  std::vector<std::pair<util::UniqueFd, int>> adoptions;
  std::uint64_t bytes_in = 0, bytes_out = 0;

  // store_server.cpp: the loop.
  void run() noexcept;
  void on_conn(Conn& c, unsigned events);
  void advance(Conn& c);  // handshake, reads, requests, writes as far as they go
  bool refuse_plain_client(Conn& c);  // true: it was one, and is closed
  bool read_available(Conn& c);
  void handle_frames(Conn& c);
  void flush(Conn& c);
  void update_interest(Conn& c);
  void close_conn(Conn& c, bool quiet);
  void sweep(Clock::time_point now);
  void wake_parked();
  std::optional<Clock::time_point> next_deadline() const;
  void drop(Conn& c, const char* reason, const std::string& detail);

  // store_server_admit.cpp: admission. on_listen accepts within the limits on handshakes in
  // progress (set_admission_limits: from RLIMIT_NOFILE, at start); an idle handshake may be
  // closed to make room; when none may, the listener pauses and new connections wait in the
  // kernel's queue. note_pending_end: a connection leaves the handshake counts.
  void set_admission_limits();
  void on_listen();
  void note_pending_end(Conn& c);
  Conn* evictable(const std::string* source, Clock::time_point now);
  void pause_listen(bool pause);
  void resume_or_warn(Clock::time_point now);

  // store_server_ops.cpp: requests. handle() returns false to close the connection (after the
  // queued reply is written).
  bool handle(Conn& c, const Header& h, std::string_view payload);
  bool handle_hello(Conn& c, const Header& h, wire::PayloadReader& in);
  // Answers a parked request if it can be answered now (or its deadline passed); true if so.
  bool try_unpark(Conn& c, Clock::time_point now);
  void reply(Conn& c, std::uint16_t op, std::uint32_t id, FrameWriter& w);
  void reply_error(Conn& c, std::uint16_t op, std::uint32_t id, Status st, const std::string& msg);

  // store_server_mux.cpp: a host agent's channels. handle_mux takes kMuxOpen/Data/Close from a
  // relay's connection; mux_flush moves a channel's replies into its parent's output;
  // mux_closed tells the agent that the store closed a channel; close_channels closes every
  // channel of a relay that closed; flush_relays writes what channels queued.
  bool handle_mux(Conn& c, const Header& h, std::string_view payload);
  void mux_flush(Conn& ch);
  void mux_closed(Conn& ch);
  void close_channels(Conn& relay);
  void flush_relays();
  void take_adoptions();  // store_server.cpp: serves what adopt() handed over

  // Failure tracking (any thread for enter_failed; the loop for the rest).
  // kv mutations that keep kv_bytes (under mu). kv_refusal: empty when `key` may hold `len`
  // bytes within kv_max_bytes, else the message that refuses it.
  std::string kv_refusal(const std::string& key, std::size_t len) const;
  void kv_assign(const std::string& key, std::string_view value);
  bool kv_erase(const std::string& key);
  bool handle_challenge(Conn& c, const Header& h, wire::PayloadReader& in);
  void rank_lost(int rank, const std::string& why);  // why: empty = the connection closed
  void depart(int rank, const std::string& reason, int status);
  void lose(int rank, const std::string& reason, int status, bool departed);
  void enter_failed(const std::string& reason, int status = 1);
  // A client that claimed to be `rank` failed authentication: while the job is still gathering
  // that is a misconfigured rank, and the job fails naming it (afterwards: only a warning).
  void auth_failed(const std::string& peer, int rank, const char* how);
  void wake() noexcept;  // makes the loop look at the state (from any thread)
  void recount_locked();
};

}  // namespace shmem::bootstrap
