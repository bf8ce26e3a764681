#pragma once
// Everything the layer keeps across iterations, and the view of it the kernels receive.
#include <cstdint>
#include <vector>

#include "plan.hpp"
#include "shape.hpp"
#include "symmetric.hpp"

namespace moe {

// What the three kernels see: sizes, this iteration's inputs and every buffer (plain pointers,
// copied into each launch). Symmetric buffers are written by other PEs; the rest is this PE's.
struct MoeLayer {
  int tokens = 0, hidden = 0, topk = 0, experts_per_pe = 0;
  std::uint64_t epoch = 0;  // iterations so far, this one included: the value every signal is set to

  // This PE's tokens, gate weights and dispatch plan for this iteration.
  const float* x = nullptr;             // tokens x hidden
  const float* weight = nullptr;        // tokens x topk
  const Meta* send_meta = nullptr;      // pairs grouped by destination PE
  const std::int64_t* send_first = nullptr;

  // Symmetric.
  const std::int64_t* send_counts = nullptr;  // [d]: rows this PE sends to PE d (the count alltoall's source)
  std::int64_t* recv_counts = nullptr;        // [s]: rows PE s sends here (its destination)
  std::int64_t* offsets = nullptr;            // [d]: where this PE's rows start in PE d's receive buffer
  std::uint64_t* offset_sig = nullptr;        // [d]: PE d has written offsets[d]
  std::uint64_t* data_sig = nullptr;          // [s]: PE s's rows and their Meta have arrived here
  std::uint64_t* combine_sig = nullptr;       // [d]: PE d's results for this PE's tokens have arrived
  float* recv_x = nullptr;                    // recv_capacity x hidden: one region per source, in PE order
  Meta* recv_meta = nullptr;                  // recv_capacity
  float* combined = nullptr;                  // tokens x topk x hidden: result of the token's expert j

  // This PE's.
  std::int64_t* region_off = nullptr;  // [s]: where PE s's region starts in recv_x (set by dispatch)
  std::int64_t* region_cnt = nullptr;  // [s]: its rows
  float* y = nullptr;                  // recv_capacity x hidden: expert outputs
  float* out = nullptr;                // tokens x hidden: the layer's output
};

struct MoeBuffers {
  explicit MoeBuffers(const MoeShape& shape);
  bool ok() const;
  // Writes this iteration's send counts (from `plan`) and returns the kernels' view; `plan`, `x`
  // and `weight` must outlive the kernels.
  MoeLayer prepare(const MoeShape& shape, int epoch, const std::vector<float>& x, const std::vector<float>& weight,
                   const DispatchPlan& plan);

  SymmetricArray<std::int64_t> send_counts, recv_counts, offsets;
  SymmetricArray<std::uint64_t> offset_sig, data_sig, combine_sig;
  SymmetricArray<float> recv_x;
  SymmetricArray<Meta> recv_meta;
  SymmetricArray<float> combined;
  std::vector<std::int64_t> region_off, region_cnt;
  std::vector<float> y, out;
};

}  // namespace moe
