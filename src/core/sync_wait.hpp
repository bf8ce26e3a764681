#pragma once
// Waiting inside collectives: a watchdog-reporting wait on one word, and the dissemination
// barrier that teams and active sets use when every PE has a CPU of its own. In the core, not
// in coll/, because a team's sync (core/team.cpp) is this barrier.
#include <atomic>
#include <cstdint>

#include "base/log.hpp"
#include "core/runtime.hpp"
#include "core/wait.hpp"

namespace shmem {

// Waits (adaptive spin, then yield; see wait.hpp) until done(); past SHMEM_WAIT_TIMEOUT it reports what this PE was
// waiting for, on which word, and ends the job.
template <class Done>
void wait_word(Runtime& rt, const char* what, const void* word, Done&& done) noexcept {
  wait_for(rt.wait_policy(), done, [&](double waited) {
    log::write(log::Level::kFatal, "wait",
               "collective timed out after %.1f s (SHMEM_WAIT_TIMEOUT=%g): PE %d waited for %s (the word at %s)",
               waited, rt.wait_policy().timeout_s, rt.my_pe(), what, rt.describe(word).c_str());
    rt.abort_job(1);
  });
}

// Dissemination barrier over n members with counting flags: in round r (distance d = 2^r) a
// member adds one to round word r of member (me + d) % n, then waits until its own round word r
// is positive and takes one back. ceil(log2 n) rounds, each a one-way hand-off between two
// members, instead of every member touching one shared counter. Counting (rather than setting)
// lets a fast member run into the next barrier without its signal being lost, and leaves every
// word at zero once all members are through. word(pe, r) returns member pe's round word r as
// mapped here; Word is an integral type with std::atomic_ref support.
// arrive(pe, r) raises member pe's round word r (the overload without it adds to word(pe, r)
// as mapped here; teams that span hosts pass one that goes through the remote transport).
template <class Word, class WordAt, class Arrive>
void dissemination(Runtime& rt, int n, int me, WordAt&& word, Arrive&& arrive) noexcept {
  for (int r = 0, d = 1; d < n; ++r, d <<= 1) {
    arrive((me + d) % n, r);
    Word* mine = word(me, r);
    std::atomic_ref<Word> w(*mine);
    wait_for(rt.wait_policy(), [&] { return w.load(std::memory_order_acquire) > 0; }, [&](double waited) {
      log::write(log::Level::kFatal, "wait",
                 "barrier timed out after %.1f s (SHMEM_WAIT_TIMEOUT=%g): PE %d (member %d of %d) waited in "
                 "dissemination round %d for member %d to arrive: its flag at %s, expected > 0, last seen %lld",
                 waited, rt.wait_policy().timeout_s, rt.my_pe(), me, n, r, ((me - d) % n + n) % n,
                 rt.describe(mine).c_str(), static_cast<long long>(w.load()));
      rt.abort_job(1);
    });
    w.fetch_sub(1, std::memory_order_acq_rel);
  }
}

template <class Word, class WordAt>
void dissemination(Runtime& rt, int n, int me, WordAt&& word) noexcept {
  dissemination<Word>(rt, n, me, word, [&](int pe, int r) {
    std::atomic_ref<Word>(*word(pe, r)).fetch_add(1, std::memory_order_acq_rel);
  });
}

}  // namespace shmem
