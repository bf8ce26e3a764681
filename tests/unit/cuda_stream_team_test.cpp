// src/cuda/stream_team.hpp: the members of a stream collective's team as world PEs (the kernels of
// stream_ops.cu call the same function).
#include "cuda/stream_team.hpp"

#include <gtest/gtest.h>

namespace shmem::cuda {
namespace {

TEST(CudaStreamTeam, WorldMembersAreTheirOwnPes) {
  StreamTeam t;
  t.n = 8;
  for (int i = 0; i < t.n; ++i) EXPECT_EQ(member(t, i), i);
}

TEST(CudaStreamTeam, TeamMembersComeFromTheTable) {
  const int odd[] = {1, 3, 5, 7};
  StreamTeam t;
  t.n = 4;
  t.me = 2;
  t.members = odd;
  EXPECT_EQ(member(t, 0), 1);
  EXPECT_EQ(member(t, 1), 3);
  EXPECT_EQ(member(t, t.me), 5);
  EXPECT_EQ(member(t, 3), 7);
}

}  // namespace
}  // namespace shmem::cuda
