// Mismatched collectives (coll_check.hpp): reading the other PEs' call lines, deciding whether
// two calls can meet, and the report.
//
// Two calls cannot meet (rules::cannot_meet) when
//  - both are the same call on one team slot, or on one active set (the same call number: a
//    team's calls on its slot, an active set's calls on that set, as counted by each PE), but
//    differ in routine, count or root: every member must make the same calls in the same order.
//    The peer may have left its call already, if it was its latest (a broadcast's root);
//  - they are calls on two groups (two teams, a team and an active set, or two active sets),
//    and each PE waits for the other in a call the other has not made: this PE's call waits for
//    the peer, which has made fewer calls on this PE's team or set than this call's number, while
//    the peer's call waits for this PE, which has made fewer calls on the peer's team or set than
//    the peer's call's number. This is what calls on different teams look like, or the same
//    teams in a different order, or an active-set call that a peer skipped.
// A peer that is in no call, in an earlier call of the same group, or in a later one (it has
// made this PE's call and left it: a slow PE still inside an active-set alltoall while the others
// are in the next barrier_all), is not reported: it may still arrive, or has. Symmetric
// allocations (on WORLD) and team creation and destruction (on the parent, or the team) are calls
// like the others. An active set past the first kCountedSets that a PE calls on has no numbers:
// its calls are not compared (never a false report, sometimes a missed one).
// A PE's own call cannot complete (rules::Stuck, reported when two checks find it) when a PE it
// waits for is in finalize without having made it, or when the other members have left it
// without this PE (calls that paired up wrongly).
#include "core/coll_check.hpp"

#include <dlfcn.h>

#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "base/log.hpp"
#include "core/ops.hpp"
#include "core/wait.hpp"

namespace shmem::coll_check {

const char kNameAnchor[] = "shmem collective";

namespace {

// One PE's call as read, with its number: among the calls on its team slot, or on its active set
// (kUnknown: a set that PE does not count).
constexpr std::int64_t kUnknown = -1;
struct Call {
  std::uint64_t state = 0, count_root = 0, set = 0, anchor = 0;
  std::int64_t number = 0;
  int slot() const noexcept { return static_cast<int>((state >> 8) & 0xff); }
  Kind kind() const noexcept { return static_cast<Kind>(state & (kLeft - 1)); }
  int root() const noexcept { return static_cast<int>(count_root >> 40); }
  bool made() const noexcept { return kind() != Kind::kNone; }  // a call, current or the latest left
  bool left() const noexcept { return made() && (state & kLeft) != 0; }
  bool active() const noexcept { return made() && (state & kLeft) == 0; }
};

// How many calls the line's PE has made on call c's team slot or active set.
std::int64_t made(const CallLine& l, const Call& c) noexcept {
  if (c.slot() == kSetSlot) return rules::made_on_set(l, c.set);
  return c.slot() < kMaxTeams ? l.calls[c.slot()] : kUnknown;
}

Call call_of(const CallLine& l) noexcept {
  Call c{l.state, l.count_root, l.set, l.anchor, 0};
  if (c.made()) c.number = made(l, c);
  return c;
}

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
// that changed while it was read (its state, or its slot's call number; active sets: set_calls)
// counts as "in no call": the peer is moving.
bool read_line(Runtime& r, int pe, CallLine* out) noexcept {
  if (char* p = r.heap_at(pe, kCallLineOffset)) {
    auto* l = reinterpret_cast<CallLine*>(p);
    auto load = [](std::uint64_t& w) { return std::atomic_ref<std::uint64_t>(w).load(std::memory_order_acquire); };
    auto load32 = [](std::uint32_t& w) { return std::atomic_ref<std::uint32_t>(w).load(std::memory_order_acquire); };
    out->state = load(l->state);
    const int slot = static_cast<int>((out->state >> 8) & 0xff);
    auto version = [&] { return load32(slot == kSetSlot ? l->set_calls : l->calls[slot < kMaxTeams ? slot : 0]); };
    const std::uint32_t before = version();
    out->count_root = load(l->count_root);
    out->set = load(l->set);
    out->anchor = load(l->anchor);
    out->finalizing = load(l->finalizing);
    out->waiting_state = load(l->waiting_state);
    out->waiting_number = load(l->waiting_number);
    for (int s = 0; s < kMaxTeams; ++s) out->calls[s] = load32(l->calls[s]);
    out->set_calls = load32(l->set_calls);
    out->sets_used = load32(l->sets_used);
    for (int s = 0; s < kCountedSets; ++s) {
      out->set_keys[s] = load(l->set_keys[s]);
      out->set_counts[s] = load32(l->set_counts[s]);
    }
    // The state first, then the version: the writer bumps the version before it stores a new
    // call's state (after that call's count, which a read above may have seen), so a state that
    // is back to the same value comes with a new version.
    std::atomic_thread_fence(std::memory_order_acquire);
    if (load(l->state) != out->state || version() != before) out->state = 0;
    return true;
  }
  if (r.remote() == nullptr) return false;
  core::get(r.default_ctx(), out, r.heap_at(r.my_pe(), kCallLineOffset), sizeof(CallLine), pe,
            "the collective check (SHMEM_COLL_CHECK_AFTER)");
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

constexpr const char* kRule =
    "every PE of a team must make the same collective calls, with the same arguments, in the same order";

[[noreturn]] void report(Runtime& r, int pe, const Call& mine, const Call& theirs, const char* when) {
  log::write(log::Level::kFatal, "coll", "mismatched collectives: PE %d is in %s while PE %d %s %s%s (%s); %s",
             r.my_pe(), describe(r, mine).c_str(), pe, theirs.left() ? "made" : "is in", describe(r, theirs).c_str(),
             theirs.left() ? " in its place and left it" : "", when, kRule);
  r.abort_job(1);
}

// world_pe's index in an active set (its set word: start | log_stride << 32 | size << 40); -1 if
// not a member.
int set_index(std::uint64_t set, int world_pe) noexcept {
  const int start = static_cast<std::int32_t>(set & 0xffffffffu);
  const int log_stride = static_cast<int>((set >> 32) & 0xff);
  const int size = static_cast<int>(set >> 40);
  const int off = world_pe - start;
  if (off < 0 || log_stride > 30 || (off & ((1 << log_stride) - 1)) != 0 || (off >> log_stride) >= size) return -1;
  return off >> log_stride;
}

// The team slots of this PE's runtime.
class RuntimeTeams final : public rules::Teams {
 public:
  explicit RuntimeTeams(Runtime& r) noexcept : r_(&r) {}
  int index_of(int slot, int world_pe) const noexcept override {
    Team* t = r_->team_in_slot(slot);
    return t == nullptr ? -1 : t->index_of(world_pe);
  }

 private:
  Runtime* r_;
};

// One look at every other PE (when: the words of the report's reason); with `stuck`, also
// whether this PE's call can still complete.
void compare_all(Runtime& r, const CallLine& mine, const char* when, rules::Stuck* stuck = nullptr) {
  const RuntimeTeams teams(r);
  const int world_slot = r.world_team()->slot();
  CallLine theirs;
  for (int pe = 0; pe < r.n_pes(); ++pe) {
    if (pe == r.my_pe()) continue;
    const bool read = read_line(r, pe, &theirs);
    if (stuck != nullptr) stuck->add(pe, read ? &theirs : nullptr, r.heap_at(pe, kCallLineOffset) != nullptr);
    if (read && rules::cannot_meet(mine, theirs, r.my_pe(), pe, world_slot, teams))
      report(r, pe, call_of(mine), call_of(theirs), when);
  }
}

thread_local bool t_checking = false;  // the check's own reads through the transport wait too

// The call in which a check found this PE stuck (rules::Stuck), to be reported if the next check
// of the same call finds it again.
struct Suspect {
  std::uint64_t state = 0, set = 0;
  std::int64_t number = -1;
  bool same(const Call& c) const noexcept { return state == c.state && set == c.set && number == c.number; }
};
thread_local Suspect t_suspect;

}  // namespace

namespace rules {

std::int64_t made_on_set(const CallLine& line, std::uint64_t set) noexcept {
  const std::uint32_t used = line.sets_used < kCountedSets ? line.sets_used : kCountedSets;
  for (std::uint32_t i = 0; i < used; ++i)
    if (line.set_keys[i] == set) return line.set_counts[i];
  return used == kCountedSets ? kUnknown : 0;
}

namespace {
// world_pe's index in the group of call c (its team as this PE has it in that slot, or its set);
// -1 if not a member.
int index_in(const Call& c, int world_pe, int world_slot, const Teams& teams) noexcept {
  if (c.slot() == kSetSlot) return set_index(c.set, world_pe);
  return c.slot() == world_slot ? world_pe : teams.index_of(c.slot(), world_pe);
}
// Whether call c waits for world_pe: a broadcast only for its root, everything else for every member.
bool waits_for(const Call& c, int world_pe, int world_slot, const Teams& teams) noexcept {
  const int i = index_in(c, world_pe, world_slot, teams);
  return i >= 0 && (!has_root(c.kind()) || c.root() == i);
}
bool same_group(const Call& a, const Call& b) noexcept {
  return a.slot() == b.slot() && (a.slot() != kSetSlot || a.set == b.set);
}
}  // namespace

bool cannot_meet(const CallLine& mine, const CallLine& theirs, int me, int pe, int world_slot,
                 const Teams& teams) noexcept {
  const Call m = call_of(mine);
  const Call c = call_of(theirs);
  if (!m.active() || !c.made() || m.number == kUnknown || c.number == kUnknown) return false;
  // The same team, or the same active set: the same call must agree, whether the peer is still in
  // it or has left it (then it is the peer's latest call, and its number is the peer's count); an
  // earlier or a later one is a PE on its way. A peer outside this PE's team in that slot is in
  // another team there (the other half of a split): its calls are not this team's.
  if (same_group(m, c)) return index_in(m, pe, world_slot, teams) >= 0 && m.number == c.number && !same_call(m, c);
  if (!c.active()) return false;
  // Two groups: each waits for the other in a call the other has not made.
  const std::int64_t they_made = made(theirs, m);  // the peer's calls on this PE's team or set
  const std::int64_t i_made = made(mine, c);       // this PE's calls on the peer's
  if (they_made == kUnknown || i_made == kUnknown || they_made >= m.number || i_made >= c.number) return false;
  // The peer's slot holds another team here (one this PE is not a member of, like the other half
  // of a split): the peer's team is not one this PE can judge.
  if (c.slot() != kSetSlot && c.slot() != world_slot &&
      (index_in(c, pe, world_slot, teams) < 0 || index_in(c, me, world_slot, teams) < 0))
    return false;
  return waits_for(m, pe, world_slot, teams) && waits_for(c, me, world_slot, teams);
}

Stuck::Stuck(const CallLine& mine, int me, int world_slot, const Teams& teams) noexcept
    : mine_(mine), me_(me), world_slot_(world_slot), teams_(teams) {
  const Call m = call_of(mine);
  judged_ = m.active() && m.number != kUnknown;
}

void Stuck::add(int pe, const CallLine* theirs, bool local) noexcept {
  if (!judged_ || pe == me_) return;
  const Call m = call_of(mine_);
  if (index_in(m, pe, world_slot_, teams_) < 0) return;
  ++members_;
  all_local_ = all_local_ && local;
  const std::int64_t n = theirs != nullptr ? made(*theirs, m) : kUnknown;
  if (n == kUnknown || n < m.number) {  // may still come (or cannot be judged)
    unsure_ = true;
    if (n != kUnknown && theirs->finalizing != 0 && finalizing_ < 0 && waits_for(m, pe, world_slot_, teams_))
      finalizing_ = pe;
    return;
  }
  // It has made this call: it has left it when it has made a later one on the group, or when its
  // latest call is this one and it has left it. Its latest call elsewhere says nothing: another
  // of its threads may have made that one while it is still in this (THREAD_MULTIPLE).
  const Call c = call_of(*theirs);
  if (n > m.number || (c.left() && same_group(m, c))) {
    ++left_;
    return;
  }
  const bool waits_in_it = c.active() && same_group(m, c) && theirs->waiting_state == c.state &&
                           theirs->waiting_number == static_cast<std::uint64_t>(n);
  if (!waits_in_it) unsure_ = true;  // working in it, or another of its threads made its latest call
}

}  // namespace rules

namespace {

// The group of call c, for reports.
std::string group_name(Runtime& r, const Call& c) {
  return c.slot() == kSetSlot ? std::string("its active set") : team_name(r, c.slot());
}
// Where PE pe is, for a report of this PE's call m: in a call, in finalize, or neither.
std::string whereabouts(Runtime& r, int pe, const Call& m) {
  CallLine l;
  if (!read_line(r, pe, &l)) return "PE " + std::to_string(pe) + " could not be read";
  const Call c = call_of(l);
  std::string s = "PE " + std::to_string(pe);
  if (c.left() && rules::same_group(m, c) && c.number == m.number) s += " made it as " + describe(r, c) + " and";
  if (l.finalizing != 0) return s + " is in finalize";
  if (c.active()) return s + " is in " + describe(r, c);
  return s + " is in no collective call";
}

[[noreturn]] void report_stuck(Runtime& r, const Call& m, const rules::Stuck& stuck, const char* when) {
  const std::string mine = describe(r, m), group = group_name(r, m);
  if (stuck.finalizing() >= 0) {
    log::write(log::Level::kFatal, "coll",
               "mismatched collectives: PE %d is in %s (its call %lld on %s), which PE %d never made: PE %d is in "
               "finalize (%s); %s",
               r.my_pe(), mine.c_str(), static_cast<long long>(m.number), group.c_str(), stuck.finalizing(),
               stuck.finalizing(), when, kRule);
    r.abort_job(1);
  }
  // Members have left it without this PE: name the first few members and where they are.
  const RuntimeTeams teams(r);
  const int world_slot = r.world_team()->slot();
  std::string others;
  int named = 0, members = 0;
  for (int pe = 0; pe < r.n_pes(); ++pe) {
    if (pe == r.my_pe() || rules::index_in(m, pe, world_slot, teams) < 0) continue;
    ++members;
    if (named < 4) others += (named++ > 0 ? "; " : "") + whereabouts(r, pe, m);
  }
  if (members > named) others += "; and " + std::to_string(members - named) + " more";
  log::write(log::Level::kFatal, "coll",
             "mismatched collectives: PE %d is in %s (its call %lld on %s), which cannot complete: other PEs there "
             "have made their call %lld and left it without this PE, so the calls up to it did not pair up (a "
             "collective that some PEs made and others did not, such as a broadcast whose root does not wait): %s "
             "(%s); %s",
             r.my_pe(), mine.c_str(), static_cast<long long>(m.number), group.c_str(), static_cast<long long>(m.number),
             others.c_str(), when, kRule);
  r.abort_job(1);
}

}  // namespace

void on_long_wait(Runtime& r) noexcept {
  if (t_checking) return;
  CallLine mine;
  read_line(r, r.my_pe(), &mine);
  const Call m = call_of(mine);
  if (!m.active()) return;
  t_checking = true;
  CallLine* const line = my_line(r);  // waiting here, not working: for the others' checks
  std::atomic_ref<std::uint64_t>(line->waiting_number)
      .store(static_cast<std::uint64_t>(m.number), std::memory_order_relaxed);
  std::atomic_ref<std::uint64_t>(line->waiting_state).store(m.state, std::memory_order_release);
  const double after = r.wait_policy().long_wait_after_s;
  char when[128];
  std::snprintf(when, sizeof when, "found after %g s in the collective, SHMEM_COLL_CHECK_AFTER=%g", after, after);
  const RuntimeTeams teams(r);
  rules::Stuck stuck(mine, r.my_pe(), r.world_team()->slot(), teams);
  compare_all(r, mine, when, &stuck);
  if (stuck.finalizing() < 0 && !stuck.abandoned()) {
    t_suspect = Suspect{};
  } else if (!t_suspect.same(m)) {
    t_suspect = Suspect{m.state, m.set, m.number};  // the next check decides
  } else {
    std::snprintf(when, sizeof when, "found by two checks %g s apart, SHMEM_COLL_CHECK_AFTER=%g", after, after);
    report_stuck(r, m, stuck, when);
  }
  t_checking = false;
}

void publish_finalize(Runtime& r) noexcept {
  std::atomic_ref<std::uint64_t>(my_line(r)->finalizing).store(1, std::memory_order_release);
}

void check_now(Runtime& r, Team* team) noexcept {
  if (t_checking) return;
  CallLine line;
  read_line(r, r.my_pe(), &line);
  const Call mine = call_of(line);
  if (!mine.active()) return;
  t_checking = true;
  if (team != nullptr) {  // wait until every member has made this call, then compare
    const int slot = mine.slot();
    CallLine theirs;
    for (int i = 0; i < team->size(); ++i) {
      const int pe = team->world_pe(i);
      if (pe == r.my_pe()) continue;
      t_checking = false;  // the wait below may check on its own when it lasts
      wait_for(
          r.wait_policy(), [&] { return read_line(r, pe, &theirs) && theirs.calls[slot] >= mine.number; },
          [&](double) {
            log::write(log::Level::kFatal, "coll", "PE %d waited past SHMEM_WAIT_TIMEOUT for PE %d to enter %s",
                       r.my_pe(), pe, describe(r, mine).c_str());
            r.abort_job(1);
          });
      t_checking = true;
      const Call c = call_of(theirs);
      if (c.active() && c.slot() == slot && c.number == mine.number && !same_call(mine, c))
        report(r, pe, mine, c, "SHMEM_DEBUG=1 compares every collective call");
    }
  }
  compare_all(r, line, "SHMEM_DEBUG=1 compares every collective call");
  t_checking = false;
}

void count_set_call(CallLine* line, std::uint64_t set) noexcept {
  auto ref = [](std::uint32_t& w) { return std::atomic_ref<std::uint32_t>(w); };
  auto find = [&](std::uint32_t used) {
    for (std::uint32_t i = 0; i < used; ++i)
      if (std::atomic_ref<std::uint64_t>(line->set_keys[i]).load(std::memory_order_relaxed) == set)
        return static_cast<int>(i);
    return -1;
  };
  int i = find(ref(line->sets_used).load(std::memory_order_acquire));
  if (i < 0) {  // a set this PE has not called on yet (another thread of it may add one at once)
    static std::mutex adding;
    const std::lock_guard<std::mutex> hold(adding);
    const std::uint32_t used = ref(line->sets_used).load(std::memory_order_relaxed);
    i = find(used);
    if (i < 0 && used < kCountedSets) {
      std::atomic_ref<std::uint64_t>(line->set_keys[used]).store(set, std::memory_order_relaxed);
      ref(line->set_counts[used]).store(0, std::memory_order_relaxed);
      ref(line->sets_used).store(used + 1, std::memory_order_release);
      i = static_cast<int>(used);
    }
  }
  if (i >= 0) ref(line->set_counts[i]).fetch_add(1, std::memory_order_release);
  ref(line->set_calls).fetch_add(1, std::memory_order_release);
}

void forget_slot(Runtime& r, int slot) noexcept {
  if (slot < 0 || slot >= kMaxTeams) return;
  std::atomic_ref<std::uint32_t>(my_line(r)->calls[slot]).store(0, std::memory_order_relaxed);
}

Whereabouts where_is(Runtime& r, int pe) {
  CallLine l;
  if (!read_line(r, pe, &l)) return {};
  const Call c = call_of(l);
  return Whereabouts{l.finalizing != 0, c.active() ? describe(r, c) : std::string()};
}

void attach(Runtime* r) noexcept {
  static_assert(sizeof(CallLine) % 64 == 0);
  std::atomic_ref<std::uint64_t>(my_line(*r)->anchor)
      .store(reinterpret_cast<std::uintptr_t>(kNameAnchor), std::memory_order_release);
}

}  // namespace shmem::coll_check
