#pragma once
// Large all_gather and all_reduce of the default group when every rank runs on one host: each
// rank reads its peers' symmetric staging through shmem_ptr straight into its own tensors, so a
// byte is copied once into staging and once out of it (as gloo's send and receive copies over
// TCP loopback), where the library's collectives on staged tensors copy it three to five times
// (docs/performance.md, "PyTorch"). Used from kLocalMinBytes on (broadcast too, through
// pipe_broadcast.hpp); smaller calls keep the library's collectives (pushed, one hand-off),
// whose latency this cannot beat.
#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/Types.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "staging.hpp"

namespace shmem_torch {

class LocalColl {
 public:
  static constexpr std::size_t kLocalMinBytes = std::size_t{256} << 10;

  LocalColl(int rank, int size);
  // Whether every rank of the world runs on this host (the same answer on every rank).
  bool usable() const { return usable_ && enabled_; }
  // Off: the library's collectives on staged tensors (bench/torch_vs_gloo.py --ab compares).
  void enable(bool on) { enabled_ = on; }
  bool enabled() const { return enabled_; }

  // Every rank's `bytes` at `src` into outs[r] (contiguous, `bytes` each).
  void allgather(const void* src, std::size_t bytes, const std::vector<at::Tensor>& outs);
  // `flat` (contiguous 1-D, a dtype the library reduces natively) reduced in place: each rank
  // reduces its slice of every rank's staged copy into its tensor, the others copy it from there.
  // False when `op` has no ATen counterpart here (the caller takes the library's path).
  bool allreduce(const at::Tensor& flat, c10d::ReduceOp::RedOpType op);

 private:
  int rank_, size_;
  bool usable_;
  bool enabled_ = true;
  Staging stage_[2];
  int next_stage_ = 0;
};

}  // namespace shmem_torch
