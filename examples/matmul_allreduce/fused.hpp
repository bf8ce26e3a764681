#pragma once
// The fused ("MC2") matmul + allreduce: one kernel computes this PE's partial product tile by
// tile and sends each finished tile on at once (reduce-scatter to the tile's owner, then the
// owner's all-gather), so communication overlaps the rest of the computation. See fused.cpp.
#include <shmemx.h>

#include <cstdint>

#include "symmetric.hpp"
#include "tiling.hpp"

namespace mc2 {

class FusedMatmulAllreduce {
 public:
  // Collective (allocates symmetric memory): receive slots for the tiles this PE owns, one per
  // other PE, and the signal words. valid() is false on every PE when the heap is too small.
  explicit FusedMatmulAllreduce(const Tiling& tiling);
  bool valid() const { return recv_ && arrived_ && gathered_; }

  // Enqueues one fused kernel of `grid` blocks on `stream`. a (M x kn) and b (kn x N) are this
  // PE's K-slices; partial (M x N, any memory) receives A_p·B_p; result (M x N, symmetric) ends
  // with the sum over all PEs' partials. epoch is 1 for the first call and one more for each
  // later one, on every PE: signals are compared with it and never reset, so a call may start
  // once every PE's previous call has completed (a barrier in between). Returns 0 or the
  // launch's SHMEMX_ERR_* code.
  int enqueue(shmemx_stream_t stream, int grid, const float* a, const float* b, std::size_t kn, float* partial,
              float* result, std::uint64_t epoch) const;

 private:
  Tiling tiling_;
  SymmetricArray<float> recv_;              // [group][other PE][tile_rows x N]
  SymmetricArray<std::uint64_t> arrived_;   // [group]: contributions to my tile of the group (SIGNAL_ADD 1)
  SymmetricArray<std::uint64_t> gathered_;  // [tile]: the owner's reduced tile is here (SIGNAL_SET epoch)
};

}  // namespace mc2
