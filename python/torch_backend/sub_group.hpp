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

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors,
                                           const c10d::BroadcastOptions& opts = c10d::BroadcastOptions()) override;
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                           std::vector<at::Tensor>& inputs,
                                           const c10d::AllgatherOptions& opts = c10d::AllgatherOptions()) override;
  c10::intrusive_ptr<c10d::Work> _allgather_base(
      at::Tensor& output, at::Tensor& input, const c10d::AllgatherOptions& opts = c10d::AllgatherOptions()) override;
  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                                        const c10d::GatherOptions& opts = c10d::GatherOptions()) override;
  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
                                         const c10d::ScatterOptions& opts = c10d::ScatterOptions()) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(
      std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
      const c10d::ReduceScatterOptions& opts = c10d::ReduceScatterOptions()) override;
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(
      at::Tensor& output, at::Tensor& input,
      const c10d::ReduceScatterOptions& opts = c10d::ReduceScatterOptions()) override;
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input,
                                               std::vector<std::int64_t>& output_splits,
                                               std::vector<std::int64_t>& input_splits,
                                               const c10d::AllToAllOptions& opts = c10d::AllToAllOptions()) override;
  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                                          const c10d::AllToAllOptions& opts = c10d::AllToAllOptions()) override;
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts = c10d::BarrierOptions()) override;

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
