// GroupBase (group_base.hpp).
#include "group_base.hpp"

#include "process_group.hpp"

namespace shmem_torch {

GroupBase::GroupBase(int rank, int size, std::shared_ptr<P2p> engine, int p2p_channel)
    : c10d::ProcessGroup(rank, size), p2p_(std::move(engine)), p2p_channel_(p2p_channel) {
  TORCH_CHECK(p2p_ != nullptr,
              "shmem backend: new_group(ranks) with backend 'shmem' needs a 'shmem' group of every rank first "
              "(init_process_group('shmem'), or new_group(backend='shmem') on every rank)");
}

c10::intrusive_ptr<c10d::Work> GroupBase::allreduce(std::vector<at::Tensor>& tensors,
                                                    const c10d::AllreduceOptions& opts) {
  reduce_in_place(single(tensors, "allreduce"), opts.reduceOp, "allreduce");
  return done_work(c10d::OpType::ALLREDUCE, tensors);
}

c10::intrusive_ptr<c10d::Work> GroupBase::allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                              const c10d::AllreduceCoalescedOptions& opts) {
  for (const at::Tensor& t : tensors) reduce_in_place(t, opts.reduceOp, "allreduce_coalesced");
  return done_work(c10d::OpType::ALLREDUCE_COALESCED, tensors);
}

c10::intrusive_ptr<c10d::Work> GroupBase::reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& opts) {
  const at::Tensor& t = single(tensors, "reduce");
  check_root(opts.rootRank, size_, "reduce");
  at::Tensor work = t.clone(at::MemoryFormat::Contiguous);
  reduce_in_place(work, opts.reduceOp, "reduce");
  if (rank_ == opts.rootRank) t.copy_(work);
  return done_work(c10d::OpType::REDUCE, tensors);
}

c10::intrusive_ptr<c10d::Work> GroupBase::send(std::vector<at::Tensor>& tensors, int dst, int) {
  const int world = dst >= 0 && dst < size_ ? world_rank(dst) : -1;
  return p2p_send(p2p_, p2p_channel_, world, tensors, dst, size_);
}

c10::intrusive_ptr<c10d::Work> GroupBase::recv(std::vector<at::Tensor>& tensors, int src, int) {
  const int world = src >= 0 && src < size_ ? world_rank(src) : -1;
  return p2p_recv(p2p_, p2p_channel_, world, tensors, src, size_);
}

}  // namespace shmem_torch
