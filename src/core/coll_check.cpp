// Mismatched collectives (coll_check.hpp): reading the other PEs' call lines, deciding whether
// two calls can meet, and the report.
//
// Two calls cannot meet when
//  - both are the same call number on the same team slot (or both are in the same active set)
//    but differ in routine, count, root or set: every member must make the same calls in the
//    same order;
//  - this PE waits in a call on team T of which the peer is a member, while the peer waits in
//    a WORLD call that this PE has not yet made: each waits for the other (this is what calls
//    on different teams look like);
//  - this PE waits in a call on team A that waits for the peer, which has not made that call,
//    while the peer waits in a call on team B (WORLD or any other) that waits for this PE, a
//    member of B that has not made that call: each waits for the other (calls on different
//    teams, or the same teams in a different order).
// A peer that is in no call, or in an earlier or later call of the same team, is not reported:
// it may still arrive. Symmetric allocations (on WORLD) and team creation and destruction (on
// the parent, or the team) are calls like the others; an active set counts as a team without
// call numbers.
#include "core/coll_check.hpp"

#include <dlfcn.h>

#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/log.hpp"
#include "core/ops.hpp"
#include "core/wait.hpp"

namespace shmem::coll_check {

const char kNameAnchor[] = "shmem collective";

namespace {

// One PE's call as read, with the number of the call on its slot.
struct Call {
  std::uint64_t state = 0, count_root = 0, set = 0, anchor = 0;
  std::uint32_t number = 0;
  std::uint32_t seq() const noexcept { return number; }
  int slot() const noexcept { return static_cast<int>((state >> 8) & 0xff); }
  Kind kind() const noexcept { return static_cast<Kind>(state & 0xff); }
  int root() const noexcept { return static_cast<int>(count_root >> 40); }
  bool active() const noexcept { return kind() != Kind::kNone; }
};

// Whether the call's kind publishes a count or a root (the words are stale otherwise).
bool has_count(Kind k) noexcept {
  return k != Kind::kNone && k != Kind::kNoArgs && k != Kind::kTeam && k != Kind::kSet;
}
bool has_root(Kind k) noexcept { return k == Kind::kNelemsRoot || k == Kind::kSetNelemsRoot; }
std::uint64_t count_of(const Call& c) noexcept {
  if (!has_count(c.kind())) return 0;
  return has_root(c.kind()) ? c.count_root & ((std::uint64_t{1} << 40) - 1) : c.count_root;
}
// The routine's name as an address in this process.
std::uintptr_t name_here(const Call& c) noexcept {
  return static_cast<std::uintptr_t>((c.state >> 16) - c.anchor) + reinterpret_cast<std::uintptr_t>(kNameAnchor);
}

// Peer `pe`'s line: node-local through the mapping, otherwise through the transport. A line
// that changed while it was read (its state or its slot's call number) counts as "in no call":
// the peer is moving.
bool read_line(Runtime& r, int pe, Call* c, std::uint32_t* calls) noexcept {
  if (char* p = r.heap_at(pe, kCallLineOffset)) {
    auto* l = reinterpret_cast<CallLine*>(p);
    auto load = [](std::uint64_t& w) { return std::atomic_ref<std::uint64_t>(w).load(std::memory_order_acquire); };
    c->state = load(l->state);
    const int slot = c->slot();
    auto seq = [&] {
      return slot == kSetSlot ? 0 : std::atomic_ref<std::uint32_t>(l->calls[slot]).load(std::memory_order_acquire);
    };
    const std::uint32_t seq_before = seq();
    c->count_root = load(l->count_root);
    c->set = load(l->set);
    c->anchor = load(l->anchor);
    if (calls != nullptr)
      for (int s = 0; s < kMaxTeams; ++s)
        calls[s] = std::atomic_ref<std::uint32_t>(l->calls[s]).load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (seq() != seq_before || std::atomic_ref<std::uint64_t>(l->state).load(std::memory_order_relaxed) != c->state)
      c->state = 0;
    c->number = c->state != 0 ? seq_before : 0;
    return true;
  }
  if (r.remote() == nullptr) return false;
  CallLine copy;
  core::get(r.default_ctx(), &copy, r.heap_at(r.my_pe(), kCallLineOffset), sizeof(CallLine), pe,
            "the collective check (SHMEM_COLL_CHECK_AFTER)");
  *c = Call{copy.state, copy.count_root, copy.set, copy.anchor, 0};
  const int slot = c->slot();
  if (c->state != 0 && slot != kSetSlot) c->number = copy.calls[slot];
  if (calls != nullptr) std::memcpy(calls, copy.calls, sizeof(copy.calls));
  return true;
}

// The routine's name, if the address leads to a routine name of this library.
std::string name_of(const Call& c) {
  const char* p = reinterpret_cast<const char*>(name_here(c));
  Dl_info here{}, there{};
  if (dladdr(kNameAnchor, &here) == 0 || dladdr(p, &there) == 0 || here.dli_fbase != there.dli_fbase)
    return "a collective";
  const std::size_t n = strnlen(p, 96);
  if (n == 0 || n == 96) return "a collective";
  for (std::size_t i = 0; i < n; ++i)
    if (!(std::islower(static_cast<unsigned char>(p[i])) || std::isdigit(static_cast<unsigned char>(p[i])) ||
          p[i] == '_'))
      return "a collective";
  return p;
}

std::string team_name(Runtime& r, int slot) {
  if (r.world_team() != nullptr && slot == r.world_team()->slot()) return "WORLD";
  if (r.shared_team() != nullptr && slot == r.shared_team()->slot()) return "SHARED";
  return "the team in slot " + std::to_string(slot);
}

std::string describe(Runtime& r, const Call& c) {
  char args[200];
  const unsigned long long n = count_of(c);
  const int start = static_cast<std::int32_t>(c.set & 0xffffffffu);
  const int stride = static_cast<int>((c.set >> 32) & 0xff);
  const int size = static_cast<int>(c.set >> 40);
  const std::string team = team_name(r, c.slot());
  switch (c.kind()) {
    case Kind::kNone:
    case Kind::kNoArgs: args[0] = 0; break;
    case Kind::kTeam: std::snprintf(args, sizeof args, "team=%s", team.c_str()); break;
    case Kind::kNelems: std::snprintf(args, sizeof args, "team=%s, nelems=%llu", team.c_str(), n); break;
    case Kind::kNelemsRoot:
      std::snprintf(args, sizeof args, "team=%s, nelems=%llu, PE_root=%d", team.c_str(), n, c.root());
      break;
    case Kind::kNreduce: std::snprintf(args, sizeof args, "team=%s, nreduce=%llu", team.c_str(), n); break;
    case Kind::kSize: std::snprintf(args, sizeof args, "size=%llu", n); break;
    case Kind::kSet:
      std::snprintf(args, sizeof args, "PE_start=%d, logPE_stride=%d, PE_size=%d", start, stride, size);
      break;
    case Kind::kSetNelems:
      std::snprintf(args, sizeof args, "nelems=%llu, PE_start=%d, logPE_stride=%d, PE_size=%d", n, start, stride, size);
      break;
    case Kind::kSetNelemsRoot:
      std::snprintf(args, sizeof args, "nelems=%llu, PE_root=%d, PE_start=%d, logPE_stride=%d, PE_size=%d", n, c.root(),
                    start, stride, size);
      break;
    case Kind::kSetNreduce:
      std::snprintf(args, sizeof args, "nreduce=%llu, PE_start=%d, logPE_stride=%d, PE_size=%d", n, start, stride,
                    size);
      break;
  }
  return name_of(c) + "(" + args + ")";
}

// Allocation sizes are compared by the allocation itself (SHMEM_DEBUG=1), with its own message.
bool same_call(const Call& a, const Call& b) noexcept {
  return a.kind() == b.kind() && name_here(a) == name_here(b) &&
         (a.kind() == Kind::kSize || count_of(a) == count_of(b)) && (!has_root(a.kind()) || a.root() == b.root()) &&
         (a.slot() != kSetSlot || a.set == b.set);
}

[[noreturn]] void report(Runtime& r, int pe, const Call& mine, const Call& theirs, const char* when) {
  log::write(log::Level::kFatal, "coll",
             "mismatched collectives: PE %d is in %s while PE %d is in %s (%s); every PE of a team must make "
             "the same collective calls, with the same arguments, in the same order",
             r.my_pe(), describe(r, mine).c_str(), pe, describe(r, theirs).c_str(), when);
  r.abort_job(1);
}

// A broadcast waits only for its root; everything else for every member. world_pe: whether a
// call (on `team`, nullptr = WORLD) waits for that world PE.
bool waits_for(const Call& c, Team* team, int world_pe) noexcept {
  const int index = team == nullptr ? world_pe : team->index_of(world_pe);
  if (index < 0) return false;
  if (c.kind() == Kind::kNelemsRoot) return c.root() == index;
  return true;
}

// The same for an active-set call (its set word: start | log_stride << 32 | size << 40).
bool set_waits_for(const Call& c, int world_pe) noexcept {
  const int start = static_cast<std::int32_t>(c.set & 0xffffffffu);
  const int log_stride = static_cast<int>((c.set >> 32) & 0xff);
  const int size = static_cast<int>(c.set >> 40);
  const int off = world_pe - start;
  if (off < 0 || log_stride > 30 || (off & ((1 << log_stride) - 1)) != 0 || (off >> log_stride) >= size) return false;
  if (c.kind() == Kind::kSetNelemsRoot) return c.root() == (off >> log_stride);
  return true;
}

// Whether call c (on a team slot or an active set) waits for world_pe; team: c's team here.
bool call_waits_for(const Call& c, Team* team, int world_pe) noexcept {
  return c.slot() == kSetSlot ? set_waits_for(c, world_pe) : waits_for(c, team, world_pe);
}

// One look at every other PE. when: the words of the report's reason.
// long_wait: this PE has waited SHMEM_COLL_CHECK_AFTER (else SHMEM_DEBUG=1 at entry, when a
// peer in an active-set call may merely be leaving it).
void compare_all(Runtime& r, const Call& mine, const char* when, bool long_wait) {
  std::vector<std::uint32_t> calls(kMaxTeams);
  std::uint32_t my_calls[kMaxTeams];
  Call again;
  read_line(r, r.my_pe(), &again, my_calls);
  const int world_slot = r.world_team()->slot();
  for (int pe = 0; pe < r.n_pes(); ++pe) {
    if (pe == r.my_pe()) continue;
    Call c;
    if (!read_line(r, pe, &c, calls.data()) || !c.active()) continue;
    if (c.slot() == mine.slot()) {
      const bool comparable = mine.slot() == kSetSlot ? c.set == mine.set : c.seq() == mine.seq();
      if (comparable && !same_call(mine, c)) report(r, pe, mine, c, when);
      continue;
    }
    // Calls on two teams (or a team and an active set): each waits for the other. The peer waits
    // in a call on team B (its slot) that this PE, a member of B, has not made yet, while this PE
    // waits in a call on its team that waits for the peer, which has not made that call yet. An
    // active set has no call numbers: a PE that waits in a team call has not made the set call
    // that the peer waits in (it would have let the peer go); the peer, waiting in a team call,
    // has not made this PE's.
    if (!long_wait && (c.slot() == kSetSlot || mine.slot() == kSetSlot)) continue;
    if (c.slot() != kSetSlot && my_calls[c.slot()] >= c.seq()) continue;
    if (mine.slot() != kSetSlot && calls[static_cast<std::size_t>(mine.slot())] >= mine.seq()) continue;
    Team* theirs = c.slot() == world_slot ? nullptr : r.team_in_slot(c.slot());
    if (c.slot() != world_slot && c.slot() != kSetSlot &&
        (theirs == nullptr || theirs->index_of(pe) < 0 || theirs->my_pe() < 0))
      continue;
    Team* team = mine.slot() == world_slot ? nullptr : r.team_in_slot(mine.slot());
    if (mine.slot() != world_slot && mine.slot() != kSetSlot && team == nullptr) continue;
    if (call_waits_for(mine, team, pe) && call_waits_for(c, theirs, r.my_pe())) report(r, pe, mine, c, when);
  }
}

Call my_call(Runtime& r) noexcept {
  Call c;
  read_line(r, r.my_pe(), &c, nullptr);
  return c;
}

thread_local bool t_checking = false;  // the check's own reads through the transport wait too

}  // namespace

void on_long_wait(void* arg) noexcept {
  if (t_checking) return;
  Runtime& r = *static_cast<Runtime*>(arg);
  const Call mine = my_call(r);
  if (!mine.active()) return;
  t_checking = true;
  char when[96];
  std::snprintf(when, sizeof when, "found after %g s in the collective, SHMEM_COLL_CHECK_AFTER=%g",
                r.wait_policy().long_wait_after_s, r.wait_policy().long_wait_after_s);
  compare_all(r, mine, when, true);
  t_checking = false;
}

void check_now(Runtime& r, Team* team) noexcept {
  if (t_checking) return;
  const Call mine = my_call(r);
  if (!mine.active()) return;
  t_checking = true;
  if (team != nullptr) {  // wait until every member has made this call, then compare
    const int slot = mine.slot();
    for (int i = 0; i < team->size(); ++i) {
      const int pe = team->world_pe(i);
      if (pe == r.my_pe()) continue;
      Call c;
      std::vector<std::uint32_t> calls(kMaxTeams);
      t_checking = false;  // the wait below may check on its own when it lasts
      wait_for(
          r.wait_policy(), [&] { return read_line(r, pe, &c, calls.data()) && calls[slot] >= mine.seq(); },
          [&](double) {
            log::write(log::Level::kFatal, "coll", "PE %d waited past SHMEM_WAIT_TIMEOUT for PE %d to enter %s",
                       r.my_pe(), pe, describe(r, mine).c_str());
            r.abort_job(1);
          });
      t_checking = true;
      if (c.active() && c.slot() == slot && c.seq() == mine.seq() && !same_call(mine, c))
        report(r, pe, mine, c, "SHMEM_DEBUG=1 compares every collective call");
    }
  }
  compare_all(r, mine, "SHMEM_DEBUG=1 compares every collective call", false);
  t_checking = false;
}

void forget_slot(Runtime& r, int slot) noexcept {
  if (slot < 0 || slot >= kMaxTeams) return;
  std::atomic_ref<std::uint32_t>(my_line(r)->calls[slot]).store(0, std::memory_order_relaxed);
}

void attach(WaitPolicy& pol, Runtime* r, double after_s) noexcept {
  static_assert(sizeof(CallLine) % 64 == 0);
  std::atomic_ref<std::uint64_t>(my_line(*r)->anchor)
      .store(reinterpret_cast<std::uintptr_t>(kNameAnchor), std::memory_order_release);
  if (after_s <= 0) return;
  pol.long_wait = &on_long_wait;
  pol.long_wait_arg = r;
  pol.long_wait_after_s = after_s;
}

}  // namespace shmem::coll_check
