#pragma once
// The layer's three steps, each enqueued on a stream. Each returns 0, or the launch's error code
// (nothing enqueued); errors inside a kernel come back from shmemx_stream_synchronize.
#include <shmemx.h>

#include "buffers.hpp"

namespace moe {

// Dispatch: the count alltoall (host API, on the stream), then a cooperative kernel that tells
// every source where its rows go, pushes this PE's rows to the expert PEs and waits for the
// rows sent here.
int enqueue_dispatch(shmemx_stream_t stream, int grid, const MoeLayer& layer);

// The experts: every received row through its expert, into layer.y (no communication).
int enqueue_experts(shmemx_stream_t stream, int grid, const MoeLayer& layer);

// Combine: a cooperative kernel that returns every result to its token's owner, waits for the
// results of this PE's tokens and writes the weighted sums into layer.out.
int enqueue_combine(shmemx_stream_t stream, int grid, const MoeLayer& layer);

}  // namespace moe
