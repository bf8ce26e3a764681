#pragma once
// Mismatched collectives, found and reported in words. Every PE publishes the collective call it
// is in (routine, team, count, root, its number among the team's calls) on a line of its
// internal area; a PE that has waited in a collective longer than SHMEM_COLL_CHECK_AFTER reads the
// other PEs' lines (node-local ones through the shared mapping, others through the transport)
// and, where they cannot meet, ends the job naming each PE's call ("PE 0 is in
// shmem_long_sum_reduce(team=WORLD, nreduce=4) while PE 1 is in shmem_barrier_all()").
// SHMEM_DEBUG=1 compares on every call. The data path pays four stores on entry and one on exit,
// all to this PE's own line (what is and is not detected: core/coll_check.cpp).
#include <atomic>
#include <chrono>
#include <cstdint>

#include "core/runtime.hpp"
#include "core/team.hpp"
#include "core/wait.hpp"

namespace shmem {
namespace coll_check {

// What the arguments of a call are called (the routine's name says the rest: type and op).
enum class Kind : std::uint8_t {
  kNone = 0,
  kNoArgs,      // shmem_barrier_all, shmem_sync_all
  kTeam,        // shmem_team_sync
  kNelems,      // collect, fcollect, alltoall(s)
  kNelemsRoot,  // broadcast
  kNreduce,     // reductions and scans
  kSet,         // active-set barrier / sync
  kSetNelems,
  kSetNelemsRoot,
  kSetNreduce,
};
constexpr int kSetSlot = 255;  // the "team" of active-set calls

// One PE's current call; words written by that PE only. state: 0 between calls, else
// seq << 32 | slot << 8 | kind (written last on entry, cleared on exit).
struct alignas(64) CallLine {
  std::uint64_t state;
  std::uint64_t name_root;  // routine name (offset from kNameAnchor, 32 bits) | root << 32
  std::uint64_t count;
  // Active sets: start | log_stride << 32 | size << 40. Team calls: the Team* of this PE (read
  // only by this PE's own check: which team it waits in).
  std::uint64_t set;
  std::uint32_t calls[kMaxTeams];  // calls made on each team slot (seq of the latest)
};
constexpr std::size_t kCallLineOffset = (kWaitSlotOffset - sizeof(CallLine) - 64) & ~std::size_t{63};
static_assert(kTeamPushOffset + sizeof(TeamPushArea) <= kCallLineOffset);

// Routine names are __func__ strings of libshmem.so, published as their distance from this one
// (the same in every process of one build).
extern const char kNameAnchor[];

inline CallLine* my_line(Runtime& r) noexcept {
  return reinterpret_cast<CallLine*>(r.heap_at(r.my_pe(), kCallLineOffset));
}

// SHMEM_DEBUG=1: wait for the team's members to reach this call and compare (coll_check.cpp).
void check_now(Runtime& r, Team* team) noexcept;
// The WaitPolicy hook: a wait has lasted SHMEM_COLL_CHECK_AFTER (again); arg is the Runtime.
void on_long_wait(void* arg) noexcept;
inline void attach(WaitPolicy& pol, Runtime* r, double after_s) noexcept {
  pol.long_wait = &on_long_wait;
  pol.long_wait_arg = r;
  pol.long_wait_after_s = after_s;
}
// The same for a wait outside WaitSteps (the central barrier's futex sleeps): calls the hook
// each time another long_wait_after_s has passed since `start`.
inline void after_sleep(const WaitPolicy& pol, std::chrono::steady_clock::time_point start) noexcept {
  if (pol.long_wait == nullptr) return;
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  thread_local double next = 0;
  thread_local std::chrono::steady_clock::time_point of;
  if (of != start) {
    of = start;
    next = pol.long_wait_after_s;
  }
  if (waited > next) {
    next = waited + pol.long_wait_after_s;
    pol.long_wait(pol.long_wait_arg);
  }
}
// A team slot is free again (Team::clear_my_cell): its next team starts counting from zero.
void forget_slot(Runtime& r, int slot) noexcept;

// The call this PE is in, for its lifetime (RAII). team nullptr with slot kSetSlot: an active set.
class Scope {
 public:
  Scope(const char* f, Kind kind, Runtime* r, int slot, Team* team, std::uint64_t count, int root,
        std::uint64_t set = 0) noexcept {
    if (r == nullptr) return;
    line_ = my_line(*r);
    std::uint32_t seq = 0;
    if (slot != kSetSlot) {
      std::atomic_ref<std::uint32_t> calls(line_->calls[slot]);
      seq = calls.load(std::memory_order_relaxed) + 1;
      calls.store(seq, std::memory_order_relaxed);
    }
    const auto name =
        static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(f) - reinterpret_cast<std::uintptr_t>(kNameAnchor));
    std::atomic_ref<std::uint64_t>(line_->name_root)
        .store(name | static_cast<std::uint64_t>(static_cast<std::uint32_t>(root)) << 32, std::memory_order_relaxed);
    std::atomic_ref<std::uint64_t>(line_->count).store(count, std::memory_order_relaxed);
    if (team != nullptr) set = reinterpret_cast<std::uintptr_t>(team);
    std::atomic_ref<std::uint64_t>(line_->set).store(set, std::memory_order_relaxed);
    std::atomic_ref<std::uint64_t>(line_->state)
        .store(static_cast<std::uint64_t>(seq) << 32 | static_cast<std::uint64_t>(slot) << 8 |
                   static_cast<std::uint64_t>(kind),
               std::memory_order_release);
    if (__builtin_expect(r->checks(), 0)) check_now(*r, team);
  }
  ~Scope() {
    if (line_ != nullptr) std::atomic_ref<std::uint64_t>(line_->state).store(0, std::memory_order_release);
  }
  // A call on a team (nullptr: SHMEM_TEAM_INVALID, nothing published).
  Scope(const char* f, Kind kind, Team* t, std::uint64_t count = 0, int root = -1) noexcept
      : Scope(f, kind, t != nullptr ? &t->rt() : nullptr, t != nullptr ? t->slot() : 0, t, count, root) {}
  // A call on the world team of the current runtime (nothing published before init).
  Scope(const char* f, Kind kind, Runtime* r) noexcept
      : Scope(f, kind, r, r != nullptr ? r->world_team()->slot() : 0, r != nullptr ? r->world_team() : nullptr, 0, -1) {
  }
  // A call on an active set.
  Scope(const char* f, Kind kind, int start, int log_stride, int size, std::uint64_t count = 0, int root = -1) noexcept
      : Scope(f, kind, current_runtime(), kSetSlot, nullptr, count, root,
              static_cast<std::uint32_t>(start) | static_cast<std::uint64_t>(log_stride & 0xff) << 32 |
                  static_cast<std::uint64_t>(size) << 40) {}
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  CallLine* line_ = nullptr;
};

}  // namespace coll_check
}  // namespace shmem
