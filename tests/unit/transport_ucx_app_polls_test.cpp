// What the UCX progress thread reads of the application (src/transport/ucx/app_polls.hpp):
// a continual poll keeps it away for kBusyNs, and so does a wait seen beginning (the activity
// word that core/wait.hpp bumps) from the look that saw it.
#include <gtest/gtest.h>

#include "transport/ucx/app_polls.hpp"

using shmem::transport::ucx::AppPolls;

TEST(AppPolls, NothingYetMeansNotPolling) {
  AppPolls a;
  const std::uint64_t t = shmem::transport::ucx::now_ns();
  EXPECT_FALSE(a.spinning(t));
  EXPECT_FALSE(a.waits_began(t));
}

TEST(AppPolls, APollCountsForBusyNs) {
  AppPolls a;
  const std::uint64_t t = a.polled();
  EXPECT_TRUE(a.spinning(t));
  EXPECT_TRUE(a.spinning(t + AppPolls::kBusyNs - 1));
  EXPECT_FALSE(a.spinning(t + AppPolls::kBusyNs));
}

// A wait seen beginning keeps the thread away for kBusyNs from the look that saw it, also
// across looks that see nothing new (the thread looks again right after serving a message).
TEST(AppPolls, AWaitSeenBeginningCountsForBusyNs) {
  AppPolls a;
  std::atomic<std::uint32_t>* w = a.activity();
  const std::uint64_t t = 1000000;
  EXPECT_FALSE(a.waits_began(t));
  w->store(w->load() + 1);
  EXPECT_TRUE(a.waits_began(t));
  EXPECT_TRUE(a.waits_began(t + 1000));  // nothing new, still within the window
  EXPECT_TRUE(a.waits_began(t + AppPolls::kBusyNs - 1));
  EXPECT_FALSE(a.waits_began(t + AppPolls::kBusyNs));
  w->store(w->load() + 1);
  w->store(w->load() + 1);
  EXPECT_TRUE(a.waits_began(t + 2 * AppPolls::kBusyNs));  // a new window from this look
  EXPECT_FALSE(a.waits_began(t + 3 * AppPolls::kBusyNs));
}

TEST(AppPolls, TheWordWrapsWithoutLosingALook) {
  AppPolls a;
  std::atomic<std::uint32_t>* w = a.activity();
  w->store(~std::uint32_t{0});
  EXPECT_TRUE(a.waits_began(5000000));
  EXPECT_FALSE(a.waits_began(5000000 + AppPolls::kBusyNs));
  w->store(w->load() + 1);  // wraps to 0
  EXPECT_TRUE(a.waits_began(5000000 + 2 * AppPolls::kBusyNs));
}
