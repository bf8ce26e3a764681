#pragma once
// Mismatched collectives, found and reported in words. Every PE publishes the collective call it
// is in (routine, team, count, root, its number among the team's calls) on a line of its
// internal area; a PE that has waited in a collective longer than SHMEM_COLL_CHECK_AFTER reads the
// other PEs' lines (node-local ones through the shared mapping, others through the transport)
// and, where they cannot meet, ends the job naming each PE's call ("PE 0 is in
// shmem_long_sum_reduce(team=WORLD, nreduce=4) while PE 1 is in shmem_barrier_all()").
// SHMEM_DEBUG=1 compares on every call. The data path pays an increment and two to four plain
// stores on entry (one for barrier_all and team_sync), one on exit, all to this PE's own line;
// the deprecated active-set calls also count themselves per set there (count_set_call: a scan of
// the sets this PE has used and two increments). What is and is not detected: core/coll_check.cpp.
#include <atomic>
#include <cstdint>
#include <string>

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
  kSize,  // symmetric allocations: the size in bytes
};
constexpr int kSetSlot = 255;  // the "team" of active-set calls

// Active sets whose calls a PE counts (the first this many distinct sets it calls on).
constexpr int kCountedSets = 32;

// One PE's current call; words written by that PE only, in this order: the call number of the
// team slot (active sets: the count of the set and set_calls), the words of the call's kind, then
// state (0 before the first call; otherwise the address of the routine's name << 16 | slot << 8 |
// kind: user addresses have 47 bits). On leaving a call the PE sets kLeft in state and keeps the
// rest: its latest call stays readable, so that a peer still waiting in a call of that number can
// tell that it was another one. The other words are written only by the calls whose kind has them
// (the check reads them by kind): a barrier_all pays one increment and one store on entry, one
// store on exit.
constexpr std::uint64_t kLeft = 0x80;  // in state: the PE has left that call (kinds stay below it)
static_assert(static_cast<std::uint64_t>(Kind::kSize) < kLeft);
struct alignas(64) CallLine {
  std::uint64_t state;
  std::uint64_t count_root;        // kinds with nelems / nreduce: the count; broadcasts: Scope::with_root
  std::uint64_t set;               // active sets: start | log_stride << 32 | size << 40
  std::uint64_t anchor;            // kNameAnchor's address in the writer's process (written at init)
  std::uint64_t finalizing;        // 1 once the PE is in finalize: it makes no collective call again
  // The call (state word and number) in which this PE's own check found it waiting long: it is
  // waiting, not working (written by on_long_wait only).
  std::uint64_t waiting_state, waiting_number;
  std::uint32_t calls[kMaxTeams];  // calls made on each team slot (the number of the latest)
  // Active sets have no slot: a PE counts its calls per set (the set word), in the order it first
  // calls on each, so that a peer can tell "made this set call and left it" from "never made it".
  // A set past the first kCountedSets is not counted (its calls have no number: never compared).
  std::uint32_t set_calls;                 // active-set calls made, all sets (readers' version)
  std::uint32_t sets_used;                 // entries of set_keys in use, at most kCountedSets
  std::uint64_t set_keys[kCountedSets];    // the set words
  std::uint32_t set_counts[kCountedSets];  // calls made on each (the number of the latest)
};
constexpr std::size_t kCallLineOffset = (kWaitSlotOffset - sizeof(CallLine) - 64) & ~std::size_t{63};
static_assert(kTeamPushOffset + sizeof(TeamPushArea) <= kCallLineOffset);
static_assert(kLazyKeyOffset + kLazyKeyBytes <= kCallLineOffset);
constexpr int kWorldSlot = 0;  // Runtime::create_predefined_teams

// Routine names are published as their __func__ addresses, and kNameAnchor's: the reader finds
// the name at the same distance from its own anchor (the same in every process of one build).
extern const char kNameAnchor[];

inline CallLine* my_line(const Runtime& r) noexcept {
  return reinterpret_cast<CallLine*>(r.my_heap() + kCallLineOffset);
}

// SHMEM_DEBUG=1: wait for the team's members to reach this call and compare (coll_check.cpp).
void check_now(Runtime& r, Team* team) noexcept;
// A wait of this PE's has lasted SHMEM_COLL_CHECK_AFTER (again): the check, if it is in a
// collective call (called by the WaitPolicy hook, core/deadlock.cpp).
void on_long_wait(Runtime& r) noexcept;
// Where PE pe is as its line says: in finalize, and the collective call it is in, in words
// ("shmem_barrier_all()"; empty when in none, or when its line could not be read).
struct Whereabouts {
  bool finalizing = false;
  std::string call;
};
Whereabouts where_is(Runtime& r, int pe);
// At init: publishes the anchor.
void attach(Runtime* r) noexcept;
// An active-set call on `set` begins: counts it (set_counts, set_calls) on this PE's line.
void count_set_call(CallLine* line, std::uint64_t set) noexcept;

// The decision, on two lines as read (tests/unit/core_coll_check_test.cpp).
namespace rules {
// How the checking PE sees a team slot: the index of world_pe in the team it has in that slot,
// -1 where world_pe is not a member or it has no team there (WORLD is never asked).
class Teams {
 public:
  virtual int index_of(int slot, int world_pe) const noexcept = 0;

 protected:
  ~Teams() = default;
};
// How many calls the line's PE has made on an active set (the number of the latest): 0 if none,
// -1 if it does not know (the set is past its first kCountedSets).
std::int64_t made_on_set(const CallLine& line, std::uint64_t set) noexcept;
// Whether PE me, in mine's call, and PE pe, in theirs, cannot meet (coll_check.cpp lists the
// cases); world_slot: WORLD's slot.
bool cannot_meet(const CallLine& mine, const CallLine& theirs, int me, int pe, int world_slot,
                 const Teams& teams) noexcept;

// Whether this PE's call can still complete, judged from the lines of the other members of its
// team or set, added one by one. It cannot when
//  - a PE it waits for (any member; a broadcast's root) is in finalize and has not made this
//    call: it never will (finalizing(); the barrier a PE skipped before finalize);
//  - members have made this call and left it while this PE is still in it, and every other
//    member has left it too or waits in it as long as this PE (abandoned(): its own check has
//    found it waiting there): nobody is working on it. The calls up to it did not pair up (a
//    broadcast whose root pushed and left, made where the others made barrier_all, so that the
//    root's next barrier_all met the others' and this one is left without it). A member still
//    working in it may owe this PE its part (a broadcast's root still pushing to the others);
//    where a member is on another host, only when every other member has left (a message from
//    there may be on its way: a host's members can leave before those of another host have).
// A PE that arrives last and leaves at once looks the same for a moment, before this PE sees its
// arrival: on_long_wait reports these only when its next check finds the same.
class Stuck {
 public:
  Stuck(const CallLine& mine, int me, int world_slot, const Teams& teams) noexcept;
  // PE pe's line as read (nullptr if it could not be read); local: pe is on this host.
  void add(int pe, const CallLine* theirs, bool local) noexcept;
  int finalizing() const noexcept { return finalizing_; }  // that PE, or -1
  bool abandoned() const noexcept { return judged_ && !unsure_ && left_ > 0 && (all_local_ || left_ == members_); }

 private:
  const CallLine& mine_;
  int me_, world_slot_;
  const Teams& teams_;
  bool judged_ = false;    // mine is in a call with a number
  bool unsure_ = false;    // a member not yet in this call, or whose count is unknown
  bool all_local_ = true;  // every member is on this host
  int finalizing_ = -1;
  int members_ = 0, left_ = 0;  // other members; those that left this call
};
}  // namespace rules

// The PE is in finalize (Runtime::finalize): its peers' checks may count on it never joining
// another collective call.
void publish_finalize(Runtime& r) noexcept;

// A team slot is free again (Team::clear_my_cell): its next team starts counting from zero.
void forget_slot(Runtime& r, int slot) noexcept;

// The call this PE is in, for its lifetime (RAII): a few plain stores on this PE's own line (a
// barrier_all pays about 19 instructions more than without the check, counted with callgrind);
// everything else happens only in a wait that lasts SHMEM_COLL_CHECK_AFTER, or under SHMEM_DEBUG=1.
class Scope {
 public:
  // A call on the world team (barrier_all, sync_all).
  [[gnu::always_inline]] Scope(const char* f, Kind kind, Runtime& r) noexcept : line_(my_line(r)) {
    enter(kWorldSlot, kind, f);
    if (__builtin_expect(r.checks(), 0)) check_now(r, r.world_team());
  }
  // A call on a team (not SHMEM_TEAM_INVALID).
  [[gnu::always_inline]] Scope(const char* f, Kind kind, Team& t, std::uint64_t count = 0, int root = 0) noexcept
      : line_(my_line(t.rt())) {
    Runtime& r = t.rt();
    const int slot = t.slot();
    if (kind == Kind::kNelems || kind == Kind::kNreduce || kind == Kind::kSize) store(line_->count_root, count);
    if (kind == Kind::kNelemsRoot) store(line_->count_root, with_root(count, root));
    enter(slot, kind, f);
    if (__builtin_expect(r.checks(), 0)) check_now(r, &t);
  }
  // A call on an active set.
  [[gnu::always_inline]] Scope(const char* f, Kind kind, Runtime& r, int start, int log_stride, int size,
                               std::uint64_t count = 0, int root = 0) noexcept
      : line_(my_line(r)) {
    store(line_->count_root, with_root(count, root));
    const std::uint64_t set = static_cast<std::uint32_t>(start) | static_cast<std::uint64_t>(log_stride & 0xff) << 32 |
                              static_cast<std::uint64_t>(size) << 40;
    count_set_call(line_, set);
    store(line_->set, set);
    enter(kSetSlot, kind, f, false);
    if (__builtin_expect(r.checks(), 0)) check_now(r, nullptr);
  }
  ~Scope() { std::atomic_ref<std::uint64_t>(line_->state).store(word_ | kLeft, std::memory_order_release); }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

  // A broadcast: root (24 bits) << 40 | nelems (40 bits; larger counts lose their top bits).
  static std::uint64_t with_root(std::uint64_t count, int root) noexcept {
    return (count & ((std::uint64_t{1} << 40) - 1)) |
           static_cast<std::uint64_t>(static_cast<std::uint32_t>(root) & 0xffffff) << 40;
  }

 private:
  static void store(std::uint64_t& w, std::uint64_t v) noexcept {
    std::atomic_ref<std::uint64_t>(w).store(v, std::memory_order_release);
  }
  // The call number first (a reader that sees it unchanged around its reads saw one call).
  [[gnu::always_inline]] void enter(int slot, Kind kind, const char* f, bool team = true) noexcept {
    CallLine* const l = line_;
    if (team) {
#if defined(__x86_64__)
      asm volatile("incl %0" : "+m"(l->calls[slot]));  // before the release stores below (TSO)
#else
      std::atomic_ref<std::uint32_t> calls(l->calls[slot]);
      calls.store(calls.load(std::memory_order_relaxed) + 1, std::memory_order_release);
#endif
    }
    word_ = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(f)) << 16 |
            static_cast<std::uint64_t>(slot) << 8 | static_cast<std::uint64_t>(kind);
    store(l->state, word_);
  }
  CallLine* line_;
  std::uint64_t word_ = 0;  // the state word of this call
};

}  // namespace coll_check
}  // namespace shmem
