// When the UCX transport's waits stop yielding and sleep on the worker's event descriptor
// (src/util/yield_cost.hpp; node-local waits nap instead of yielding on the same signal): after kSlowInARow yields in a row that each gave the CPU
// away for more than kSlowYieldNs, for kContendedNs from the last of them. Synthetic
// timestamps: nothing here depends on how fast the machine is.
#include <gtest/gtest.h>

#include "util/yield_cost.hpp"

using shmem::util::YieldCost;

namespace {
constexpr std::uint64_t kT0 = 1000000000;  // any starting time
constexpr std::uint64_t kSlow = YieldCost::kSlowYieldNs + 1;
constexpr std::uint64_t kFast = 2000;
}  // namespace

TEST(YieldCost, NothingMeasuredIsNotContended) {
  YieldCost y;
  EXPECT_FALSE(y.contended(kT0));
}

TEST(YieldCost, FastYieldsNeverShowContention) {
  YieldCost y;
  std::uint64_t t = kT0;
  for (int i = 0; i < 100; ++i, t += kFast) y.measured(t, t + kFast);
  EXPECT_FALSE(y.contended(t));
}

TEST(YieldCost, ExactlyTheThresholdIsNotSlow) {
  YieldCost y;
  std::uint64_t t = kT0;
  for (unsigned i = 0; i < YieldCost::kSlowInARow + 1; ++i, t += YieldCost::kSlowYieldNs)
    y.measured(t, t + YieldCost::kSlowYieldNs);
  EXPECT_FALSE(y.contended(t));
}

TEST(YieldCost, SlowYieldsInARowShowContentionForTheWindow) {
  YieldCost y;
  std::uint64_t t = kT0;
  for (unsigned i = 0; i + 1 < YieldCost::kSlowInARow; ++i, t += kSlow) {
    y.measured(t, t + kSlow);
    EXPECT_FALSE(y.contended(t + kSlow)) << "after " << i + 1 << " slow yield(s)";
  }
  y.measured(t, t + kSlow);
  const std::uint64_t last = t + kSlow;
  EXPECT_TRUE(y.contended(last));
  EXPECT_TRUE(y.contended(last + YieldCost::kContendedNs - 1));
  EXPECT_FALSE(y.contended(last + YieldCost::kContendedNs));
}

TEST(YieldCost, AFastYieldBreaksTheRun) {
  YieldCost y;
  std::uint64_t t = kT0;
  for (int round = 0; round < 5; ++round) {
    for (unsigned i = 0; i + 1 < YieldCost::kSlowInARow; ++i, t += kSlow) y.measured(t, t + kSlow);
    y.measured(t, t + kFast);
    t += kFast;
  }
  EXPECT_FALSE(y.contended(t));
}

TEST(YieldCost, ANewRunExtendsTheWindow) {
  YieldCost y;
  std::uint64_t t = kT0;
  for (unsigned i = 0; i < YieldCost::kSlowInARow; ++i, t += kSlow) y.measured(t, t + kSlow);
  t += YieldCost::kContendedNs / 2;
  for (unsigned i = 0; i < YieldCost::kSlowInARow; ++i, t += kSlow) y.measured(t, t + kSlow);
  EXPECT_TRUE(y.contended(t + YieldCost::kContendedNs - 1));
}

// A real yield, fast or (under load) slow: one alone never shows contention.
static_assert(YieldCost::kSlowInARow > 1, "one slow yield must not be enough");
TEST(YieldCost, OneRealYieldIsNotEnough) {
  YieldCost y;
  y.yield();
  EXPECT_FALSE(y.contended(shmem::util::mono_ns()));
}
