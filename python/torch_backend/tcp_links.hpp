#pragma once
// TcpLinks: a TCP connection between this rank and each rank on another host, for the default
// group's large all_to_all blocks (alltoall.hpp), as gloo moves them: the sender's kernel copies
// a block from the input tensor into the socket and the receiver's kernel copies it into the
// output tensor, with no staging and no polling of the library's transport (UCX over TCP emulates
// its one-sided puts with active messages and cost 1.6-1.8x gloo's CPU time per byte on 2 cores).
//
// Setup (collective over every PE, on the first large all_to_all across hosts): each rank listens
// on an ephemeral port of every address (INADDR_ANY) and publishes in symmetric memory its port,
// its up non-loopback IPv4 addresses (only SHMEM_BOOTSTRAP_IFACE's when set) with their masks,
// and a random 32-byte token. A rank connects to each lower-numbered rank on another host (its
// addresses on a subnet of this host first) and accepts from the higher-numbered ones in a
// thread meanwhile; the connector sends its rank and the acceptor's token, the acceptor answers
// with the connector's: both read the other's token through the library's authenticated
// transport, so a stranger (or another job's rank behind a reused address) is turned away and
// the connector tries the next address. When any rank fails to connect, every rank learns it
// (a min-reduction, which also stops the acceptors at once) and the job keeps the library's
// transport for these blocks; the ranks that could not connect warn, naming the addresses tried.
//
// Data: each call exchanges one block per connection, both ways at once (nonblocking sockets,
// whatever can move moves, so no order of sends and receives can deadlock). A block is framed by
// its 8-byte length: a receiver that expected another length fails naming the sender (the ranks'
// split sizes disagree). A peer that closes its end fails the call naming it; a host that goes
// silent is the library's to report (SHMEM_HOST_TIMEOUT ends the job).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace shmem_torch {

// Owns a descriptor (-1: none); closes it when destroyed or replaced.
class OwnedFd {
 public:
  explicit OwnedFd(int fd = -1) noexcept : fd_(fd) {}
  OwnedFd(OwnedFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  OwnedFd& operator=(OwnedFd&& o) noexcept {
    if (this != &o) {
      close_now();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  ~OwnedFd() { close_now(); }
  int get() const noexcept { return fd_; }
  bool open() const noexcept { return fd_ >= 0; }

 private:
  void close_now() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int fd_;
};

class TcpLinks {
 public:
  // Collective over every PE. `remote[j]`: rank j is on another host (the same answer on every
  // rank for every pair). After it, ok() says whether every rank connected to every remote one.
  TcpLinks(int rank, int size, const std::vector<char>& remote);
  TcpLinks(const TcpLinks&) = delete;
  TcpLinks& operator=(const TcpLinks&) = delete;

  bool ok() const { return ok_; }

  struct Block {
    int peer;  // a remote rank
    const char* send;
    std::size_t send_bytes;
    char* recv;
    std::size_t recv_bytes;
  };
  // Starts a call's exchange: one block with each of the peers named (each once, remote).
  void start(const std::vector<Block>& blocks);
  // Moves what can move; with nothing to move, waits up to `timeout_ms` for a socket (-1: until
  // the exchange is done). True once every block of the call is sent and received.
  bool progress(int timeout_ms);

 private:
  struct Flow {
    Block b{};
    std::uint64_t send_len = 0, recv_len = 0;  // the frames' length words
    std::size_t sent = 0, received = 0;        // counting the 8-byte word
    bool done() const;
  };
  // Moves f's bytes until its socket would block; true if any moved.
  bool move(Flow& f);

  int rank_, size_;
  bool ok_ = false;
  std::vector<OwnedFd> fd_;  // per rank: the connection, or none
  std::vector<Flow> flows_;
};

}  // namespace shmem_torch
