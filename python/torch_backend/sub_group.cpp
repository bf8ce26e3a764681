// ProcessGroupShmemSub (sub_group.hpp): the collectives of a group of some PEs as messages
// between its members on the group's channel of the point-to-point engine.
#include "sub_group.hpp"

#include "process_group.hpp"

namespace shmem_torch {

namespace {

// A contiguous tensor to receive into for `t`: `t` itself, or a new one to copy back.
at::Tensor landing(const at::Tensor& t) {
  return t.is_contiguous() ? t : at::empty_like(t, at::MemoryFormat::Contiguous);
}

void land(const at::Tensor& t, const at::Tensor& landed) {
  if (!landed.is_same(t)) t.copy_(landed);
}

at::Tensor fold(const at::Tensor& acc, const at::Tensor& x, c10d::ReduceOp::RedOpType op) {
  switch (op) {
    case c10d::ReduceOp::SUM:
    case c10d::ReduceOp::AVG: return acc.add_(x);
    case c10d::ReduceOp::PRODUCT: return acc.mul_(x);
    case c10d::ReduceOp::MIN: return at::minimum(acc, x);
    case c10d::ReduceOp::MAX: return at::maximum(acc, x);
    case c10d::ReduceOp::BAND: return acc.bitwise_and_(x);
    case c10d::ReduceOp::BOR: return acc.bitwise_or_(x);
    default: return acc.bitwise_xor_(x);
  }
}

bool supported(at::ScalarType st, c10d::ReduceOp::RedOpType op) {
  const bool bitwise = op == c10d::ReduceOp::BAND || op == c10d::ReduceOp::BOR || op == c10d::ReduceOp::BXOR;
  const bool known = op <= c10d::ReduceOp::BXOR || op == c10d::ReduceOp::AVG;
  if (st == at::kBool || at::isComplexType(st) || !known) return false;
  return !bitwise || at::isIntegralType(st, /*includeBool=*/false);
}

}  // namespace

ProcessGroupShmemSub::ProcessGroupShmemSub(int rank, int size, std::vector<int> world_ranks, int group_id)
    : GroupBase(rank, size, p2p_engine(false), p2p_channel(group_id)),
      world_(std::move(world_ranks)),
      coll_channel_(collective_channel(group_id)) {
  TORCH_CHECK(static_cast<int>(world_.size()) == size && group_id > 0,
              "shmem backend: new_group: bad group description");
}

void ProcessGroupShmemSub::exchange(const std::vector<at::Tensor>& to, const std::vector<at::Tensor>& from) {
  std::vector<std::shared_ptr<P2p::Op>> ops;
  for (int r = 0; r < size_; ++r) {
    if (r != rank_ && from[r].defined()) ops.push_back(p2p_->post_recv(coll_channel_, world_[r], from[r]));
  }
  for (int k = 1; k < size_; ++k) {  // starting after me: not every member sends to rank 0 first
    const int r = (rank_ + k) % size_;
    if (to[r].defined()) ops.push_back(p2p_->post_send(coll_channel_, world_[r], to[r]));
  }
  for (const auto& op : ops) p2p_->wait(*op, kWaitForever);
}

void ProcessGroupShmemSub::combine(const std::vector<at::Tensor>& parts, const c10d::ReduceOp& op,
                                   const at::Tensor& out, const char* who) {
  const at::ScalarType st = out.scalar_type();
  TORCH_CHECK(supported(st, op.op_), "shmem backend: ", who, ": ReduceOp.", op_name(op.op_), " on ", st,
              " is not supported (SUM, AVG, PRODUCT, MIN, MAX on float16, bfloat16, float32/64 and integers; BAND, "
              "BOR, BXOR on integers)");
  const bool half = st == at::kHalf || st == at::kBFloat16;  // through float, rounded once, as PyTorch does
  const at::ScalarType wt = half ? at::kFloat : st;
  at::Tensor acc = parts[0].to(wt, /*non_blocking=*/false, /*copy=*/true);
  for (int r = 1; r < size_; ++r) acc = fold(acc, parts[r].to(wt), op.op_);
  if (op.op_ == c10d::ReduceOp::AVG) divide(acc, size_);
  out.copy_(acc.view(out.sizes()));
}

void ProcessGroupShmemSub::reduce_in_place(const at::Tensor& t, const c10d::ReduceOp& op, const char* who) {
  check_tensor(t, who);
  const at::Tensor mine = t.contiguous();
  std::vector<at::Tensor> to(size_, mine), parts(size_);
  for (int r = 0; r < size_; ++r) parts[r] = r == rank_ ? mine : at::empty_like(mine);
  exchange(to, parts);
  combine(parts, op, t, who);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmemSub::broadcast(std::vector<at::Tensor>& tensors,
                                                               const c10d::BroadcastOptions& opts) {
  const at::Tensor& t = single(tensors, "broadcast");
  check_root(opts.rootRank, size_, "broadcast");
  const int root = static_cast<int>(opts.rootRank);
  std::vector<at::Tensor> to(size_), from(size_);
  if (rank_ == root) {
    to.assign(size_, t.contiguous());
    exchange(to, from);
  } else {
    from[root] = landing(t);
    exchange(to, from);
    land(t, from[root]);
  }
  return done_work(c10d::OpType::BROADCAST, tensors);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmemSub::allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                                               std::vector<at::Tensor>& inputs,
                                                               const c10d::AllgatherOptions&) {
  const at::Tensor& in = single(inputs, "allgather");
  check_list(outputs, size_, "allgather", "output", &in);
  std::vector<at::Tensor> to(size_, in.contiguous()), from(size_);
  for (int r = 0; r < size_; ++r) from[r] = landing(outputs[0][r]);
  exchange(to, from);
  from[rank_].view(-1).copy_(to[rank_].view(-1));
  for (int r = 0; r < size_; ++r) land(outputs[0][r], from[r]);
  return done_work(c10d::OpType::ALLGATHER, outputs[0]);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmemSub::_allgather_base(at::Tensor& output, at::Tensor& input,
                                                                     const c10d::AllgatherOptions&) {
  check_base(output, input, size_, "_allgather_base", "output", "input");
  const at::Tensor flat = landing(output);
  std::vector<at::Tensor> outs = split_rows(flat.view(-1), {}, size_, "output");
  std::vector<at::Tensor> to(size_, input.contiguous().view(-1));
  exchange(to, outs);
  outs[rank_].copy_(to[rank_]);
  land(output, flat);
  return done_work(c10d::OpType::_ALLGATHER_BASE, {output});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmemSub::gather(std::vector<std::vector<at::Tensor>>& outputs,
                                                            std::vector<at::Tensor>& inputs,
                                                            const c10d::GatherOptions& opts) {
  const at::Tensor& in = single(inputs, "gather");
  check_root(opts.rootRank, size_, "gather");
  const int root = static_cast<int>(opts.rootRank);
  std::vector<at::Tensor> to(size_), from(size_);
  if (rank_ != root) {
    to[root] = in.contiguous();
    exchange(to, from);
    return done_work(c10d::OpType::GATHER, {});
  }
  check_list(outputs, size_, "gather", "output", nullptr);
  for (int r = 0; r < size_; ++r) from[r] = r == rank_ ? at::Tensor() : landing(outputs[0][r]);
  exchange(to, from);
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) {
      outputs[0][r].copy_(in.view(outputs[0][r].sizes()));
    } else {
      land(outputs[0][r], from[r]);
    }
  }
  return done_work(c10d::OpType::GATHER, outputs[0]);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmemSub::scatter(std::vector<at::Tensor>& outputs,
                                                             std::vector<std::vector<at::Tensor>>& inputs,
                                                             const c10d::ScatterOptions& opts) {
  const at::Tensor& out = single(outputs, "scatter");
  check_root(opts.rootRank, size_, "scatter");
  const int root = static_cast<int>(opts.rootRank);
  std::vector<at::Tensor> to(size_), from(size_);
  if (rank_ == root) {
    check_list(inputs, size_, "scatter", "input", nullptr);
    for (int r = 0; r < size_; ++r) to[r] = inputs[0][r].contiguous();
    exchange(to, from);
    out.copy_(to[rank_].view(out.sizes()));
  } else {
    from[root] = landing(out);
    exchange(to, from);
    land(out, from[root]);
  }
  return done_work(c10d::OpType::SCATTER, outputs);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmemSub::reduce_scatter(std::vector<at::Tensor>& outputs,
                                                                    std::vector<std::vector<at::Tensor>>& inputs,
                                                                    const c10d::ReduceScatterOptions& opts) {
  const at::Tensor& out = single(outputs, "reduce_scatter");
  check_list(inputs, size_, "reduce_scatter", "input", &out);
  std::vector<at::Tensor> to(size_), parts(size_);
  for (int r = 0; r < size_; ++r) {
    to[r] = inputs[0][r].contiguous();
    parts[r] = r == rank_ ? to[r] : at::empty_like(to[r]);
  }
  exchange(to, parts);
  combine(parts, opts.reduceOp, out, "reduce_scatter");
  return done_work(c10d::OpType::REDUCE_SCATTER, outputs);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmemSub::_reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                                          const c10d::ReduceScatterOptions& opts) {
  check_base(input, output, size_, "_reduce_scatter_base", "input", "output");
  std::vector<at::Tensor> to = split_rows(input.contiguous().view(-1), {}, size_, "input"), parts(size_);
  for (int r = 0; r < size_; ++r) parts[r] = r == rank_ ? to[r] : at::empty_like(to[r]);
  exchange(to, parts);
  combine(parts, opts.reduceOp, output, "_reduce_scatter_base");
  return done_work(c10d::OpType::_REDUCE_SCATTER_BASE, {output});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmemSub::alltoall_base(at::Tensor& output, at::Tensor& input,
                                                                   std::vector<std::int64_t>& output_splits,
                                                                   std::vector<std::int64_t>& input_splits,
                                                                   const c10d::AllToAllOptions&) {
  check_tensor(input, "alltoall_base");
  check_tensor(output, "alltoall_base");
  TORCH_CHECK(input.scalar_type() == output.scalar_type(), "shmem backend: alltoall_base: dtypes differ");
  const at::Tensor flat = landing(output);
  const std::vector<at::Tensor> to = split_rows(input.contiguous(), input_splits, size_, "input");
  const std::vector<at::Tensor> from = split_rows(flat, output_splits, size_, "output");
  exchange(to, from);
  from[rank_].copy_(to[rank_]);
  land(output, flat);
  return done_work(c10d::OpType::ALLTOALL_BASE, {output});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmemSub::alltoall(std::vector<at::Tensor>& outputs,
                                                              std::vector<at::Tensor>& inputs,
                                                              const c10d::AllToAllOptions&) {
  check_alltoall(outputs, inputs, size_);
  std::vector<at::Tensor> to(size_), from(size_);
  for (int r = 0; r < size_; ++r) {
    to[r] = inputs[r].contiguous();
    from[r] = landing(outputs[r]);
  }
  exchange(to, from);
  from[rank_].view(-1).copy_(to[rank_].view(-1));
  for (int r = 0; r < size_; ++r) land(outputs[r], from[r]);
  return done_work(c10d::OpType::ALLTOALL, outputs);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmemSub::barrier(const c10d::BarrierOptions&) {
  const at::Tensor none = at::empty({0}, at::kByte);
  std::vector<at::Tensor> to(size_, none), from(size_);
  for (int r = 0; r < size_; ++r) from[r] = at::empty({0}, at::kByte);
  exchange(to, from);
  return done_work(c10d::OpType::BARRIER);
}

}  // namespace shmem_torch
