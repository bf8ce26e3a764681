#pragma once
// The bootstrap key-value store: a small TCP service used only on the control plane
// (exchanging addresses, barriers during init/malloc/finalize, global exit, failure notice).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "bootstrap/tls.hpp"
#include "util/unique_fd.hpp"

namespace shmem::bootstrap {

// The world size a StoreClient passes to say "I also claim this rank, and the store's port was
// taken": the store then reports the rank as claimed twice whichever hello came first.
constexpr int kClaimProbe = -2;

using Millis = std::chrono::milliseconds;

struct StoreLink;  // bootstrap/store_link.hpp

// How long a store known to have been listening may refuse connections before a client takes
// it as ended (StoreClient's `gone`): a store that runs never refuses, even when it is busy.
constexpr Millis kStoreGoneAfter{2000};

class StoreServer {
 public:
  struct Options {
    std::string bind_host = "127.0.0.1";  // a single-host job binds to loopback only
    std::uint16_t port = 0;               // 0 = ephemeral
    TlsConfig tls;
    // Called (from a server thread) when a rank that said hello disconnects before finalize.
    std::function<void(int rank, const std::string& reason)> on_rank_lost;
    // Called when a client requests a global exit.
    std::function<void(int rank, int status)> on_global_exit;
    // Bound on the TLS handshake and hello of a new connection, on completing a frame once
    // its first byte arrived, and on sending a reply: a client that stalls or vanishes in
    // the middle is dropped after this long. (Waiting *between* requests is unbounded.)
    Millis io_timeout{10000};
    // A store hosted by a PE: after the job failed, how long the destructor keeps serving so
    // that ranks still arriving hear why (it stops early once every rank has come and had its
    // replies). 0: stop at once (a launcher, which ends the PEs itself).
    Millis linger_on_failure{0};
  };
  explicit StoreServer(Options opts);  // binds and starts serving; throws Error on failure
  ~StoreServer();                      // stops all threads and closes every connection
  StoreServer(const StoreServer&) = delete;
  StoreServer& operator=(const StoreServer&) = delete;

  std::uint16_t port() const noexcept;
  bool rank_connected(int rank) const;  // said hello at some point
  bool rank_finalized(int rank) const;  // said goodbye (clean finalize)
  // Serves `fd`, one end of a socketpair whose other end the caller gives the PE of `rank`
  // (SHMEM_STORE_FD, bootstrap/store_fd.hpp), as a connection that is authenticated already:
  // no TLS and no challenge, and its hello must say `rank`. The store owns `fd` from here on.
  // Thread-safe; throws Error(kInternal) when the socket cannot be set up.
  void adopt(util::UniqueFd fd, int rank);
  // Puts the store into the failed state: every blocked and future request gets `reason`.
  void fail(const std::string& reason);

  // Diagnostics (and tests): how many get/barrier/wait_failure requests are blocked now, and a
  // wait until at least `n` are (false if that did not happen within `timeout`).
  std::size_t blocked_requests() const;
  // Waits until no request is being handled (every blocked request has had its reply written),
  // at most `timeout`; false on timeout. A failing job's store host uses it so that the other
  // PEs hear why before the host process exits.
  bool wait_idle(Millis timeout) const;
  bool wait_for_blocked(std::size_t n, Millis timeout) const;
  // After a failure: waits until every rank of the job (by the world size in the hellos) has
  // connected and every reply is written, at most `timeout`. Returns at once when the job
  // did not fail.
  void wait_all_told(Millis timeout) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class StoreClient {
 public:
  // Connects (retrying until `connect_timeout`), authenticates, and says hello as `rank`
  // (rank < 0: an anonymous helper connection such as a test or a watcher) of a job of
  // `world_size` ranks (0: not said). The store fails the whole job, naming the cause, when a
  // rank's world size differs from the others', its rank is outside the job, or the rank is
  // already connected while the job is still gathering (a connected rank's second hello is
  // always refused).
  // `unreachable` says, when the store cannot be reached in time, what the reader should check
  // (empty: whether the launcher runs, and SHMEM_STORE_ADDR). `gone`, when not empty, says that
  // the store is known to have been listening (its address came from a unique ID, made by the
  // process that started it): connections refused for kStoreGoneAfter then mean it has ended,
  // and the client gives up at once with `gone` as the explanation instead of waiting out
  // connect_timeout.
  StoreClient(const std::string& host, std::uint16_t port, const TlsConfig& tls, int rank, Millis connect_timeout,
              int world_size = 0, const std::string& unreachable = {}, const std::string& gone = {});
  // Over a stream that is authenticated already: a PE's end of the socketpair its host agent's
  // relay gave it (SHMEM_STORE_FD, bootstrap/store_relay.hpp). No TLS and no challenge; says
  // hello as `rank` of `world_size` as above. `where` names the store in messages.
  StoreClient(util::UniqueFd connected, const std::string& where, int rank, int world_size);
  ~StoreClient();
  // For a relay: hands over the authenticated connection (its hello said); this client is
  // unusable afterwards.
  std::unique_ptr<StoreLink> release();
  StoreClient(const StoreClient&) = delete;
  StoreClient& operator=(const StoreClient&) = delete;

  void set(std::string_view key, std::string_view value);
  // Blocks until the key exists; throws Error(kTimeout) naming the key after `timeout`.
  std::string get(std::string_view key, Millis timeout);
  std::optional<std::string> try_get(std::string_view key);
  std::int64_t add(std::string_view key, std::int64_t delta);  // returns the new value
  // Sets key to `desired` if its value is `expected` ("" = key absent). Returns true on
  // success; `current` receives the value after the call.
  bool compare_and_set(std::string_view key, std::string_view expected, std::string_view desired,
                       std::string* current = nullptr);
  bool remove(std::string_view key);  // false if absent
  // All `nranks` callers with the same `name` return together (each name used once).
  void barrier(std::string_view name, int nranks, Millis timeout);
  // Blocks until the store fails or a global exit is requested; returns the reason text and,
  // in *exit_status, the status the job ends with (shmem_global_exit's, a departed PE's, or 1).
  // Used by a watcher thread on its own connection.
  std::string wait_failure(int* exit_status = nullptr);
  void global_exit(int status);
  void goodbye();  // clean finalize: the server no longer treats a disconnect as a loss
  // This PE leaves the job without finalizing (exit(n) before shmem_finalize, or an implicit
  // finalize that could not meet the others): the store fails with `reason` (which should name
  // this PE) and `exit_status`; the owner's on_rank_lost hears `reason`. Returns once the store
  // has recorded it, so that a launcher hears the reason before it sees this process exit.
  void leave(int exit_status, std::string_view reason);
  // Makes a request blocked in another thread (wait_failure) fail at once; the connection is
  // unusable afterwards. Safe to call from any thread.
  void interrupt() noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// "host:port" -> pair; throws Error(kInvalidValue) naming `what` on bad input.
std::pair<std::string, std::uint16_t> parse_host_port(std::string_view text, std::string_view what);

}  // namespace shmem::bootstrap
