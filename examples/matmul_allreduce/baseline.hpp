#pragma once
// The unfused baseline: first the whole partial product (a kernel, the same tiles and GEMM as the
// fused version), then a sum reduction over the world team, both on the same stream.
#include <shmemx.h>

#include <cstddef>

#include "tiling.hpp"

namespace mc2 {

// a (M x kn) and b (kn x N) are this PE's K-slices; partial and result (M x N) are symmetric.
// Returns 0 or the first SHMEMX_ERR_* code from enqueueing. The reduction is a world-team
// collective on the stream: synchronize before the host's next world-team collective.
int enqueue_baseline(shmemx_stream_t stream, int grid, const Tiling& tiling, const float* a, const float* b,
                     std::size_t kn, float* partial, float* result);

}  // namespace mc2
