// src/util/ticker.hpp: calls come after `first`, then every `every`, and stop with the Ticker.
#include "util/ticker.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

namespace shmem::util {
namespace {

using Millis = Ticker::Millis;

TEST(Ticker, CallsRepeatWithTheTimeWaitedAndStopWithTheTicker) {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Millis> seen;
  {
    Ticker t(Millis{20}, Millis{10}, [&](Millis waited) {
      std::lock_guard<std::mutex> g(mu);
      seen.push_back(waited);
      cv.notify_all();
    });
    std::unique_lock<std::mutex> lk(mu);
    cv.wait(lk, [&] { return seen.size() >= 3; });  // the calls themselves end this wait
  }
  const std::size_t at_stop = seen.size();
  ASSERT_GE(at_stop, 3u);
  // Call i comes no earlier than first + i * every (it may come later on a loaded machine).
  for (std::size_t i = 0; i < at_stop; ++i) EXPECT_GE(seen[i], Millis{20} + Millis{10} * static_cast<int>(i)) << i;
}

TEST(Ticker, DestroyedBeforeTheFirstCallCallsNothing) {
  std::atomic<int> calls{0};
  {
    Ticker t(Millis{3600 * 1000}, Millis{1000}, [&](Millis) { calls.fetch_add(1); });
  }  // returns at once
  EXPECT_EQ(calls.load(), 0);
}

}  // namespace
}  // namespace shmem::util
