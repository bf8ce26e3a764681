#pragma once
// The PEs of one host share one connection to the bootstrap store in jobs that no launcher of
// ours started (torchrun-style, unique ID, mpirun without PMIx; under oshrun the host agent
// relays, store_relay.hpp), so the store holds a connection per host, not two per PE.
//
// The first PE of the job on a host to get here binds an abstract Unix socket named from the
// job (its store address, job id, size and secret, HMAC'd: the name reveals nothing) and runs a
// StoreRelay in a thread of its own; the others connect to it, show the same uid
// (SO_PEERCRED, checked both ways) and get two channels of the relay's connection as
// descriptors (SCM_RIGHTS): one for their StoreClient, one for their job watcher. Nothing is
// left behind: abstract names vanish with their socket.
//
// Lifetime: the owner closes the socket (close_door) once init is done, when every PE of the
// job holds its channels, and keeps the relay until every channel has closed (the others'
// finalize) or its destructor's bound passes. When the store connection ends (the store's host
// went silent, or it closed), the relay closes every channel and the owner tells each joiner
// why over its socket (why_lost), so each PE can say the cause. If the owner dies, its
// channels close and the store reports this host's PEs lost, which ends the job.
#include <memory>
#include <string>

#include "bootstrap/store_relay.hpp"
#include "util/unique_fd.hpp"

namespace shmem::bootstrap {

class HostRelay {
 public:
  struct Options {
    StoreRelay::Options relay;  // the store, its TLS settings and secret, this host's name
    std::string job;            // the job's identity; PEs of one job on one host meet under it
    int rank = -1;              // this PE
  };
  // Joins this host's relay for the job, or becomes it. nullptr when there is none to use (the
  // PE that made it ended before answering, or the socket could not be made): the caller then
  // connects on its own. Throws Error when the owner could not reach the store (its error), or
  // when this PE, owning, cannot.
  static std::unique_ptr<HostRelay> open(const Options& o);
  ~HostRelay();
  HostRelay(const HostRelay&) = delete;
  HostRelay& operator=(const HostRelay&) = delete;

  util::UniqueFd take_store();    // this PE's channel for its StoreClient (once)
  util::UniqueFd take_watcher();  // and for its job watcher (anonymous, rank -1; once)
  int owner_pe() const noexcept;  // the PE that holds the relay (this one, or another)
  bool owner() const noexcept;

  // Every PE of the job has its channels: stop answering on the socket (the owner; idempotent).
  void close_door() noexcept;
  // The owner, about to end its process because the job failed: waits (at most `bound`) until
  // the host's other PEs have ended too, so that the store's word reaches them through the relay
  // first. No-op elsewhere.
  void linger(Millis bound) noexcept;
  // After this PE's channel ended: why this host's store connection ended, as its owner says
  // (waits up to `wait` for the owner's word); or that the owner ended.
  std::string why_lost(Millis wait);

  struct Impl;

 private:
  explicit HostRelay(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace shmem::bootstrap
