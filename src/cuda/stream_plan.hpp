#pragma once
// How the stream collectives of stream_ops.cu are launched: one block that also does the team's
// barriers (small operations: one launch in all), or a barrier kernel and then a grid whose last
// block does the closing barrier (larger ones); and, for reductions, one-shot or two-shot. Plain
// C++ shared by the kernels' host code and the unit tests (tests/unit/cuda_stream_plan_test.cpp).
#include "cuda/stream_team.hpp"

#include <cstddef>

namespace shmem::cuda {

// Threads per block, in a grid and in the one-block form: a quarter of a multiprocessor's threads,
// so that a block rarely waits for room to start. The kernels declare __launch_bounds__(kThreads,
// 2): two blocks per multiprocessor at least, 64 registers per thread at most.
inline constexpr int kThreads = 512;
inline constexpr int kMaxBlocks = 132;  // one per multiprocessor of an H100/H200

// Up to this many bytes read per PE (from all members together), an operation runs as one block
// that passes the opening barrier, moves the data and passes the closing barrier: one launch,
// where the grid form takes two (a one-thread barrier kernel, then the grid). One block is also
// the only form whose barriers may wait inside the moving kernel: blocks of several PEs' grids
// that waited for each other could fill the GPU and wait for blocks that cannot start.
inline constexpr std::size_t kFusedBytes = 64 * 1024;

// A reduction is one-shot (every PE reads every member's whole source: n * bytes read per PE and
// one launch after the barrier) up to this many bytes, two-shot above (each PE reduces its 1/n of
// every source, a barrier, then gathers the others' reduced parts: about 3 * bytes moved per PE,
// one launch more). When the members share a GPU's memory, one-shot moves (n - 1)^2 * bytes more
// over all of them; a launch costs about as much as moving 8 MiB, hence 8 MiB / (n - 1)^2, and
// never below the 256 KiB of the first measured version. A model, not yet measured on a GPU.
SHMEM_CUDA_HD constexpr std::size_t one_shot_limit(int n) {
  constexpr std::size_t kFloor = 256 * 1024, kLaunch = 8u << 20;
  const std::size_t d = n > 1 ? static_cast<std::size_t>(n - 1) : 1;
  const std::size_t limit = kLaunch / (d * d);
  return limit > kFloor ? limit : kFloor;
}

struct Launch {
  int blocks = 1;
  bool fused = true;  // one block that does its own opening and closing barriers
};

// `read` bytes moved per PE, one block per `per_block` bytes in the grid form.
SHMEM_CUDA_HD constexpr Launch plan(std::size_t read, std::size_t per_block) {
  if (read <= kFusedBytes) return Launch{};
  const std::size_t b = (read + per_block - 1) / per_block;
  return Launch{b > kMaxBlocks ? kMaxBlocks : static_cast<int>(b), false};
}
// Copies (broadcast, fcollect, alltoall): a block per 64 KiB.
SHMEM_CUDA_HD constexpr Launch plan_copy(std::size_t read) { return plan(read, 64 * 1024); }
// Reductions read from every member for each element written, so they need more loads in flight
// than a copy of the same size to hide their latency: a block per 16 KiB read.
SHMEM_CUDA_HD constexpr Launch plan_reduce(std::size_t read) { return plan(read, 16 * 1024); }

// The device-barrier cell of stream operations: the last cells of the sync area, one per team
// slot modulo kStreamSlots (slot 0 = the world's).
inline constexpr int kStreamSlotBase = 64;
inline constexpr int kStreamSlots = 64;
SHMEM_CUDA_HD constexpr int stream_cell(const StreamTeam& t) { return kStreamSlotBase + t.slot % kStreamSlots; }

}  // namespace shmem::cuda
