#pragma once
// What the "shmem" backend's groups share: the name, the reductions that reduce to one in-place
// reduction of a tensor (allreduce, allreduce_coalesced, reduce), and send/recv on the group's
// channel of the job's point-to-point engine (p2p.hpp).
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <memory>
#include <vector>

#include "p2p.hpp"

// The collectives each kind of group implements on its own (declarations in the class).
// clang-format off
#define SHMEM_TORCH_COLLECTIVES \
  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors, \
                                           const c10d::BroadcastOptions& opts = c10d::BroadcastOptions()) override; \
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs, \
                                           std::vector<at::Tensor>& inputs, \
                                           const c10d::AllgatherOptions& opts = c10d::AllgatherOptions()) override; \
  c10::intrusive_ptr<c10d::Work> _allgather_base( \
      at::Tensor& output, at::Tensor& input, const c10d::AllgatherOptions& opts = c10d::AllgatherOptions()) override; \
  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs, \
                                        const c10d::GatherOptions& opts = c10d::GatherOptions()) override; \
  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs, \
                                         const c10d::ScatterOptions& opts = c10d::ScatterOptions()) override; \
  c10::intrusive_ptr<c10d::Work> reduce_scatter( \
      std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs, \
      const c10d::ReduceScatterOptions& opts = c10d::ReduceScatterOptions()) override; \
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base( \
      at::Tensor& output, at::Tensor& input, \
      const c10d::ReduceScatterOptions& opts = c10d::ReduceScatterOptions()) override; \
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input, \
                                               std::vector<std::int64_t>& output_splits, \
                                               std::vector<std::int64_t>& input_splits, \
                                               const c10d::AllToAllOptions& opts = c10d::AllToAllOptions()) override; \
  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs, \
                                          const c10d::AllToAllOptions& opts = c10d::AllToAllOptions()) override; \
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts = c10d::BarrierOptions()) override;
// clang-format on

namespace shmem_torch {

class GroupBase : public c10d::ProcessGroup {
 public:
  GroupBase(int rank, int size, std::shared_ptr<P2p> engine, int p2p_channel);

  const std::string getBackendName() const override { return "shmem"; }
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors,
                                           const c10d::AllreduceOptions& opts = c10d::AllreduceOptions()) override;
  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(
      std::vector<at::Tensor>& tensors,
      const c10d::AllreduceCoalescedOptions& opts = c10d::AllreduceCoalescedOptions()) override;
  // Every rank gets the result; torch only promises it on the root, so this is a valid reduce.
  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors,
                                        const c10d::ReduceOptions& opts = c10d::ReduceOptions()) override;
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dst, int tag) override;
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int src, int tag) override;

 protected:
  // `t` (any layout) reduced over the group's ranks, in place.
  virtual void reduce_in_place(const at::Tensor& t, const c10d::ReduceOp& op, const char* who) = 0;
  // The world PE of the group's rank `r`.
  virtual int world_rank(int r) const { return r; }

  std::shared_ptr<P2p> p2p_;
  int p2p_channel_;
};

}  // namespace shmem_torch
