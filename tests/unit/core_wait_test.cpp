// The waiting policy's pure parts: how the adaptive spin budget learns, the sleep rule, the
// SHMEM_WAIT_SPIN override, the wait board's yield-or-spin decision, and the CPU count from the
// affinity mask and the cgroup quota (fake /proc and /sys trees in a temporary directory). No timing is measured or asserted.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "core/cpus.hpp"
#include "core/wait.hpp"

namespace fs = std::filesystem;
using shmem::WaitPolicy;

namespace {

void adaptive(WaitPolicy& p, unsigned cap, unsigned floor) {
  p.adaptive = true;
  p.spin_iterations = cap;
  p.spin_floor = floor;
  p.spin_budget.store(cap);
}

}  // namespace

TEST(WaitBudget, RunningOutDropsToAnEighthDownToTheFloor) {
  WaitPolicy p;
  adaptive(p, 4096, 8);
  p.learn(p.budget(), p.budget(), false);
  EXPECT_EQ(p.budget(), 512u);
  for (int i = 0; i < 10; ++i) p.learn(p.budget(), p.budget(), false);
  EXPECT_EQ(p.budget(), 8u);
}

TEST(WaitBudget, CompletingInTheUpperHalfDoublesUpToTheCap) {
  WaitPolicy p;
  adaptive(p, 4096, 8);
  p.spin_budget.store(8);
  p.learn(8, 5, true);
  EXPECT_EQ(p.budget(), 16u);
  p.learn(16, 8, true);  // exactly half: no change
  EXPECT_EQ(p.budget(), 16u);
  p.learn(16, 1, true);  // early completion: keeps the budget
  EXPECT_EQ(p.budget(), 16u);
  for (int i = 0; i < 20; ++i) p.learn(p.budget(), p.budget(), true);
  EXPECT_EQ(p.budget(), 4096u);
}

TEST(WaitBudget, SpinForLearnsFromItsOutcome) {
  WaitPolicy p;
  adaptive(p, 64, 4);
  EXPECT_FALSE(shmem::spin_for(p, [] { return false; }));
  EXPECT_EQ(p.budget(), 8u);
  int calls = 0;
  EXPECT_TRUE(shmem::spin_for(p, [&] { return ++calls == 7; }));  // 7 of 8: upper half
  EXPECT_EQ(calls, 7);
  EXPECT_EQ(p.budget(), 16u);
}

TEST(WaitBudget, PollHookRunsOnEverySpin) {
  WaitPolicy p;
  adaptive(p, 16, 4);
  int polls = 0;
  p.poll = [](void* a, bool continual) { *static_cast<int*>(a) += continual ? 1 : 1000; };
  p.poll_arg = &polls;
  EXPECT_FALSE(shmem::spin_for(p, [] { return false; }));
  EXPECT_EQ(polls, 16);  // every spin is a continual poll
}

// Once a wait sleeps between polls, its polls stop counting as continual (a progress thread
// must then serve the peers): before the first sleep every poll is continual, after it none.
TEST(WaitBudget, PollsAfterTheFirstSleepAreNotContinual) {
  WaitPolicy p;
  adaptive(p, 16, 4);
  struct Seen {
    int continual = 0, late = 0, late_before_sleep = 0, sleeps = 0;
  } seen;
  p.poll = [](void* a, bool continual) {
    Seen& s = *static_cast<Seen*>(a);
    if (continual) {
      ++s.continual;
      if (s.sleeps > 0) ++s.late;  // counted as a failure below
    } else if (s.sleeps == 0) {
      ++s.late_before_sleep;
    }
  };
  p.poll_arg = &seen;
  // Returns once the wait has slept three times (it sleeps only after kYieldOnlyS of yielding).
  shmem::yield_or_spin_until(
      p, [&] { return seen.sleeps >= 3; }, [](double) { FAIL() << "no watchdog here"; },
      [&](long ns) {
        EXPECT_GT(ns, 0);
        ++seen.sleeps;
      });
  EXPECT_EQ(seen.sleeps, 3);
  EXPECT_GT(seen.continual, 0);
  EXPECT_EQ(seen.late, 0);
  EXPECT_EQ(seen.late_before_sleep, 0);
}

// Every wait_for counts itself in the activity word, also when its condition already holds.
TEST(WaitBudget, WaitForCountsActivityEvenWhenDone) {
  WaitPolicy p;
  adaptive(p, 16, 4);
  std::atomic<std::uint32_t> activity{0};
  shmem::wait_for(p, [] { return true; }, [](double) {});  // no word: nothing to count
  p.activity = &activity;
  shmem::wait_for(p, [] { return true; }, [](double) {});
  int calls = 0;
  shmem::wait_for(p, [&] { return ++calls == 3; }, [](double) {});
  EXPECT_EQ(activity.load(), 2u);
}

TEST(WaitBudget, ExplicitSpinIsFixed) {
  WaitPolicy p;
  p.configure_spin(100);
  EXPECT_FALSE(p.adaptive);
  EXPECT_EQ(p.budget(), 100u);
  p.learn(100, 100, false);
  EXPECT_EQ(p.budget(), 100u);
  p.configure_spin(0);
  EXPECT_EQ(p.budget(), 0u);
  int calls = 0;
  EXPECT_FALSE(shmem::spin_for(p, [&] { return ++calls > 0; }));  // zero spins: straight to yield
  EXPECT_EQ(calls, 0);
}

TEST(WaitBudget, AutomaticStartsAtTheCapOrTheFloor) {
  WaitPolicy p;
  p.oversubscribed = false;
  p.configure_spin(-1);
  EXPECT_TRUE(p.adaptive);
  EXPECT_EQ(p.spin_iterations, WaitPolicy::kCap);
  EXPECT_EQ(p.budget(), WaitPolicy::kCap);
  EXPECT_GE(p.spin_floor, 4u);
  EXPECT_LE(p.spin_floor, 256u);
  WaitPolicy q;
  q.oversubscribed = true;
  q.configure_spin(-1);
  EXPECT_EQ(q.spin_iterations, WaitPolicy::kCapOversubscribed);
  EXPECT_EQ(q.budget(), q.spin_floor);
}

namespace {

// Runs `body` (returning an exit status, 0 for success) in a forked child.
template <class Body>
void in_child(Body&& body) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) _exit(body());
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// The same, pinned to the CPU it starts on, so that sched_getcpu() cannot change between the
// board's reads.
template <class Body>
void pinned_child(Body&& body) {
  in_child([&] {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) return 2;
    return body();
  });
}

}  // namespace

TEST(WaitBoard, SeesAPeerOnlyOnThisCpuAndPublishesOwn) {
  pinned_child([] {
    shmem::WaitBoard unattached;
    if (unattached.peer_queued_here()) return 10;  // nothing attached: nobody seen
    shmem::WaitSlot mine, a, b;
    shmem::WaitBoard board;
    board.attach(&mine, {{&a, false}, {&b, true}});
    const int here = sched_getcpu() + 1;
    a.cpu_plus_1 = here + 1;  // another CPU
    b.cpu_plus_1 = 0;         // unknown or asleep
    if (board.peer_queued_here()) return 11;
    if (mine.cpu_plus_1.load() != here) return 12;  // published this CPU
    b.cpu_plus_1 = here;                            // a peer last waited on this CPU
    if (!board.peer_queued_here()) return 13;
    if (board.look().highest_here) return 15;  // b has the higher number: b is the one to move
    a.cpu_plus_1 = here;
    b.cpu_plus_1 = 0;
    if (!board.look().peer_here || !board.look().highest_here) return 16;  // a is lower: this PE moves
    cpu_set_t taken;
    board.occupied(&taken);
    if (CPU_COUNT(&taken) != 1 || !CPU_ISSET(here - 1, &taken)) return 17;
    board.asleep();
    if (mine.cpu_plus_1.load() != 0) return 14;
    return 0;
  });
}

TEST(WaitBoard, HandOverAtOnceWhenCrowdedFixedOrThreaded) {
  pinned_child([] {
    shmem::WaitSlot mine, other;
    other.cpu_plus_1 = sched_getcpu() + 2;  // the only peer is on another CPU
    WaitPolicy p;
    p.configure_spin(-1);
    p.board.attach(&mine, {{&other, true}});
    if (p.hand_over(shmem::wait_clock())) return 10;  // every PE has a CPU, the peer is elsewhere: spin on
    p.threads_share = true;
    if (!p.hand_over(shmem::wait_clock())) return 11;  // SHMEM_THREAD_MULTIPLE: the peer may be our own thread
    WaitPolicy crowded;
    crowded.oversubscribed = true;
    crowded.configure_spin(-1);
    crowded.board.attach(&mine, {{&other, true}});
    if (!crowded.hand_over(shmem::wait_clock())) return 12;  // PEs outnumber CPUs
    if (crowded.skips_spin()) return 15;                     // ... but nobody on this CPU: spin first
    int calls = 0;
    other.cpu_plus_1 = sched_getcpu() + 1;  // a PE queued on this CPU
    if (!crowded.skips_spin() || p.skips_spin()) return 16;  // only where PEs outnumber CPUs
    if (shmem::spin_for(crowded, [&] { return ++calls > 0; }) || calls != 0) return 17;  // straight to yield
    shmem::WaitSlot third;
    third.cpu_plus_1 = sched_getcpu() + 2;  // and another PE on another CPU: spin first again
    crowded.board.attach(&mine, {{&other, true}, {&third, false}});
    if (crowded.skips_spin()) return 18;
    if (!crowded.board.look().peer_elsewhere) return 19;
    other.cpu_plus_1 = sched_getcpu() + 2;
    WaitPolicy fixed;
    fixed.configure_spin(10);
    fixed.board.attach(&mine, {{&other, true}});
    if (!fixed.hand_over(shmem::wait_clock())) return 13;  // SHMEM_WAIT_SPIN: spin, then always yield
    other.cpu_plus_1 = sched_getcpu() + 1;
    if (!p.board.peer_queued_here()) return 14;
    return 0;
  });
}

// A thread sharing its CPU with a peer moves to another CPU of its mask, and its mask stays.
TEST(CpuMove, MovesOffTheAvoidedCpusAndKeepsTheMask) {
  cpu_set_t mask;
  ASSERT_EQ(sched_getaffinity(0, sizeof mask, &mask), 0);
  if (CPU_COUNT(&mask) < 2) GTEST_SKIP() << "needs two CPUs in the affinity mask";
  in_child([&] {
    int first = -1, second = -1;
    for (int c = 0; c < CPU_SETSIZE && second < 0; ++c)
      if (CPU_ISSET(c, &mask)) (first < 0 ? first : second) = c;
    cpu_set_t two;
    CPU_ZERO(&two);
    CPU_SET(first, &two);
    CPU_SET(second, &two);
    if (sched_setaffinity(0, sizeof two, &two) != 0) return 2;
    cpu_set_t avoid;
    CPU_ZERO(&avoid);
    CPU_SET(first, &avoid);
    if (!shmem::cpus::move_off(avoid)) return 3;
    cpu_set_t after;
    if (sched_getaffinity(0, sizeof after, &after) != 0 || !CPU_EQUAL(&after, &two)) return 4;
    CPU_SET(second, &avoid);  // every CPU of the mask avoided: no move, mask unchanged
    if (shmem::cpus::move_off(avoid)) return 6;
    if (sched_getaffinity(0, sizeof after, &after) != 0 || !CPU_EQUAL(&after, &two)) return 7;
    return 0;
  });
}

// After the spin the wait asks the board (publishing this PE's CPU); a wait old enough to sleep
// publishes "asleep" first.
TEST(WaitYield, AsksTheBoardAndPublishesAsleep) {
  pinned_child([] {
    shmem::WaitSlot mine, other;
    WaitPolicy p;
    p.configure_spin(-1);
    p.board.attach(&mine, {{&other, true}});
    int calls = 0;
    shmem::yield_or_spin_until(p, [&] { return ++calls == 40; }, [](double) { _exit(20); }, [](long) {});
    if (calls != 40) return 10;
    if (mine.cpu_plus_1.load() != sched_getcpu() + 1) return 11;
    bool slept = false;
    int seen_while_asleep = -1;
    // Spins (the peer is elsewhere) until the wait is old enough to sleep: about 10 ms.
    shmem::yield_or_spin_until(p, [&] { return slept; }, [](double) { _exit(21); }, [&](long) {
      slept = true;
      seen_while_asleep = mine.cpu_plus_1.load();
    });
    return seen_while_asleep == 0 ? 0 : 12;
  });
}

TEST(WaitSleep, NeverWhileYoungThenAFractionOfTheWaitCapped) {
  EXPECT_EQ(shmem::sleep_step_ns(0), 0);
  EXPECT_EQ(shmem::sleep_step_ns(0.0099), 0);
  EXPECT_EQ(shmem::sleep_step_ns(0.0128), 100000);  // 12.8 ms / 128
  EXPECT_EQ(shmem::sleep_step_ns(10.0), WaitPolicy::kMaxSleepNs);
  for (double w : {0.01, 0.02, 0.05, 0.1, 1.0}) EXPECT_LE(shmem::sleep_step_ns(w), w * 1e9 / 128 + 1);
}

TEST(WaitYield, ReportsPastTheTimeoutAndSleepsOnlyWhenOld) {
  WaitPolicy p;
  adaptive(p, 8, 4);
  p.timeout_s = 1e-9;  // fires on the first check
  struct Fired {};
  bool slept = false;
  try {
    shmem::yield_or_spin_until(p, [] { return false; }, [](double) { throw Fired{}; }, [&](long) { slept = true; });
    FAIL() << "returned";
  } catch (const Fired&) {
  }
  EXPECT_FALSE(slept);
  int calls = 0;
  p.timeout_s = 0;
  long slept_ns = 0;  // a loaded machine may make even this wait old enough to sleep
  shmem::yield_or_spin_until(p, [&] { return ++calls == 3; }, [](double) { FAIL(); }, [&](long ns) { slept_ns += ns; });
  EXPECT_EQ(calls, 3);
  (void)slept_ns;
}

TEST(WaitNap, OnlyWhenContendedAndTheWaitIsOld) {
  WaitPolicy p;
  adaptive(p, 8, 4);
  const double young = WaitPolicy::kContendedSpinNs * 1e-9 / 2, old = WaitPolicy::kContendedSpinNs * 2e-9;
  const double now = 100.0;
  EXPECT_EQ(p.nap_ns(old, now), 0);                     // never lost its CPU
  p.saw_gap(WaitPolicy::kLostCpuNs * 1e-9 / 2, now);     // a short gap: a hiccup, not a lost CPU
  EXPECT_EQ(p.nap_ns(old, now), 0);
  p.saw_gap(WaitPolicy::kLostCpuNs * 2e-9, now);         // another task had the CPU
  EXPECT_EQ(p.nap_ns(young, now), 0);
  EXPECT_EQ(p.nap_ns(old, now), WaitPolicy::kNapNs);
  EXPECT_EQ(p.nap_ns(old, now + WaitPolicy::kContendedForNs * 0.5e-9), WaitPolicy::kNapNs);
  EXPECT_EQ(p.nap_ns(old, now + WaitPolicy::kContendedForNs * 2e-9), 0);  // contended long ago
  WaitPolicy fixed;
  fixed.configure_spin(16);  // SHMEM_WAIT_SPIN: no adaptation, no naps
  fixed.saw_gap(1.0, now);
  EXPECT_EQ(fixed.nap_ns(old, now), 0);
}

// A spinning wait naps (kNapNs) once older than kContendedSpinNs while its PE counts as
// contended, and never while it does not. The board is not attached, so the wait spins on after
// its budget (peers elsewhere), and the test's sleep callback only records: (length, the wait's
// age at most). Nothing is timed: a loaded machine can delay any step, so each case is tried
// until one run is one the claim is about, then checked:
//  - contended: a run whose first sleep came while the wait was younger than kYieldOnlyS (no
//    sleep step yet): that sleep must be a nap. Without naps no such run exists.
//  - not contended: a run in which the wait itself saw no lost CPU (contended_until still 0):
//    it must not have slept at all (it ends at 4x kContendedSpinNs, long before any sleep step).
TEST(WaitNap, ASpinningWaitNapsOnlyWhileContended) {
  for (const bool contended : {false, true}) {
    bool checked = false;
    for (int attempt = 0; attempt < 1000 && !checked; ++attempt) {
      WaitPolicy p;
      adaptive(p, 8, 4);
      if (contended) p.saw_gap(1.0, shmem::wait_clock());
      const double start = shmem::wait_clock();  // before the wait's own start: ages here are >= its
      std::vector<std::pair<long, double>> sleeps;
      // Contended: until the first sleep (a nap, or at the latest a sleep step once kYieldOnlyS
      // old); else for 4x the spin before a nap.
      shmem::yield_or_spin_until(
          p,
          [&] {
            return contended ? !sleeps.empty() : shmem::wait_clock() - start > WaitPolicy::kContendedSpinNs * 4e-9;
          },
          [](double) { FAIL(); }, [&](long ns) { sleeps.emplace_back(ns, shmem::wait_clock() - start); });
      if (contended) {
        ASSERT_FALSE(sleeps.empty());
        if (sleeps[0].second >= WaitPolicy::kYieldOnlyS) continue;  // held off its CPU: try again
        EXPECT_EQ(sleeps.size(), 1u);
        EXPECT_EQ(sleeps[0].first, WaitPolicy::kNapNs)
            << "the first sleep of a contended wait, " << sleeps[0].second * 1e6 << " us old";
      } else {
        if (p.contended_until.load() > 0) continue;  // this run lost its CPU: try again
        EXPECT_TRUE(sleeps.empty()) << sleeps.size() << " sleeps, the first of " << sleeps[0].first << " ns";
      }
      checked = true;
    }
    EXPECT_TRUE(checked) << (contended ? "contended" : "not contended")
                         << ": 1000 runs, none of the kind the claim is about";
  }
}

// The steps of a device-API wait while other kernel threads of its PE run (siblings): they
// hand the CPU over with sched_yield at every pause, never through the transport's idle and
// never by a nap, and never ask the board. The same wait without siblings, on a policy that
// hands over at once, goes through idle.
TEST(WaitSteps, SiblingsYieldAtEveryPauseWithoutBoardIdleOrNap) {
  for (const bool siblings : {false, true}) {
    shmem::WaitSlot mine, other;
    WaitPolicy p;
    adaptive(p, 8, 4);
    p.threads_share = true;  // without siblings: hand over at once, through give_cpu
    p.board.attach(&mine, {{&other, true}});
    int idles = 0;
    p.idle = [](void* arg, long) { ++*static_cast<int*>(arg); };
    p.poll_arg = &idles;
    p.saw_gap(1.0, shmem::wait_clock());  // contended: a spinning wait would nap
    const double start = shmem::wait_clock();  // before the wait's own start: ages here are >= its
    shmem::WaitSteps steps(p, siblings);
    // Every sleep step, with the wait's age when it came. On a loaded machine the loop may
    // outlast kYieldOnlyS, and the wait then rightly sleeps: what may never happen is a nap
    // (kNapNs, shorter than any sleep step) or a sleep of a wait younger than kYieldOnlyS.
    std::vector<std::pair<long, double>> sleeps;
    for (int i = 0; i < 64 || shmem::wait_clock() - start < WaitPolicy::kContendedSpinNs * 4e-9; ++i)
      steps.pause(
          p, [](double) { FAIL(); }, [&](long ns) { sleeps.emplace_back(ns, shmem::wait_clock() - start); });
    EXPECT_EQ(steps.sleeps(), !sleeps.empty());
    for (const auto& [ns, age] : sleeps) {
      EXPECT_GE(ns, shmem::sleep_step_ns(WaitPolicy::kYieldOnlyS)) << "a nap of " << ns << " ns";
      EXPECT_GE(age, WaitPolicy::kYieldOnlyS) << "a sleep before the wait was old";
    }
    if (siblings) {
      EXPECT_EQ(idles, 0);
      EXPECT_EQ(mine.cpu_plus_1.load(), 0);  // never published: the board was not asked
    } else {
      EXPECT_GE(idles + static_cast<int>(sleeps.size()), 64);  // every pause gave the CPU or slept
    }
  }
}

// A wait that lost its CPU while it waited usually finds what it waited for there once it runs
// again (the peer ran meanwhile): finished() looks at the gap since the last clock read, so
// the PE counts as contended and its next old waits nap. (Before, only a wait that went on
// after the gap saw it, and two PEs that each shared a CPU with a busy process ran in turns, a
// time slice per hand-off, without ever napping.) The gap is made by a sleep of the test
// itself, twice kLostCpuNs: a lower bound, whatever the machine does. What holds under any load:
// with the gap, finished() marks the PE contended from its own clock read on (later than the
// test's read just before it); without it, finished() marks it only if the machine really held
// the test off its CPU for kLostCpuNs between the last pause and the return of finished().
TEST(WaitSteps, FinishingAfterALostCpuMakesThePeContended) {
  const double old = WaitPolicy::kContendedSpinNs * 2e-9;
  for (const bool gap : {false, true}) {
    WaitPolicy p;
    adaptive(p, 8, 4);
    shmem::WaitSteps steps(p);  // board not attached: spins on (a loaded machine may make it nap or sleep)
    double last_pause = 0;      // before the last pause, whose clock read finished() compares with
    for (unsigned i = 0; i < 2 * WaitPolicy::kClockEvery; ++i) {
      last_pause = shmem::wait_clock();
      steps.pause(
          p, [](double) { FAIL(); }, [](long) {});
    }
    if (gap) shmem::sleep_ns(2 * WaitPolicy::kLostCpuNs);
    const double before = shmem::wait_clock();
    const double marked = p.contended_until.load();
    steps.finished(p);
    const double after = shmem::wait_clock();
    if (gap) {
      EXPECT_GE(p.contended_until.load(), before + WaitPolicy::kContendedForNs * 1e-9);
      EXPECT_EQ(p.nap_ns(old, before), WaitPolicy::kNapNs);
    } else if (p.contended_until.load() != marked) {
      EXPECT_GT(after - last_pause, WaitPolicy::kLostCpuNs * 1e-9) << "contended without a lost CPU";
    }
  }
  // A wait that hands its CPU over expects gaps: they say nothing.
  WaitPolicy y;
  adaptive(y, 8, 4);
  y.oversubscribed = true;  // every wait hands over at once
  shmem::WaitSteps steps(y);
  steps.pause(
      y, [](double) { FAIL(); }, [](long) {});
  shmem::sleep_ns(2 * WaitPolicy::kLostCpuNs);
  steps.finished(y);
  EXPECT_EQ(y.contended_until.load(), 0);
}

// The sleeps of waits: the thread's timer slack is at most a quarter of the sleep during it,
// and the caller's again afterwards (whatever it was).
TEST(WaitSleep, TimerSlackIsBoundedDuringTheSleepAndRestored) {
  const long before = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  ASSERT_EQ(prctl(PR_SET_TIMERSLACK, 77777, 0, 0, 0), 0);
  shmem::sleep_ns(20000);
  EXPECT_EQ(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), 77777);
  ASSERT_EQ(prctl(PR_SET_TIMERSLACK, 1000, 0, 0, 0), 0);  // already below a quarter: left alone
  shmem::sleep_ns(20000);
  EXPECT_EQ(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), 1000);
  prctl(PR_SET_TIMERSLACK, before, 0, 0, 0);
}

// Whether PEs outnumber CPUs is decided over every PE's share (the union of the affinity
// masks, the quotas of distinct cgroups added up), identically on every PE: PEs bound one to
// a CPU each do not outnumber them, and a PE with a narrower mask decides as the others do.
TEST(CpuShare, UnionOfMasksAndQuotasOfDistinctCgroups) {
  using shmem::cpus::pes_outnumber_cpus;
  using shmem::cpus::shared_cpus;
  EXPECT_EQ(shared_cpus({"0 0 ", "0 1 "}), 2);  // bound one to a CPU each
  EXPECT_FALSE(pes_outnumber_cpus(std::vector<std::string>{"0 0 ", "0 1 "}));
  EXPECT_TRUE(pes_outnumber_cpus(std::vector<std::string>{"0 0 ", "0 0 "}));  // both on CPU 0
  EXPECT_EQ(shared_cpus({"0 0 ", "0 0-1 "}), 2);  // one bound, one not: both decide from 2
  EXPECT_EQ(shared_cpus({"0 0-3,8,10-11 "}), 7);
  EXPECT_EQ(shared_cpus({"2 0-7 /sys/fs/cgroup/job", "2 0-7 /sys/fs/cgroup/job"}), 2);  // one cgroup's quota
  EXPECT_EQ(shared_cpus({"2 0-7 /sys/fs/cgroup/a", "2 0-7 /sys/fs/cgroup/b"}), 4);      // two cgroups
  EXPECT_EQ(shared_cpus({"2 0-7 /sys/fs/cgroup/a", "0 0-7 "}), 8);  // one PE without a quota
  EXPECT_EQ(shared_cpus({"2 0 /sys/fs/cgroup/a"}), 1);              // the mask is tighter
  EXPECT_EQ(shared_cpus({"0 - ", "garbage"}), 0);                    // no CPU named: unknown
  // This process's share reads back as its own mask.
  EXPECT_EQ(shared_cpus({shmem::cpus::share()}), shmem::cpus::usable_cpus());
}

// A wait that hands its CPU over yields, timed; once two yields in a row have each given the
// CPU away for a slice (synthetic timestamps here), it naps instead (the board then shows it
// asleep), for YieldCost's window; under SHMEM_WAIT_SPIN it always yields.
TEST(WaitYield, NapsInsteadOfYieldingWhileYieldsCostASlice) {
  for (const bool fixed : {false, true}) {
    for (const bool slow : {false, true}) {
      shmem::WaitSlot mine, other;
      WaitPolicy p;
      if (fixed) {
        p.configure_spin(16);
      } else {
        adaptive(p, 8, 4);
      }
      p.board.attach(&mine, {{&other, true}});
      (void)p.board.look();  // publishes this CPU
      ASSERT_NE(mine.cpu_plus_1.load(), 0);
      if (slow) {
        const std::uint64_t now = shmem::util::mono_ns();
        for (unsigned i = 0; i < shmem::util::YieldCost::kSlowInARow; ++i)
          p.yields.measured(now - 2 * shmem::util::YieldCost::kSlowYieldNs, now);
      }
      p.yield_or_nap();
      const bool napped = mine.cpu_plus_1.load() == 0;
      EXPECT_EQ(napped, slow && !fixed) << "fixed " << fixed << " slow " << slow;
    }
  }
}

// With SHMEM_THREAD_MULTIPLE on one host a wait hands over once it is kThreadsSpinNs old, but
// not while yields cost a time slice (two slow in a row, synthetic timestamps): then it goes
// by the board like any other. Where a transport's idle hands the CPU over (a job that spans hosts) it still
// does at once, and where PEs outnumber CPUs always.
TEST(WaitYield, ThreadsShareHandOverAtOnceUnlessYieldsCostASlice) {
  auto slow = [](WaitPolicy& p) {
    const std::uint64_t now = shmem::util::mono_ns();
    for (unsigned i = 0; i < shmem::util::YieldCost::kSlowInARow; ++i)
      p.yields.measured(now - 2 * shmem::util::YieldCost::kSlowYieldNs, now);
  };
  WaitPolicy p;
  adaptive(p, 8, 4);
  p.threads_share = true;
  EXPECT_TRUE(p.hands_over_at_once());
  EXPECT_FALSE(p.hands_over_at_once(0));  // a wait younger than kThreadsSpinNs goes by the board
  EXPECT_TRUE(p.hands_over_at_once(WaitPolicy::kThreadsSpinNs * 1e-9));
  slow(p);
  EXPECT_FALSE(p.hands_over_at_once());
  p.idle = [](void*, long) {};
  EXPECT_TRUE(p.hands_over_at_once());
  EXPECT_TRUE(p.hands_over_at_once(0));  // across hosts: at once
  WaitPolicy o;
  adaptive(o, 8, 4);
  o.threads_share = true;
  o.oversubscribed = true;
  slow(o);
  EXPECT_TRUE(o.hands_over_at_once());
}

TEST(CpuQuota, ParsesCgroupFormats) {
  EXPECT_EQ(shmem::cpus::parse_cpu_max("max 100000\n"), 0);
  EXPECT_EQ(shmem::cpus::parse_cpu_max("200000 100000\n"), 2);
  EXPECT_EQ(shmem::cpus::parse_cpu_max("150000 100000"), 1);  // 1.5 CPUs cannot run 2 spinners
  EXPECT_EQ(shmem::cpus::parse_cpu_max("50000 100000"), 1);   // at least one
  EXPECT_EQ(shmem::cpus::parse_cpu_max("garbage"), 0);
  EXPECT_EQ(shmem::cpus::parse_cpu_max(""), 0);
  EXPECT_EQ(shmem::cpus::quota_cpus(-1, 100000), 0);
  EXPECT_EQ(shmem::cpus::quota_cpus(400000, 100000), 4);
  EXPECT_EQ(shmem::cpus::quota_cpus(400000, 0), 0);
}

namespace {

struct FakeRoot {
  fs::path dir;
  FakeRoot() {
    char tmpl[] = "/tmp/shmem-cpus-test.XXXXXX";
    dir = mkdtemp(tmpl);
  }
  ~FakeRoot() { fs::remove_all(dir); }
  void write(const std::string& rel, const std::string& text) const {
    const fs::path p = dir / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
};

}  // namespace

TEST(CpuQuota, CgroupV2TightestAncestorWins) {
  FakeRoot r;
  r.write("proc/self/cgroup", "0::/job/step\n");
  r.write("proc/self/mountinfo",
          "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
          "31 23 0:27 / /proc rw - proc proc rw\n");
  r.write("sys/fs/cgroup/job/step/cpu.max", "max 100000\n");
  r.write("sys/fs/cgroup/job/cpu.max", "300000 100000\n");
  r.write("sys/fs/cgroup/cpu.max", "800000 100000\n");
  EXPECT_EQ(shmem::cpus::cgroup_quota_cpus(r.dir.string()), 3);
}

TEST(CpuQuota, CgroupV1CpuControllerAnyMountName) {
  FakeRoot r;
  r.write("proc/self/cgroup", "5:memory:/x\n3:cpu,cpuacct:/docker/abc\n0::/\n");
  r.write("proc/self/mountinfo",
          "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
          "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
          "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n");
  r.write("sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "200000\n");
  r.write("sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
  r.write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
  r.write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(shmem::cpus::cgroup_quota_cpus(r.dir.string()), 2);
}

TEST(CpuQuota, NoCgroupFilesMeansNoLimit) {
  FakeRoot r;
  EXPECT_EQ(shmem::cpus::cgroup_quota_cpus(r.dir.string()), 0);
  r.write("proc/self/cgroup", "0::/\n");
  r.write("proc/self/mountinfo", "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
  EXPECT_EQ(shmem::cpus::cgroup_quota_cpus(r.dir.string()), 0);
  EXPECT_GE(shmem::cpus::usable_cpus(r.dir.string()), 1);
}

// The affinity mask, not the machine's CPU count: a child pinned to one CPU sees one, and
// two PEs outnumber it.
TEST(CpuAffinity, PinnedToOneCpuMeansOne) {
  pinned_child([] {
    const bool ok = shmem::cpus::affinity_cpus() == 1 && shmem::cpus::usable_cpus("/nonexistent") == 1 &&
                    shmem::cpus::pes_outnumber_cpus(2) && !shmem::cpus::pes_outnumber_cpus(1);
    return ok ? 0 : 1;
  });
}
