// LocalColl: the default group's large collectives on one host, through shmem_ptr (local_coll.hpp).
#include "local_coll.hpp"

#include <shmem.h>

#include <algorithm>
#include <cstring>

namespace shmem_torch {

namespace {

// Allgather and allreduce: staged in steps of this much per rank, alternating two buffers so one
// barrier per step orders every reuse (a rank writes buffer b at step s only after every rank
// passed step s - 1's barrier, so finished reading b at step s - 2).
constexpr std::size_t kStepBytes = std::size_t{2} << 20;

at::Tensor blob(void* p, std::int64_t n, at::ScalarType st) {
  return at::from_blob(p, {n}, at::TensorOptions().dtype(st).device(at::kCPU));
}

// out = a op b (elementwise; `out` may be `a`), for the ops `supported` lists.
void combine(c10d::ReduceOp::RedOpType op, at::Tensor& out, const at::Tensor& a, const at::Tensor& b) {
  switch (op) {
    case c10d::ReduceOp::SUM:
    case c10d::ReduceOp::AVG: at::add_out(out, a, b); return;
    case c10d::ReduceOp::PRODUCT: at::mul_out(out, a, b); return;
    case c10d::ReduceOp::MIN: at::minimum_out(out, a, b); return;
    case c10d::ReduceOp::MAX: at::maximum_out(out, a, b); return;
    case c10d::ReduceOp::BAND: at::bitwise_and_out(out, a, b); return;
    case c10d::ReduceOp::BOR: at::bitwise_or_out(out, a, b); return;
    case c10d::ReduceOp::BXOR: at::bitwise_xor_out(out, a, b); return;
    default: return;
  }
}

bool supported(c10d::ReduceOp::RedOpType op) {
  switch (op) {
    case c10d::ReduceOp::SUM:
    case c10d::ReduceOp::AVG:
    case c10d::ReduceOp::PRODUCT:
    case c10d::ReduceOp::MIN:
    case c10d::ReduceOp::MAX:
    case c10d::ReduceOp::BAND:
    case c10d::ReduceOp::BOR:
    case c10d::ReduceOp::BXOR: return true;
    default: return false;
  }
}

}  // namespace

LocalColl::LocalColl(int rank, int size)
    : rank_(rank), size_(size), usable_(size > 1 && shmem_team_n_pes(SHMEM_TEAM_SHARED) == size) {}

void LocalColl::allgather(const void* src, std::size_t bytes, const std::vector<at::Tensor>& outs) {
  const std::size_t step = std::min(std::max<std::size_t>(bytes, 1), kStepBytes);
  stage_[0].ensure(step);
  stage_[1].ensure(step);
  for (std::size_t off = 0; off < bytes; off += step) {
    const std::size_t m = std::min(step, bytes - off);
    char* mine = stage_[next_stage_].ensure(step);
    next_stage_ ^= 1;
    std::memcpy(mine, static_cast<const char*>(src) + off, m);
    shmem_barrier_all();
    for (int k = 0; k < size_; ++k) {
      const int j = (rank_ + k) % size_;  // own block first, then the right neighbour's: readers spread
      const char* from = j == rank_ ? static_cast<const char*>(src) : static_cast<const char*>(shmem_ptr(mine, j));
      TORCH_CHECK(from != nullptr, "shmem backend: allgather: rank ", j, "'s staging is not mapped here");
      std::memcpy(static_cast<char*>(outs[static_cast<std::size_t>(j)].data_ptr()) + off,
                  j == rank_ ? from + off : from, m);
    }
  }
}

bool LocalColl::allreduce(const at::Tensor& flat, c10d::ReduceOp::RedOpType op) {
  if (!supported(op)) return false;
  const at::ScalarType st = flat.scalar_type();
  const std::size_t es = flat.element_size();
  const std::int64_t n = flat.numel();
  const auto step = static_cast<std::int64_t>(std::max<std::size_t>(kStepBytes / es, 1));
  stage_[0].ensure(static_cast<std::size_t>(step) * es);
  stage_[1].ensure(static_cast<std::size_t>(step) * es);
  auto* data = static_cast<char*>(flat.data_ptr());
  std::vector<char*> peer(static_cast<std::size_t>(size_));
  for (std::int64_t off = 0; off < n; off += step) {
    const std::int64_t m = std::min(step, n - off);
    const std::size_t chunk = static_cast<std::size_t>(m) * es;
    char* mine = stage_[next_stage_].ensure(static_cast<std::size_t>(step) * es);
    next_stage_ ^= 1;
    for (int j = 0; j < size_; ++j) {
      peer[static_cast<std::size_t>(j)] = static_cast<char*>(shmem_ptr(mine, j));
      TORCH_CHECK(peer[static_cast<std::size_t>(j)] != nullptr, "shmem backend: allreduce: rank ", j,
                  "'s staging is not mapped here");
    }
    std::memcpy(mine, data + static_cast<std::size_t>(off) * es, chunk);
    shmem_barrier_all();  // every rank's chunk is staged
    // Slice r of the chunk is reduced by rank r alone, into its own staging (its own values
    // first, then the others' in rank order), so every rank copies the same result.
    auto lo = [&](int r) { return m * r / size_; };
    const std::int64_t a = lo(rank_), len = lo(rank_ + 1) - a;
    if (len > 0) {
      auto slice = [&](int j) { return blob(peer[static_cast<std::size_t>(j)] + a * es, len, st); };
      at::Tensor acc = slice(rank_);
      for (int j = 0; j < size_; ++j) {
        if (j != rank_) combine(op, acc, acc, slice(j));
      }
    }
    shmem_barrier_all();  // every slice is reduced
    for (int k = 0; k < size_; ++k) {
      const int r = (rank_ + k) % size_;
      const std::int64_t b = lo(r), e = lo(r + 1);
      std::memcpy(data + static_cast<std::size_t>(off + b) * es, peer[static_cast<std::size_t>(r)] + b * es,
                  static_cast<std::size_t>(e - b) * es);
    }
  }
  return true;
}

}  // namespace shmem_torch
