// ProcessGroupShmem's collectives: CPU tensors staged through symmetric buffers, moved by the
// library's team collectives on the world team. float16 and bfloat16 reduce through float
// (widened exactly, accumulated in float, rounded once to nearest even, as PyTorch does).
#include "process_group.hpp"

#include <shmem.h>

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>

#include <algorithm>
#include <cstring>

namespace shmem_torch {

namespace {

// Pairs of send/recv channels for groups other than the default one (group ids modulo this).
constexpr int kSubGroupChannels = 16;

// A finished operation: torch's callers wait on it, or on its future (DDP's gradient hooks).
class DoneWork : public c10d::Work {
 public:
  DoneWork(c10d::OpType op, std::vector<at::Tensor> result)
      : c10d::Work(-1, op),
        result_(std::move(result)),
        future_(c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()))) {
    future_->markCompleted(c10::IValue(result_));
    finish();
  }
  bool isCompleted() override { return true; }
  bool isSuccess() const override { return true; }
  bool wait(std::chrono::milliseconds) override { return true; }
  std::vector<at::Tensor> result() override { return result_; }
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override { return future_; }

 private:
  std::vector<at::Tensor> result_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
};

c10::intrusive_ptr<c10d::Work> done(c10d::OpType op, std::vector<at::Tensor> result = {}) {
  return done_work(op, std::move(result));
}

}  // namespace

void check_tensor(const at::Tensor& t, const char* who) {
  TORCH_CHECK(t.device().is_cpu(), "shmem backend: ", who, ": tensors must be on the CPU (got one on ", t.device(),
              ")");
  TORCH_CHECK(t.layout() == at::kStrided, "shmem backend: ", who, ": only dense tensors are supported");
}

const at::Tensor& single(const std::vector<at::Tensor>& ts, const char* who) {
  TORCH_CHECK(ts.size() == 1, "shmem backend: ", who, ": expects exactly one tensor per rank (got ", ts.size(), ")");
  check_tensor(ts[0], who);
  return ts[0];
}

void check_root(std::int64_t root, int size, const char* who) {
  TORCH_CHECK(root >= 0 && root < size, "shmem backend: ", who, ": root ", root, " is outside 0..", size - 1);
}

namespace {

void check_rc(int rc, const char* func) {
  TORCH_CHECK(rc == 0, "shmem backend: ", func, " failed with status ", rc, " (the library logs the reason on stderr)");
}

// ---- reductions by element type --------------------------------------------------------------
using RedFn = int (*)(shmem_team_t, void*, const void*, std::size_t);

template <class T, int (*F)(shmem_team_t, T*, const T*, std::size_t)>
int call(shmem_team_t team, void* dst, const void* src, std::size_t n) {
  return F(team, static_cast<T*>(dst), static_cast<const T*>(src), n);
}

template <class T>
struct Red {};
#define SHMEM_TORCH_ARITH_MEMBERS_(T, N)                          \
  static constexpr RedFn sum = call<T, shmem_##N##_sum_reduce>;   \
  static constexpr RedFn prod = call<T, shmem_##N##_prod_reduce>; \
  static constexpr RedFn min = call<T, shmem_##N##_min_reduce>;   \
  static constexpr RedFn max = call<T, shmem_##N##_max_reduce>;
#define SHMEM_TORCH_ARITH_(T, N)                                          \
  template <>                                                             \
  struct Red<T> {                                                         \
    SHMEM_TORCH_ARITH_MEMBERS_(T, N)                                      \
    static constexpr RedFn band = nullptr, bor = nullptr, bxor = nullptr; \
  };
#define SHMEM_TORCH_INT_(T, N)                                     \
  template <>                                                      \
  struct Red<T> {                                                  \
    SHMEM_TORCH_ARITH_MEMBERS_(T, N)                               \
    static constexpr RedFn band = call<T, shmem_##N##_and_reduce>; \
    static constexpr RedFn bor = call<T, shmem_##N##_or_reduce>;   \
    static constexpr RedFn bxor = call<T, shmem_##N##_xor_reduce>; \
  };
SHMEM_TORCH_ARITH_(float, float)
SHMEM_TORCH_ARITH_(double, double)
SHMEM_TORCH_INT_(std::int8_t, int8)
SHMEM_TORCH_INT_(std::int16_t, int16)
SHMEM_TORCH_INT_(std::int32_t, int32)
SHMEM_TORCH_INT_(std::int64_t, int64)
SHMEM_TORCH_INT_(std::uint8_t, uint8)
#undef SHMEM_TORCH_ARITH_MEMBERS_
#undef SHMEM_TORCH_ARITH_
#undef SHMEM_TORCH_INT_

template <class T>
RedFn pick_op(c10d::ReduceOp::RedOpType op) {
  switch (op) {
    case c10d::ReduceOp::SUM: return Red<T>::sum;
    case c10d::ReduceOp::PRODUCT: return Red<T>::prod;
    case c10d::ReduceOp::MIN: return Red<T>::min;
    case c10d::ReduceOp::MAX: return Red<T>::max;
    case c10d::ReduceOp::BAND: return Red<T>::band;
    case c10d::ReduceOp::BOR: return Red<T>::bor;
    case c10d::ReduceOp::BXOR: return Red<T>::bxor;
    default: return nullptr;
  }
}

// The element type the library reduces `st` in (16-bit floats: float), or Undefined.
at::ScalarType work_type(at::ScalarType st) {
  switch (st) {
    case at::kHalf:
    case at::kBFloat16: return at::kFloat;
    case at::kFloat:
    case at::kDouble:
    case at::kChar:
    case at::kShort:
    case at::kInt:
    case at::kLong:
    case at::kByte: return st;
    default: return at::ScalarType::Undefined;
  }
}

RedFn pick(at::ScalarType wt, c10d::ReduceOp::RedOpType op) {
  switch (wt) {
    case at::kFloat: return pick_op<float>(op);
    case at::kDouble: return pick_op<double>(op);
    case at::kChar: return pick_op<std::int8_t>(op);
    case at::kShort: return pick_op<std::int16_t>(op);
    case at::kInt: return pick_op<std::int32_t>(op);
    case at::kLong: return pick_op<std::int64_t>(op);
    case at::kByte: return pick_op<std::uint8_t>(op);
    default: return nullptr;
  }
}

}  // namespace

void check_list(const std::vector<std::vector<at::Tensor>>& lists, int size, const char* who, const char* what,
                const at::Tensor* like) {
  TORCH_CHECK(lists.size() == 1 && lists[0].size() == static_cast<std::size_t>(size), "shmem backend: ", who,
              ": expects one list of ", size, " ", what, " tensors");
  if (like == nullptr) return;
  for (const at::Tensor& t : lists[0]) {
    check_tensor(t, who);
    TORCH_CHECK(t.numel() == like->numel() && t.scalar_type() == like->scalar_type(), "shmem backend: ", who,
                ": every ", what, " tensor must have the size and dtype of the ", what[0] == 'i' ? "output" : "input");
  }
}

void check_base(const at::Tensor& big, const at::Tensor& part, int size, const char* who, const char* big_name,
                const char* part_name) {
  check_tensor(big, who);
  check_tensor(part, who);
  TORCH_CHECK(big.numel() == part.numel() * size && big.scalar_type() == part.scalar_type(), "shmem backend: ", who,
              ": the ", big_name, " must hold group size times the ", part_name, ", of its dtype");
}

void check_alltoall(const std::vector<at::Tensor>& outputs, const std::vector<at::Tensor>& inputs, int size) {
  TORCH_CHECK(outputs.size() == static_cast<std::size_t>(size) && inputs.size() == static_cast<std::size_t>(size),
              "shmem backend: alltoall: expects ", size, " input and ", size, " output tensors");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    check_tensor(inputs[i], "alltoall");
    check_tensor(outputs[i], "alltoall");
  }
}

const char* op_name(c10d::ReduceOp::RedOpType op) {
  switch (op) {
    case c10d::ReduceOp::SUM: return "SUM";
    case c10d::ReduceOp::AVG: return "AVG";
    case c10d::ReduceOp::PRODUCT: return "PRODUCT";
    case c10d::ReduceOp::MIN: return "MIN";
    case c10d::ReduceOp::MAX: return "MAX";
    case c10d::ReduceOp::BAND: return "BAND";
    case c10d::ReduceOp::BOR: return "BOR";
    case c10d::ReduceOp::BXOR: return "BXOR";
    default: return "PREMUL_SUM";
  }
}

void divide(const at::Tensor& t, int n) {
  if (at::isFloatingType(t.scalar_type())) {
    t.div_(n);
  } else {
    t.div_(n, "trunc");
  }
}

std::vector<at::Tensor> split_rows(const at::Tensor& t, const std::vector<std::int64_t>& given, int size,
                                   const char* which) {
  std::vector<std::int64_t> rows(size, t.dim() ? t.size(0) / size : 0);
  if (!given.empty()) {
    TORCH_CHECK(given.size() == static_cast<std::size_t>(size), "shmem backend: alltoall_base: ", which, " needs ",
                size, " entries");
    rows = given;
  } else {
    TORCH_CHECK(t.dim() && t.size(0) % size == 0, "shmem backend: alltoall_base: dim 0 of the ", which,
                " tensor is not divisible by the world size ", size);
  }
  std::vector<at::Tensor> parts;
  std::int64_t at_row = 0;
  for (std::int64_t r : rows) {
    parts.push_back(t.narrow(0, at_row, r));
    at_row += r;
  }
  TORCH_CHECK(at_row == (t.dim() ? t.size(0) : 0), "shmem backend: alltoall_base: the ", which, " splits add up to ",
              at_row, " rows, not ", t.size(0));
  return parts;
}

std::shared_ptr<P2p> p2p_engine(bool create) {
  static std::shared_ptr<P2p> engine;
  if (engine == nullptr && create) engine = std::make_shared<P2p>(1 + 2 * kSubGroupChannels);
  return engine;
}

int collective_channel(int group_id) { return 1 + 2 * ((group_id - 1) % kSubGroupChannels); }
int p2p_channel(int group_id) { return group_id == 0 ? 0 : collective_channel(group_id) + 1; }

namespace {

constexpr std::size_t kChunkBytes = std::size_t{8} << 20;  // staged per step of a large reduction

// A contiguous 1-D view of `t` (a copy when `t` is not contiguous; `back` then says so).
at::Tensor flat_of(const at::Tensor& t, bool& back) {
  back = !t.is_contiguous();
  return back ? t.contiguous().view(-1) : t.view(-1);
}

at::Tensor blob(void* p, std::int64_t n, at::ScalarType st) {
  return at::from_blob(p, {n}, at::TensorOptions().dtype(st).device(at::kCPU));
}

}  // namespace

c10::intrusive_ptr<c10d::Work> done_work(c10d::OpType op, std::vector<at::Tensor> result) {
  return c10::make_intrusive<DoneWork>(op, std::move(result));
}

// ---- staging ------------------------------------------------------------------------------------
Staging::~Staging() = default;  // the heap goes with the library: freeing here would be a collective at exit

char* Staging::ensure(std::size_t bytes) {
  if (bytes <= cap_ && buf_ != nullptr) return buf_;
  const std::size_t want = std::max<std::size_t>({bytes, cap_ * 2, 4096});
  if (buf_ != nullptr) shmem_free(buf_);
  buf_ = static_cast<char*>(shmem_malloc(want));
  cap_ = buf_ ? want : 0;
  TORCH_CHECK(buf_ != nullptr, "shmem backend: no room for ", want,
              " bytes of staging on the symmetric heap (raise SHMEM_SYMMETRIC_SIZE)");
  return buf_;
}

// ---- the process group ------------------------------------------------------------------------
ProcessGroupShmem::ProcessGroupShmem(int rank, int size, int group_id)
    : GroupBase(rank, size, p2p_engine(true), p2p_channel(group_id)),
      local_(rank, size),
      pipe_(rank, size),
      a2a_(rank, size) {
  TORCH_CHECK(shmem_my_pe() == rank && shmem_n_pes() == size, "shmem backend: rank ", rank, " of ", size,
              " does not match shmem's PE ", shmem_my_pe(), " of ", shmem_n_pes(),
              " (a group of every PE must number them as shmem does)");
}

ProcessGroupShmem::~ProcessGroupShmem() = default;  // symmetric memory goes with the library

void ProcessGroupShmem::allreduce_flat(const at::Tensor& flat, const c10d::ReduceOp& op, const char* who) {
  const at::ScalarType st = flat.scalar_type();
  const at::ScalarType wt = work_type(st);
  const bool avg = op.op_ == c10d::ReduceOp::AVG;  // the sum, divided before rounding to the dtype
  const RedFn fn = wt == at::ScalarType::Undefined ? nullptr : pick(wt, avg ? c10d::ReduceOp::SUM : op.op_);
  TORCH_CHECK(fn != nullptr, "shmem backend: ", who, ": ReduceOp.", op_name(op.op_), " on ", st,
              " is not supported (SUM, AVG, PRODUCT, MIN, MAX on float16, bfloat16, float32/64 and integers; BAND, "
              "BOR, BXOR on integers)");
  const std::int64_t n = flat.numel();
  const std::size_t wsize = at::elementSize(wt);
  if (wt == st && local_.usable() && static_cast<std::size_t>(n) * wsize >= LocalColl::kLocalMinBytes &&
      local_.allreduce(flat, op.op_)) {
    if (avg) divide(flat, size_);
    return;
  }
  const std::int64_t chunk = static_cast<std::int64_t>(std::max<std::size_t>(kChunkBytes / wsize, 1));
  const std::int64_t step = std::min<std::int64_t>(std::max<std::int64_t>(n, 1), chunk);
  char* src = in_.ensure(static_cast<std::size_t>(step) * wsize);
  char* dst = out_.ensure(static_cast<std::size_t>(step) * wsize);
  for (std::int64_t off = 0; off < n; off += step) {
    const std::int64_t m = std::min(step, n - off);
    at::Tensor part = flat.narrow(0, off, m);
    if (wt == st) {
      std::memcpy(src, part.data_ptr(), static_cast<std::size_t>(m) * wsize);
    } else {
      blob(src, m, wt).copy_(part);  // widen exactly
    }
    check_rc(fn(SHMEM_TEAM_WORLD, dst, src, static_cast<std::size_t>(m)), who);
    if (avg) divide(blob(dst, m, wt), size_);
    if (wt == st) {
      std::memcpy(part.data_ptr(), dst, static_cast<std::size_t>(m) * wsize);
    } else {
      part.copy_(blob(dst, m, wt));  // round to nearest even, as PyTorch does
    }
  }
}

void ProcessGroupShmem::reduce_in_place(const at::Tensor& t, const c10d::ReduceOp& op, const char* who) {
  check_tensor(t, who);
  bool back = false;
  at::Tensor flat = flat_of(t, back);
  allreduce_flat(flat, op, who);
  if (back) t.copy_(flat.view(t.sizes()));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmem::broadcast(std::vector<at::Tensor>& tensors,
                                                            const c10d::BroadcastOptions& opts) {
  const at::Tensor& t = single(tensors, "broadcast");
  check_root(opts.rootRank, size_, "broadcast");
  bool back = false;
  at::Tensor flat = flat_of(t, back);
  const std::size_t bytes = static_cast<std::size_t>(flat.numel()) * flat.element_size();
  auto* data = static_cast<char*>(flat.data_ptr());
  if (size_ > 1 && local_.enabled() && bytes >= LocalColl::kLocalMinBytes) {
    pipe_.run(data, bytes, static_cast<int>(opts.rootRank));
    if (back) t.copy_(flat.view(t.sizes()));
    return done(c10d::OpType::BROADCAST, tensors);
  }
  const std::size_t step = std::max<std::size_t>(std::min(bytes, kChunkBytes), 1);
  char* src = in_.ensure(step);
  for (std::size_t off = 0; off < bytes; off += step) {
    const std::size_t m = std::min(step, bytes - off);
    char* dst = bcast_[bcast_next_].ensure(step);
    bcast_next_ = (bcast_next_ + 1) % 3;
    if (rank_ == opts.rootRank) std::memcpy(src, data + off, m);
    check_rc(shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, m, static_cast<int>(opts.rootRank)), "broadcast");
    if (rank_ != opts.rootRank) std::memcpy(data + off, dst, m);
  }
  if (back) t.copy_(flat.view(t.sizes()));
  return done(c10d::OpType::BROADCAST, tensors);
}

const char* ProcessGroupShmem::gather_staged(const void* src, std::size_t bytes) {
  char* s = in_.ensure(std::max<std::size_t>(bytes, 1));
  char* d = out_.ensure(std::max<std::size_t>(bytes * static_cast<std::size_t>(size_), 1));
  std::memcpy(s, src, bytes);
  check_rc(shmem_fcollectmem(SHMEM_TEAM_WORLD, d, s, bytes), "allgather");
  return d;
}

namespace {
// outs[r] from the staged result at r * stride (straight from the staging buffer).
void scatter_blocks(const char* staged, std::size_t stride, const std::vector<at::Tensor>& outs) {
  for (std::size_t r = 0; r < outs.size(); ++r) {
    const at::Tensor& o = outs[r];
    if (o.is_contiguous()) {
      std::memcpy(o.data_ptr(), staged + r * stride, static_cast<std::size_t>(o.numel()) * o.element_size());
    } else {
      o.copy_(blob(const_cast<char*>(staged) + r * stride, o.numel(), o.scalar_type()).view(o.sizes()));
    }
  }
}
}  // namespace

c10::intrusive_ptr<c10d::Work> ProcessGroupShmem::allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                                            std::vector<at::Tensor>& inputs,
                                                            const c10d::AllgatherOptions&) {
  const at::Tensor& in = single(inputs, "allgather");
  check_list(outputs, size_, "allgather", "output", &in);
  const at::Tensor src = in.contiguous();
  const std::size_t bytes = static_cast<std::size_t>(in.numel()) * in.element_size();
  const std::vector<at::Tensor>& outs = outputs[0];
  if (local_.usable() && bytes >= LocalColl::kLocalMinBytes &&
      std::all_of(outs.begin(), outs.end(), [](const at::Tensor& o) { return o.is_contiguous(); })) {
    local_.allgather(src.data_ptr(), bytes, outs);
    return done(c10d::OpType::ALLGATHER, outputs[0]);
  }
  scatter_blocks(gather_staged(src.data_ptr(), bytes), bytes, outs);
  return done(c10d::OpType::ALLGATHER, outputs[0]);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmem::_allgather_base(at::Tensor& output, at::Tensor& input,
                                                                  const c10d::AllgatherOptions&) {
  check_base(output, input, size_, "_allgather_base", "output", "input");
  at::Tensor src = input.contiguous();
  bool back = false;
  at::Tensor flat = flat_of(output, back);
  const std::size_t bytes = static_cast<std::size_t>(input.numel()) * input.element_size();
  if (local_.usable() && bytes >= LocalColl::kLocalMinBytes) {
    const at::Tensor parts = flat.view({size_, input.numel()});
    std::vector<at::Tensor> outs;
    for (int r = 0; r < size_; ++r) outs.push_back(parts[r]);
    local_.allgather(src.data_ptr(), bytes, outs);
  } else {
    std::memcpy(flat.data_ptr(), gather_staged(src.data_ptr(), bytes), bytes * static_cast<std::size_t>(size_));
  }
  if (back) output.copy_(flat.view(output.sizes()));
  return done(c10d::OpType::_ALLGATHER_BASE, {output});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmem::gather(std::vector<std::vector<at::Tensor>>& outputs,
                                                         std::vector<at::Tensor>& inputs,
                                                         const c10d::GatherOptions& opts) {
  const at::Tensor& in = single(inputs, "gather");
  check_root(opts.rootRank, size_, "gather");
  const at::Tensor src = in.contiguous();
  const std::size_t bytes = static_cast<std::size_t>(in.numel()) * in.element_size();
  const char* staged = gather_staged(src.data_ptr(), bytes);
  if (rank_ == opts.rootRank) {
    check_list(outputs, size_, "gather", "output", nullptr);
    scatter_blocks(staged, bytes, outputs[0]);
  }
  return done(c10d::OpType::GATHER, outputs.empty() ? std::vector<at::Tensor>{} : outputs[0]);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmem::scatter(std::vector<at::Tensor>& outputs,
                                                          std::vector<std::vector<at::Tensor>>& inputs,
                                                          const c10d::ScatterOptions& opts) {
  const at::Tensor& out = single(outputs, "scatter");
  check_root(opts.rootRank, size_, "scatter");
  // The root's tensors, concatenated, are broadcast; every rank keeps its own block.
  at::Tensor all = at::empty({size_, out.numel()}, out.options().memory_format(at::MemoryFormat::Contiguous));
  if (rank_ == opts.rootRank) {
    check_list(inputs, size_, "scatter", "input", nullptr);
    for (int r = 0; r < size_; ++r) all[r].copy_(inputs[0][r].reshape(-1));
  }
  std::vector<at::Tensor> one{all};
  c10d::BroadcastOptions b;
  b.rootRank = opts.rootRank;
  broadcast(one, b);
  out.copy_(all[rank_].view(out.sizes()));
  return done(c10d::OpType::SCATTER, outputs);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmem::reduce_scatter(std::vector<at::Tensor>& outputs,
                                                                 std::vector<std::vector<at::Tensor>>& inputs,
                                                                 const c10d::ReduceScatterOptions& opts) {
  const at::Tensor& out = single(outputs, "reduce_scatter");
  check_list(inputs, size_, "reduce_scatter", "input", &out);
  at::Tensor all = at::empty({size_, out.numel()}, out.options().memory_format(at::MemoryFormat::Contiguous));
  for (int r = 0; r < size_; ++r) all[r].copy_(inputs[0][r].reshape(-1));
  allreduce_flat(all.view(-1), opts.reduceOp, "reduce_scatter");
  out.copy_(all[rank_].view(out.sizes()));
  return done(c10d::OpType::REDUCE_SCATTER, outputs);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmem::_reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                                       const c10d::ReduceScatterOptions& opts) {
  check_base(input, output, size_, "_reduce_scatter_base", "input", "output");
  at::Tensor all = input.clone(at::MemoryFormat::Contiguous).view({size_, output.numel()});
  allreduce_flat(all.view(-1), opts.reduceOp, "_reduce_scatter_base");
  output.copy_(all[rank_].view(output.sizes()));
  return done(c10d::OpType::_REDUCE_SCATTER_BASE, {output});
}

// Block j of `inputs` goes to rank j and lands in its outputs[me]. Blocks may differ in size:
// they travel padded to the largest one (agreed by a max-reduction), in one alltoall, or from
// AllToAll::kDirectBlockBytes on through AllToAll's slots of that size.
void ProcessGroupShmem::exchange_blocks(const std::vector<at::Tensor>& outputs, const std::vector<at::Tensor>& inputs,
                                        bool even) {
  std::size_t mine = 0;
  for (const at::Tensor& t : inputs) mine = std::max<std::size_t>(mine, t.numel() * t.element_size());
  for (const at::Tensor& t : outputs) mine = std::max<std::size_t>(mine, t.numel() * t.element_size());
  if (!even) {  // the largest block of any rank
    auto* word = reinterpret_cast<std::uint64_t*>(in_.ensure(2 * sizeof(std::uint64_t)));
    word[0] = mine;
    check_rc(shmem_uint64_max_reduce(SHMEM_TEAM_WORLD, word + 1, word, 1), "alltoall");
    mine = word[1];
  }
  const std::size_t block = std::max<std::size_t>(mine, 1);
  if (block >= AllToAll::kDirectBlockBytes) {
    // Large blocks: put by each rank straight from its tensors into the others' slots, a
    // signal per chunk, copied out as they arrive (alltoall.hpp).
    a2a_.run(outputs, inputs, block);
    return;
  }
  const std::size_t total = block * static_cast<std::size_t>(size_);
  char* dst = out_.ensure(total);
  char* src = in_.ensure(total);
  for (int j = 0; j < size_; ++j) {
    const at::Tensor c = inputs[j].contiguous();
    std::memcpy(src + j * block, c.data_ptr(), c.numel() * c.element_size());
  }
  check_rc(shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, block), "alltoall");
  scatter_blocks(dst, block, outputs);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmem::alltoall_base(at::Tensor& output, at::Tensor& input,
                                                                std::vector<std::int64_t>& output_splits,
                                                                std::vector<std::int64_t>& input_splits,
                                                                const c10d::AllToAllOptions&) {
  check_tensor(input, "alltoall_base");
  check_tensor(output, "alltoall_base");
  TORCH_CHECK(input.scalar_type() == output.scalar_type(), "shmem backend: alltoall_base: dtypes differ");
  const std::vector<at::Tensor> ins = split_rows(input, input_splits, size_, "input");
  const std::vector<at::Tensor> outs = split_rows(output, output_splits, size_, "output");
  // No splits: every block of every rank has the same size (torch requires equal tensors).
  exchange_blocks(outs, ins, input_splits.empty() && output_splits.empty());
  return done(c10d::OpType::ALLTOALL_BASE, {output});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmem::alltoall(std::vector<at::Tensor>& outputs,
                                                           std::vector<at::Tensor>& inputs,
                                                           const c10d::AllToAllOptions&) {
  check_alltoall(outputs, inputs, size_);
  exchange_blocks(outputs, inputs, false);
  return done(c10d::OpType::ALLTOALL, outputs);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmem::barrier(const c10d::BarrierOptions&) {
  shmem_barrier_all();
  return done(c10d::OpType::BARRIER);
}

}  // namespace shmem_torch
