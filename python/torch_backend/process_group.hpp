#pragma once
// ProcessGroupShmem: the "shmem" backend of torch.distributed (torch 1.13's c10d ProcessGroup
// API), on CPU tensors, through the library's collectives on the world team. Every collective
// runs to completion before it returns (the Work it returns is complete, its future too);
// send/recv return posted work that completes as its wait progresses the engine.
//
// Tensors need not be symmetric: each operation stages them through symmetric buffers that grow
// as needed (collectively: every rank asks for the same sizes, as torch requires of the sizes
// of a collective's tensors) and are reused. send/recv go through the job's point-to-point
// engine (p2p.hpp) on the group's channel. Groups of some ranks: sub_group.hpp.
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "alltoall.hpp"
#include "group_base.hpp"
#include "local_coll.hpp"
#include "pipe_broadcast.hpp"
#include "staging.hpp"
#include "p2p.hpp"

namespace shmem_torch {

// A completed Work whose future holds `result` (torch's callers wait on it, or on its future:
// DDP's gradient hooks).
c10::intrusive_ptr<c10d::Work> done_work(c10d::OpType op, std::vector<at::Tensor> result = {});

// The job's point-to-point engine: `create` (collective over every PE) makes it the first
// time; later calls return it. Null when no group over every PE created it yet.
std::shared_ptr<P2p> p2p_engine(bool create);
// Group `group_id`'s channels of the engine: its collectives (sub-groups) and its send/recv.
int collective_channel(int group_id);
int p2p_channel(int group_id);
// send/recv of a group on `channel`, to or from world PE `world_peer` (`peer`: the group's rank).
c10::intrusive_ptr<c10d::Work> p2p_send(const std::shared_ptr<P2p>& engine, int channel, int world_peer,
                                        std::vector<at::Tensor>& tensors, int peer, int size);
c10::intrusive_ptr<c10d::Work> p2p_recv(const std::shared_ptr<P2p>& engine, int channel, int world_peer,
                                        std::vector<at::Tensor>& tensors, int peer, int size);

// Shared checks (process_group.cpp).
void check_tensor(const at::Tensor& t, const char* who);
const at::Tensor& single(const std::vector<at::Tensor>& ts, const char* who);
void check_root(std::int64_t root, int size, const char* who);
// alltoall_base: `t` cut along dim 0 into `size` parts of the given rows (equal when empty).
std::vector<at::Tensor> split_rows(const at::Tensor& t, const std::vector<std::int64_t>& given, int size,
                                   const char* which);
const char* op_name(c10d::ReduceOp::RedOpType op);
// `lists`: one list of `size` tensors (`what`: "input" or "output"), each dense on the CPU with
// the numel and dtype of `like` when given.
void check_list(const std::vector<std::vector<at::Tensor>>& lists, int size, const char* who, const char* what,
                const at::Tensor* like);
// `big` holds `size` times `part`, of its dtype (the _base forms).
void check_base(const at::Tensor& big, const at::Tensor& part, int size, const char* who, const char* big_name,
                const char* part_name);
void check_alltoall(const std::vector<at::Tensor>& outputs, const std::vector<at::Tensor>& inputs, int size);
// In place: t /= n (integers: truncated), for ReduceOp.AVG.
void divide(const at::Tensor& t, int n);

class ProcessGroupShmem : public GroupBase {
 public:
  // `group_id`: torch's name of the group as a number (0: the default group), which picks its
  // send/recv channel.
  ProcessGroupShmem(int rank, int size, int group_id);
  ~ProcessGroupShmem() override;

  SHMEM_TORCH_COLLECTIVES

  // Whether large collectives take the direct paths (local_coll.hpp, pipe_broadcast.hpp) where
  // they can, and large all_to_all blocks to other hosts the sockets (tcp_links.hpp); off, the
  // library's collectives on staged tensors, and the slots for every all_to_all block.
  void set_direct_paths(bool on) {
    local_.enable(on);
    a2a_.set_sockets(on);
  }
  std::uint64_t alltoall_socket_blocks() const { return a2a_.socket_blocks(); }

 private:
  // In place over every rank: `flat` is a contiguous 1-D tensor.
  void allreduce_flat(const at::Tensor& flat, const c10d::ReduceOp& op, const char* who);
  // In place over every rank, any layout.
  void reduce_in_place(const at::Tensor& t, const c10d::ReduceOp& op, const char* who) override;
  // Every rank's `bytes` bytes at `src`, gathered in rank order in the staging buffer returned
  // (valid until the next operation).
  const char* gather_staged(const void* src, std::size_t bytes);
  // Block j of `inputs` to rank j, into its outputs[me]; `even`: every block of every rank has
  // the size of this rank's first (no agreement on the largest needed).
  void exchange_blocks(const std::vector<at::Tensor>& outputs, const std::vector<at::Tensor>& inputs, bool even);

  Staging in_, out_;
  // Large collectives when every rank is on this host (local_coll.hpp).
  LocalColl local_;
  PipeBroadcast pipe_;
  AllToAll a2a_;  // large all_to_all blocks
  // A root pushes small broadcasts into the members' buffers up to two calls ahead of their
  // copying out (docs/design.md, collectives): broadcasts rotate over three.
  Staging bcast_[3];
  int bcast_next_ = 0;
};

}  // namespace shmem_torch
