#pragma once
// The shuffle kernel: one launch moves every block of the table once.
#include <shmemx.h>

#include <cstddef>
#include <cstdint>

#include "shuffle_table.hpp"

namespace kv_shuffle {

struct ShuffleArgs {
  const Move* moves = nullptr;  // this PE's moves (src_pe == me); host memory, read by the kernel
  std::size_t nmoves = 0;
  const float* src = nullptr;  // symmetric cache read (locally) this shuffle
  float* dst = nullptr;        // symmetric cache written (on the destination PEs) this shuffle
  std::size_t block_floats = 0;
  std::uint64_t* arrived = nullptr;          // symmetric, one counter per kernel block ("share")
  const std::uint64_t* per_share = nullptr;  // blocks landing in each share per shuffle (host memory)
  std::uint64_t epoch = 0;                   // shuffles so far, this one included
};

// Enqueues the shuffle on `stream` as a cooperative launch of `grid` blocks; returns 0 or the
// launch's error code. The arrays in `args` must stay valid until the stream is synchronised.
int launch_shuffle(shmemx_stream_t stream, int grid, const ShuffleArgs& args);

}  // namespace kv_shuffle
