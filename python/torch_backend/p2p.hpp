#pragma once
// Point-to-point messages between world PEs for the "shmem" backend, on channels of symmetric
// mailboxes, moved forward by whoever waits (a progress engine without a thread).
//
// A channel has, at every PE, one slot per sender, the sender's sequence word and, per
// receiver, an acknowledgement word at the sender. A message travels in chunks of at most
// the slot size: the sender puts a chunk into its slot at the receiver with putmem_signal
// (the signal is the chunk's number) once the receiver acknowledged the previous chunk; the
// receiver copies it out into the posted tensor and adds one to the acknowledgement word.
// Sends and receives are posted (isend/irecv return at once) and progress whenever any
// operation of the engine waits, so ranks that post sends to each other before their receives
// do not deadlock, whatever the sizes. Between two PEs on one channel, messages arrive in the
// order sent (no tags); the sizes of a send and its receive must agree.
#include <ATen/ATen.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace shmem_torch {

constexpr std::chrono::milliseconds kWaitForever{0};  // torch's "no timeout"

class P2p {
 public:
  struct Op {
    at::Tensor data;  // contiguous; kept alive until the operation completes
    std::size_t done_bytes = 0;
    bool started = false;  // the first chunk went (a zero-byte message has one, empty)
    bool done = false;
  };

  // Collective over every PE: `channels` channels of mailboxes.
  explicit P2p(int channels);
  P2p(const P2p&) = delete;
  P2p& operator=(const P2p&) = delete;

  int channels() const { return channels_; }
  std::shared_ptr<Op> post_send(int channel, int dst, at::Tensor data);
  std::shared_ptr<Op> post_recv(int channel, int src, at::Tensor data);
  // One pass over every posted operation.
  void progress();
  // Progress until `op` completes; false when `timeout` (not kWaitForever) passes first.
  bool wait(const Op& op, std::chrono::milliseconds timeout);

 private:
  struct Link {  // one (channel, peer)
    std::deque<std::shared_ptr<Op>> sends, recvs;
    std::uint64_t sent = 0, received = 0;  // chunks
  };
  Link& link(int channel, int peer) { return links_[static_cast<std::size_t>(channel) * npes_ + peer]; }
  char* slot(int channel, int sender) const;
  std::uint64_t* seq(int channel, int sender) const;
  std::uint64_t* ack(int channel, int receiver) const;
  bool push(int channel, int dst, Link& l);
  bool pull(int channel, int src, Link& l);

  int channels_, npes_, me_;
  std::size_t slot_bytes_;
  char* slots_ = nullptr;           // [channel][sender][slot_bytes_]
  std::uint64_t* words_ = nullptr;  // [channel][seq per sender, ack per receiver]
  std::vector<Link> links_;
  std::size_t pending_ = 0;
};

}  // namespace shmem_torch
