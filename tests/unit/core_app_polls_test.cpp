// What the UCX progress thread reads of the application (src/transport/ucx/app_polls.hpp):
// a continual poll keeps it away for kBusyNs, a wait that began since its last look (the
// activity word that core/wait.hpp bumps) keeps it away too, and each look consumes that.
#include <gtest/gtest.h>

#include "transport/ucx/app_polls.hpp"

using shmem::transport::ucx::AppPolls;

TEST(AppPolls, NothingYetMeansNotPolling) {
  AppPolls a;
  EXPECT_FALSE(a.spinning(shmem::transport::ucx::now_ns()));
  EXPECT_FALSE(a.waits_began());
}

TEST(AppPolls, APollCountsForBusyNs) {
  AppPolls a;
  const std::uint64_t t = a.polled();
  EXPECT_TRUE(a.spinning(t));
  EXPECT_TRUE(a.spinning(t + AppPolls::kBusyNs - 1));
  EXPECT_FALSE(a.spinning(t + AppPolls::kBusyNs));
}

TEST(AppPolls, EachLookConsumesTheWaitsThatBegan) {
  AppPolls a;
  std::atomic<std::uint32_t>* w = a.activity();
  w->store(w->load() + 1);
  EXPECT_TRUE(a.waits_began());
  EXPECT_FALSE(a.waits_began());  // nothing new since that look
  w->store(w->load() + 1);
  w->store(w->load() + 1);
  EXPECT_TRUE(a.waits_began());
  EXPECT_FALSE(a.waits_began());
}

TEST(AppPolls, TheWordWrapsWithoutLosingALook) {
  AppPolls a;
  std::atomic<std::uint32_t>* w = a.activity();
  w->store(~std::uint32_t{0});
  EXPECT_TRUE(a.waits_began());
  w->store(w->load() + 1);  // wraps to 0
  EXPECT_TRUE(a.waits_began());
}
