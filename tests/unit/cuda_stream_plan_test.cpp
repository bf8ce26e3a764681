// src/cuda/stream_plan.hpp: how stream collectives on a CUDA stream are launched (stream_ops.cu
// calls the same functions), and the stream barrier cell of a team.
#include "cuda/stream_plan.hpp"

#include <gtest/gtest.h>

#include <cstddef>

namespace shmem::cuda {
namespace {

constexpr std::size_t kKiB = 1024, kMiB = 1024 * kKiB;

TEST(CudaStreamPlan, SmallOperationsAreOneBlockThatPassesItsOwnBarriers) {
  for (const std::size_t read : {std::size_t{1}, 4 * kKiB, kFusedBytes}) {
    for (const Launch l : {plan_copy(read), plan_reduce(read)}) {
      EXPECT_TRUE(l.fused) << read;
      EXPECT_EQ(l.blocks, 1) << read;
    }
  }
}

TEST(CudaStreamPlan, LargerOperationsAreAGridWithTheBlocksTheirBytesNeed) {
  const Launch c = plan_copy(kFusedBytes + 1), r = plan_reduce(kFusedBytes + 1);
  EXPECT_FALSE(c.fused);
  EXPECT_FALSE(r.fused);
  EXPECT_EQ(c.blocks, 2);
  EXPECT_EQ(r.blocks, 5);
}

TEST(CudaStreamPlan, GridsGrowWithTheBytesUpToOneBlockPerMultiprocessor) {
  EXPECT_EQ(plan_copy(1 * kMiB).blocks, 16);    // a block per 64 KiB
  EXPECT_EQ(plan_reduce(1 * kMiB).blocks, 64);  // a block per 16 KiB read
  EXPECT_EQ(plan_copy(8 * kMiB).blocks, 128);
  EXPECT_EQ(plan_copy(9 * kMiB).blocks, kMaxBlocks);
  EXPECT_EQ(plan_reduce(2 * kMiB).blocks, 128);
  EXPECT_EQ(plan_reduce(3 * kMiB).blocks, kMaxBlocks);
  EXPECT_EQ(plan_reduce(std::size_t{1} << 40).blocks, kMaxBlocks);
}

TEST(CudaStreamPlan, OneShotUpToALimitThatFallsWithTheTeamSize) {
  EXPECT_EQ(one_shot_limit(1), 8 * kMiB);
  EXPECT_EQ(one_shot_limit(2), 8 * kMiB);
  EXPECT_EQ(one_shot_limit(3), 2 * kMiB);
  EXPECT_EQ(one_shot_limit(4), 8 * kMiB / 9);
  EXPECT_EQ(one_shot_limit(6), 8 * kMiB / 25);
  for (int n = 7; n <= 1024; n *= 2) EXPECT_EQ(one_shot_limit(n), 256 * kKiB) << n;  // the floor
  for (int n = 2; n < 64; ++n) EXPECT_LE(one_shot_limit(n + 1), one_shot_limit(n)) << n;
}

TEST(CudaStreamPlan, TeamsUseTheStreamCellsAfterTheKernelBarriers) {
  StreamTeam t;
  EXPECT_EQ(stream_cell(t), kStreamSlotBase);
  t.slot = 5;
  EXPECT_EQ(stream_cell(t), kStreamSlotBase + 5);
  t.slot = kStreamSlots + 5;  // slots equal modulo kStreamSlots share a cell
  EXPECT_EQ(stream_cell(t), kStreamSlotBase + 5);
}

}  // namespace
}  // namespace shmem::cuda
