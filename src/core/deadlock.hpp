#pragma once
// Deadlocks between waits, found and reported in words. In a job at SHMEM_THREAD_SINGLE (on one
// host or several), when every PE waits (in a point-to-point wait, a lock, a collective call, or
// finalize) and none of them can wake another, the job ends naming where each PE waits:
// "PE 0 is in shmem_barrier_all(); PE 1 is in shmem_int_wait_until on static data +0x10 for == 1,
// seeing 0".
//
// Why the verdict is sound: memory that a wait reads changes only by a store, and the only
// stores (in such a job) are the PEs' own. A PE's wait stores nothing (its looks are loads). So
// if, between the checking PE's first look at every PE (t1) and a later one, every PE stayed in
// one wait, and each looked at what it waits for once more after t1 and found it still unmet,
// no store can ever meet any of them: every store was made before t1 and each has seen them
// all. A store to another host is made when it completes there: a PE's beat follows a quiet of
// its operations. A PE in finalize (published after its last quiet) makes no store again either.
// What could store besides the PEs' waiting threads rules the check out: other threads of a PE
// (a thread level above SINGLE), a stream's or a kernel's worker threads, a GPU heap (kernels).
// Waits that do not say what they wait for (WaitWhat) are never counted.
//
// The data path pays nothing: a wait publishes only once it has lasted SHMEM_COLL_CHECK_AFTER,
// on its WaitPolicy::long_wait hook, which the collective check shares (core/coll_check.hpp;
// it runs first, so a mismatch of collectives is reported as such). There, each time, a
// counted wait raises its beat on its line (the wait's number and its looks so far) and the
// lowest-numbered PE not in finalize reads every line (through the transport for other hosts);
// it reports when every PE's looks went up by two in the same wait since its first look (the
// first of the two looks may have begun before t1), about three periods after the deadlock began.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/coll_check.hpp"
#include "core/runtime.hpp"
#include "core/wait.hpp"

namespace shmem {
namespace deadlock {

// Why memory of a PE may be written by something other than the PEs' waiting threads (bits of
// WaitLine::others): any of them rules the check out.
enum Others : std::uint64_t {
  kThreads = 1,  // a thread level above SHMEM_THREAD_SINGLE
  kHelpers = 2,  // a stream's thread or a kernel's workers have run in this process
  kGpu = 4,      // a GPU heap (kernels may write)
};

constexpr int kTextWords = 40;
// One PE's line, written by that PE only, in its internal area below the collective check's
// line and the target counter's (op_counters.cpp).
struct alignas(64) WaitLine {
  // The counted wait it is in or was last in: its number (process-wide, from 1) << 32 | the
  // looks it has published (from 1). 0 before the first, and while a new wait's text is written.
  std::uint64_t beat;
  std::uint64_t others;            // Others bits, as of the latest beat
  std::uint64_t beat_at;           // when the latest beat was published (CLOCK_REALTIME, ns); 0: the wait is over
  std::uint64_t since;             // when the wait began (CLOCK_REALTIME, ns)
  std::uint64_t text[kTextWords];  // where it waits, in words, NUL-terminated (written before the beat)
};
constexpr std::size_t kWaitLineOffset = (coll_check::kCallLineOffset - 64 - sizeof(WaitLine)) & ~std::size_t{63};
static_assert(kLazyKeyOffset + kLazyKeyBytes <= kWaitLineOffset);
static_assert(kTeamPushOffset + sizeof(TeamPushArea) <= kWaitLineOffset);

// At init: the WaitPolicy hooks (with SHMEM_COLL_CHECK_AFTER > 0 both checks; on_timeout always).
void attach(WaitPolicy& pol, Runtime* r, double after_s) noexcept;
// The hook: a wait has lasted SHMEM_COLL_CHECK_AFTER (again); arg is the Runtime.
void on_long_wait(void* arg, double started, const WaitWhat* what) noexcept;
// ... and that wait has completed: its line says it no longer waits (beat_at 0).
void on_long_wait_end(void* arg) noexcept;
// A thread other than the application's now runs library work that writes memory (a stream's
// thread, a kernel's workers): from now on this process's waits rule the check out.
void helpers_started() noexcept;
// The WaitPolicy::timed_out hook (a wait past SHMEM_WAIT_TIMEOUT, before its report): logs where
// every other PE is, from the lines: in finalize, in a wait that still publishes its beat (what
// it waits for, and for how long), in a collective call, or in none of them (it computes, or
// waits where nothing is published: a wait younger than SHMEM_COLL_CHECK_AFTER, or of a kind
// the check does not count). Across hosts the times come from the hosts' clocks.
void on_timeout(void* arg) noexcept;

// The decision, on the lines as read (tests/unit/core_deadlock_test.cpp).
namespace rules {
// One PE as the checking PE reads it.
struct Seen {
  std::uint64_t beat = 0;
  bool finalizing = false;
  bool others = false;
};
// The checking PE's looks, one per long wait of its own. The first look where every PE is in a
// counted wait or in finalize, and nothing rules the check out, is kept; a later one finds a
// deadlock when, since then, every PE has stayed in the same wait and its looks went up by two,
// or was in finalize already. A PE that left its wait (another number, or in finalize now)
// makes the later look the first one; anything that rules the check out, or a PE in no counted
// wait, forgets it.
class Watch {
 public:
  enum class Verdict { kNo, kMaybe, kDeadlock };
  Verdict look(const std::vector<Seen>& now);

 private:
  std::vector<Seen> first_;
};
}  // namespace rules

}  // namespace deadlock
}  // namespace shmem
