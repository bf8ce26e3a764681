#pragma once
// ProcessGroupShmemSub: a "shmem" group of some of the PEs (dist.new_group(ranks) with a
// subset). torch creates it on its members only, so it cannot make a shmem team (a split is
// collective over the parent team) nor allocate symmetric memory: its collectives are
// messages between the members over the job's point-to-point engine (p2p.hpp), on the group's
// own channel, and every member combines what it received in rank order (the same result on
// every member). Each call completes before it returns. Meant for correctness where a script
// needs sub-groups, not for speed: each member sends its whole tensor to every other member.
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <memory>
#include <vector>

#include "group_base.hpp"
#include "p2p.hpp"

namespace shmem_torch {

class ProcessGroupShmemSub : public GroupBase {
 public:
  // `world_ranks`: the members' world ranks, in group rank order; `group_id` as for
  // ProcessGroupShmem.
  ProcessGroupShmemSub(int rank, int size, std::vector<int> world_ranks, int group_id);

  SHMEM_TORCH_COLLECTIVES

 private:
  // to[r] goes to rank r, from[r] is filled by rank r (undefined: nothing); to[me] is copied
  // into from[me] when both are defined. Contiguous tensors.
  void exchange(const std::vector<at::Tensor>& to, const std::vector<at::Tensor>& from);
  // parts[r] combined in rank order into `out` (any layout).
  void combine(const std::vector<at::Tensor>& parts, const c10d::ReduceOp& op, const at::Tensor& out, const char* who);
  void reduce_in_place(const at::Tensor& t, const c10d::ReduceOp& op, const char* who) override;

  std::vector<int> world_;
  int world_rank(int r) const override { return world_[r]; }
  int coll_channel_;
};

}  // namespace shmem_torch
