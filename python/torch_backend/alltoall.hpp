#pragma once
// AllToAll: the default group's large all_to_all blocks (from kDirectBlockBytes), on one host or
// across hosts, with no barrier. Every rank has a receive slot per sender in symmetric staging
// (`block` bytes each). A sender puts block j in chunks straight from its input tensor into its
// slot at rank j (shmem_putmem_signal, which returns at local completion: across hosts once the
// transport has handed the chunk to the network), each chunk carrying in the signal word of that
// sender at j the count of chunks sent so far (cumulative over calls; a fence between rounds
// keeps them in order), so the receiver copies chunk k into its output as soon as it arrives,
// while later chunks are still on the wire: the copy out overlaps the transfer instead of
// following a barrier. Its own block goes from input to output directly.
//
// Credits instead of barriers: once a receiver has copied out a sender's block of call e, it
// sets that sender's `done` word for it to e; a sender writes into a receiver's slot in call e
// only after that word reached e - 1, so no call overwrites a slot still being read. The call
// returns once every block is in and every put has returned (the inputs may be reused at once);
// no quiet: across hosts, waiting for the receivers to acknowledge this rank's last chunks took
// up to a third of a call. Each call is collective, in the same order on every rank; a block's
// bytes at its sender and at its receiver must agree (torch's split sizes).
//
// Blocks to and from ranks on other hosts go through TcpLinks (tcp_links.hpp) instead, straight
// from the input tensor into the socket and from the socket into the output, while the host's
// own blocks take the slots; without the links (set_sockets(false), or when a rank could not
// connect) they take the slots too.
#include <ATen/ATen.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "staging.hpp"
#include "tcp_links.hpp"

namespace shmem_torch {

class AllToAll {
 public:
  // Blocks of at least this size take this path (smaller: the library's alltoall on staged
  // tensors, whose latency this cannot beat).
  static constexpr std::size_t kDirectBlockBytes = std::size_t{256} << 10;

  AllToAll(int rank, int size);
  // inputs[j] to rank j's outputs[rank]; `block`: the largest block of any rank (the same on
  // every rank). Collective.
  void run(const std::vector<at::Tensor>& outputs, const std::vector<at::Tensor>& inputs, std::size_t block);
  // Whether blocks to other hosts may take TcpLinks (on by default); the same on every rank.
  void set_sockets(bool on) { sockets_ = on; }
  // The blocks received through the sockets so far (tests: which path the calls took).
  std::uint64_t socket_blocks() const { return socket_blocks_; }

 private:
  void setup();  // collective, on the first call: the signal and credit words
  // Chunks of `bytes` (at least one byte: one chunk per kChunkBytes; none for an empty block).
  static std::uint64_t chunks_of(std::size_t bytes);

  int rank_, size_;
  bool ready_setup_ = false;
  Staging words_, slots_;
  std::uint64_t calls_ = 0;
  // Per peer: the chunks this rank put to it so far, and those it received from it (the
  // cumulative values of the signal words).
  std::vector<std::uint64_t> sent_, received_;
  bool sockets_ = true;
  bool tried_links_ = false;
  std::uint64_t socket_blocks_ = 0;
  std::unique_ptr<TcpLinks> links_;  // set up (collectively) at the first call across hosts
};

}  // namespace shmem_torch
