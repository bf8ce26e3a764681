#pragma once
// A host agent's one connection to the bootstrap store, shared by the PEs it starts.
//
// Instead of a TCP (and TLS) connection per PE, each PE gets one end of a socketpair
// (SHMEM_STORE_FD) on which its StoreClient speaks the store's protocol as on a connection of
// its own, without TLS or challenge: the descriptor is the credential. The relay authenticates
// once to the store, as any client does, and carries every PE's bytes as a channel of that
// connection (wire::Op::kMuxOpen/Data/Close, store_server_mux.cpp), so the store holds one
// connection per host instead of one per PE.
//
// One thread moves the bytes (poll over the store connection and the PEs' ends). A PE that
// closes its end (it exited, or crashed) closes its channel, which the store takes as that
// PE's connection closing. When the store connection ends (the store's host stopped
// answering for SHMEM_HOST_TIMEOUT, the launcher ended) the relay says so once through
// ended_fd()/ended(): the agent ends its PEs and reports it, one message per host.
#include <cstdint>
#include <memory>
#include <string>

#include "bootstrap/store.hpp"
#include "util/unique_fd.hpp"

namespace shmem::bootstrap {

class StoreRelay {
 public:
  struct Options {
    std::string store_host;
    std::uint16_t store_port = 0;
    TlsConfig tls;
    Millis connect_timeout{120000};
    std::string host;  // this host, as the launcher named it (the store's messages say it)
    // What a failed connection's message adds (StoreClient's `unreachable` and `gone`).
    std::string unreachable, gone;
    // When the store connection ends, close every PE's end too (a PE's relay for its host's
    // PEs, bootstrap/host_relay.hpp: they hear it on their channels). Else the ends stay open
    // and the owner ends the PEs (oshrun's agent).
    bool close_ends_on_end = false;
    // Who most likely ended the store when it closed this connection: the bracket after "the
    // bootstrap store at X closed this host's connection".
    std::string closed_hint = "the launcher ended?";
  };
  // Connects and authenticates now (throws Error as StoreClient does), then starts its thread.
  explicit StoreRelay(const Options& opts);
  ~StoreRelay();  // stops the thread; closes every PE's end and the store connection
  StoreRelay(const StoreRelay&) = delete;
  StoreRelay& operator=(const StoreRelay&) = delete;

  // A channel for the PE of `rank` about to start: returns the PE's end of a new socketpair,
  // close-on-exec (the spawner clears that in the PE's child only). Throws Error(kInternal).
  util::UniqueFd add(int rank);

  // Waits until every end that add() returned is closed (or the store connection ended), at
  // most `timeout`. False on timeout.
  bool wait_drained(Millis timeout) const;

  // Readable (an eventfd) once the store connection has ended.
  int ended_fd() const noexcept;
  struct End {
    bool ended = false;
    bool silent = false;  // no reply for SHMEM_HOST_TIMEOUT (a link down, a host gone)
    std::string why;      // a sentence naming the store's address and what happened
  };
  End ended() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace shmem::bootstrap
