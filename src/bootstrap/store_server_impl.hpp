#pragma once
// Private to the store server: its state and per-connection types, shared by
// store_server.cpp (connections, waiting, failure tracking) and store_server_ops.cpp (requests).
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "bootstrap/frame.hpp"
#include "bootstrap/store.hpp"
#include "bootstrap/tls_conn.hpp"
#include "util/unique_fd.hpp"

namespace shmem::bootstrap {
namespace server_detail {

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

}  // namespace server_detail

struct StoreServer::Impl {
  using Conn = server_detail::Conn;
  using Session = server_detail::Session;
  using WaitEnd = server_detail::WaitEnd;
  using Header = wire::Header;
  using FrameWriter = wire::FrameWriter;
  using Status = wire::Status;

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
  std::size_t in_flight = 0;  // requests being handled (read, reply not yet written)

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

}  // namespace shmem::bootstrap
