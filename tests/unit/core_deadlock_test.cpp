// The deadlock check's decision (core/deadlock.cpp, rules::Watch) on PE lines as the checking PE
// reads them, one look per long wait of its own; and that a wait's WaitPolicy hook gets what the
// wait says it waits for. The multi-PE cases are tests/pe/deadlock.cmake.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/deadlock.hpp"
#include "core/wait.hpp"

namespace rules = shmem::deadlock::rules;
using rules::Seen;
using Verdict = rules::Watch::Verdict;

namespace {

// PE in counted wait `number` with `looks` published.
Seen waiting(std::uint32_t number, std::uint32_t looks) {
  return Seen{std::uint64_t{number} << 32 | looks, false, false};
}
Seen finalizing() { return Seen{0, true, false}; }

TEST(DeadlockWatch, EveryPeStaysInItsWaitAndLooksTwiceMore) {
  rules::Watch w;
  EXPECT_EQ(w.look({waiting(3, 1), waiting(7, 1)}), Verdict::kMaybe);  // the first look
  EXPECT_EQ(w.look({waiting(3, 2), waiting(7, 2)}), Verdict::kMaybe);  // once more: may have begun before it
  EXPECT_EQ(w.look({waiting(3, 3), waiting(7, 3)}), Verdict::kDeadlock);
}

TEST(DeadlockWatch, OnePeBehindKeepsItOpen) {
  rules::Watch w;
  EXPECT_EQ(w.look({waiting(1, 5), waiting(2, 1)}), Verdict::kMaybe);
  EXPECT_EQ(w.look({waiting(1, 9), waiting(2, 2)}), Verdict::kMaybe);  // PE 1 looked only once more
  EXPECT_EQ(w.look({waiting(1, 10), waiting(2, 3)}), Verdict::kDeadlock);
}

TEST(DeadlockWatch, APeWhoseBeatStoppedIsNeverReported) {
  // PE 1 left its wait (it computes, or waits where it does not say what for): its beat stays.
  rules::Watch w;
  EXPECT_EQ(w.look({waiting(1, 1), waiting(2, 4)}), Verdict::kMaybe);
  for (std::uint32_t i = 2; i < 50; ++i) EXPECT_EQ(w.look({waiting(1, i), waiting(2, 4)}), Verdict::kMaybe);
}

TEST(DeadlockWatch, ANewWaitStartsOver) {
  rules::Watch w;
  EXPECT_EQ(w.look({waiting(1, 1), waiting(2, 1)}), Verdict::kMaybe);
  EXPECT_EQ(w.look({waiting(1, 2), waiting(2, 2)}), Verdict::kMaybe);
  // PE 1 woke, stored, and waits again (another number): this look is the first one now.
  EXPECT_EQ(w.look({waiting(1, 3), waiting(5, 1)}), Verdict::kMaybe);
  EXPECT_EQ(w.look({waiting(1, 4), waiting(5, 2)}), Verdict::kMaybe);
  EXPECT_EQ(w.look({waiting(1, 5), waiting(5, 3)}), Verdict::kDeadlock);
}

TEST(DeadlockWatch, APeInNoCountedWaitForgetsTheFirstLook) {
  rules::Watch w;
  EXPECT_EQ(w.look({waiting(1, 1), waiting(2, 1)}), Verdict::kMaybe);
  EXPECT_EQ(w.look({waiting(1, 2), Seen{}}), Verdict::kNo);            // PE 1's text is being written, or none yet
  EXPECT_EQ(w.look({waiting(1, 3), waiting(2, 3)}), Verdict::kMaybe);  // first again
  EXPECT_EQ(w.look({waiting(1, 4), waiting(2, 4)}), Verdict::kMaybe);
  EXPECT_EQ(w.look({waiting(1, 5), waiting(2, 5)}), Verdict::kDeadlock);
}

TEST(DeadlockWatch, OthersThatMayWriteRuleItOut) {
  rules::Watch w;
  Seen helped = waiting(2, 1);
  helped.others = true;  // a stream's thread, a kernel's workers, a thread level above SINGLE, a GPU
  for (std::uint32_t i = 1; i < 10; ++i) {
    helped.beat = std::uint64_t{2} << 32 | i;
    EXPECT_EQ(w.look({waiting(1, i), helped}), Verdict::kNo);
  }
}

TEST(DeadlockWatch, FinalizeCountsOnlyWhenItCameFirst) {
  rules::Watch w;
  // PE 0 was in finalize at the first look: it stores nothing again.
  EXPECT_EQ(w.look({finalizing(), waiting(4, 1)}), Verdict::kMaybe);
  EXPECT_EQ(w.look({finalizing(), waiting(4, 2)}), Verdict::kMaybe);
  EXPECT_EQ(w.look({finalizing(), waiting(4, 3)}), Verdict::kDeadlock);
  // PE 0 entered finalize after the first look: it may have stored on its way there.
  rules::Watch v;
  EXPECT_EQ(v.look({waiting(1, 1), waiting(4, 1)}), Verdict::kMaybe);
  EXPECT_EQ(v.look({finalizing(), waiting(4, 3)}), Verdict::kMaybe);  // first again
  EXPECT_EQ(v.look({finalizing(), waiting(4, 4)}), Verdict::kMaybe);
  EXPECT_EQ(v.look({finalizing(), waiting(4, 5)}), Verdict::kDeadlock);
}

TEST(DeadlockWatch, OnePeAlone) {
  rules::Watch w;
  EXPECT_EQ(w.look({waiting(1, 1)}), Verdict::kMaybe);
  EXPECT_EQ(w.look({waiting(1, 2)}), Verdict::kMaybe);
  EXPECT_EQ(w.look({waiting(1, 3)}), Verdict::kDeadlock);
}

// The hook of a wait that says what it waits for gets the text, and when the wait began; a
// plain wait_for gets none. The end hook follows a wait that called the hook, once.
struct Heard {
  int calls = 0, ended = 0;
  double started = -1;
  bool same_start = true;
  std::string what;
};
void hear(void* arg, double started, const shmem::WaitWhat* what) noexcept {
  auto* h = static_cast<Heard*>(arg);
  if (h->calls++ > 0 && started != h->started) h->same_start = false;
  h->started = started;
  h->what = what != nullptr ? (*what)() : "(none)";
}
void heard_end(void* arg) noexcept { ++static_cast<Heard*>(arg)->ended; }

TEST(DeadlockHook, AWaitSaysWhatItWaitsFor) {
  shmem::WaitPolicy pol;
  pol.configure_spin(0);
  Heard h;
  pol.long_wait = &hear;
  pol.long_wait_end = &heard_end;
  pol.long_wait_arg = &h;
  pol.long_wait_after_s = 0.002;
  int polls = 0;
  auto done = [&] { return h.calls >= 3 || ++polls > 10000000; };
  shmem::wait_for(
      pol, done, [](double) {}, [] { return std::string("the flag at +0x40"); });
  EXPECT_EQ(h.calls, 3);
  EXPECT_EQ(h.ended, 1);  // once, as it completed
  EXPECT_TRUE(h.same_start);
  EXPECT_EQ(h.what, "the flag at +0x40");

  Heard plain;
  pol.long_wait_arg = &plain;
  polls = 0;
  shmem::wait_for(
      pol, [&] { return plain.calls >= 1 || ++polls > 10000000; }, [](double) {});
  EXPECT_EQ(plain.calls, 1);
  EXPECT_EQ(plain.ended, 1);
  EXPECT_EQ(plain.what, "(none)");

  // A wait that completes before the bound never calls either hook.
  Heard quick;
  pol.long_wait_arg = &quick;
  pol.long_wait_after_s = 60;
  polls = 0;
  shmem::wait_for(
      pol, [&] { return ++polls > 100; }, [](double) {});
  EXPECT_EQ(quick.calls, 0);
  EXPECT_EQ(quick.ended, 0);
}

// Past SHMEM_WAIT_TIMEOUT the timed_out hook (where the other PEs are) runs before the report.
TEST(DeadlockHook, TimeoutSaysWhereTheOthersAreBeforeTheReport) {
  shmem::WaitPolicy pol;
  pol.configure_spin(0);
  pol.timeout_s = 1e-9;  // fires on the first check
  std::vector<std::string> order;
  pol.timed_out = [](void* arg) noexcept { static_cast<std::vector<std::string>*>(arg)->push_back("where"); };
  pol.timed_out_arg = &order;
  struct Fired {};
  try {
    shmem::wait_for(
        pol, [] { return false; },
        [&](double) {
          order.push_back("report");
          throw Fired{};
        },
        [] { return std::string("a flag"); });
    FAIL() << "returned";
  } catch (const Fired&) {}
  EXPECT_EQ(order, (std::vector<std::string>{"where", "report"}));
}

}  // namespace
