#pragma once
// PipeBroadcast: the default group's large broadcasts, pipelined through a ring of slots in
// symmetric staging, on one host or across hosts, with no barrier. Each rank has a source for
// the call: on the root's host the root; on another host its first rank (the host's forwarder)
// has the root, and the host's other ranks have the forwarder. A source copies chunk k into
// its next slot (the root from its tensor, a forwarder with one get from the root's slot, the
// only transfer between hosts, up to half the ring of them in flight, completed by one quiet)
// and raises its readers' `ready` words; a reader copies the chunk
// out of its source's slot (shmem_ptr: same host) into its tensor and acknowledges in the
// source's `done` word for it. So each byte is copied into staging once and out once per rank
// (as gloo's send and receive copies), crosses to each other host once, and chunk k's copy
// out overlaps chunk k + 1's copy in and transfer, where the library's broadcast of staged
// tensors (8 MiB calls: copy in, transfer, copy out, each waiting for the last) did not.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "staging.hpp"

namespace shmem_torch {

class PipeBroadcast {
 public:
  PipeBroadcast(int rank, int size);
  // `bytes` at `data` from `root` to every rank, in place. Collective, in the same order.
  void run(char* data, std::size_t bytes, int root);

 private:
  void setup();  // collective, on the first call: the words, and every rank's host
  int source_of(int r, int root) const;

  int rank_, size_;
  bool ready_setup_ = false;
  Staging words_, slots_;
  std::size_t slot_bytes_ = 0;
  std::vector<int> host_;  // per rank: the lowest world rank on its host
  // Every rank keeps, for every rank as a source, what it published so far and the last of
  // those each rank read (-1: none): a source reuses a slot only once every rank that read an
  // earlier chunk from it has acknowledged it.
  std::vector<std::int64_t> published_;
  std::vector<std::vector<std::int64_t>> last_read_;
};

}  // namespace shmem_torch
