// The mismatched-collective check's decision (core/coll_check.cpp, rules::cannot_meet) on call
// lines built here as the PEs would write them, and the counting of active-set calls
// (count_set_call). Nothing runs a collective; the multi-PE cases are tests/coll/mismatch.cmake.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <vector>

#include "core/coll_check.hpp"

using shmem::coll_check::CallLine;
using shmem::coll_check::count_set_call;
using shmem::coll_check::kCountedSets;
using shmem::coll_check::Kind;
using shmem::coll_check::kNameAnchor;
using shmem::coll_check::kSetSlot;
namespace rules = shmem::coll_check::rules;

namespace {

// Routine names, as the Scopes publish them (the address of the routine's __func__).
const char kBarrierAll[] = "shmem_barrier_all";
const char kTeamSync[] = "shmem_team_sync";
const char kAlltoall64[] = "shmem_alltoall64";
const char kBarrier[] = "shmem_barrier";
const char kBroadcast64[] = "shmem_broadcast64";
const char kSumToAll[] = "shmem_long_sum_to_all";

constexpr int kWorld = 0;  // WORLD's slot
constexpr int kTeamA = 2;
constexpr int kTeamB = 3;

// A set word, as Scope writes it.
std::uint64_t set_of(int start, int log_stride, int size) {
  return static_cast<std::uint32_t>(start) | static_cast<std::uint64_t>(log_stride) << 32 |
         static_cast<std::uint64_t>(size) << 40;
}
const std::uint64_t kAll4 = set_of(0, 0, 4);    // PEs 0..3
const std::uint64_t kPair01 = set_of(0, 0, 2);  // PEs 0 and 1

// One PE's line, written as its calls would write it.
struct Pe {
  CallLine line{};
  Pe() { line.anchor = reinterpret_cast<std::uintptr_t>(kNameAnchor); }
  void publish(const char* f, int slot, Kind kind) {
    line.state = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(f)) << 16 |
                 static_cast<std::uint64_t>(slot) << 8 | static_cast<std::uint64_t>(kind);
  }
  // Enters a call on a team slot (leaving the one it was in).
  Pe& team_call(const char* f, int slot, Kind kind = Kind::kNoArgs, std::uint64_t count = 0) {
    ++line.calls[slot];
    line.count_root = count;
    publish(f, slot, kind);
    return *this;
  }
  // Enters an active-set call.
  Pe& set_call(const char* f, std::uint64_t set, Kind kind = Kind::kSet, std::uint64_t count = 0, int root = 0) {
    line.count_root = (count & ((std::uint64_t{1} << 40) - 1)) | static_cast<std::uint64_t>(root) << 40;
    count_set_call(&line, set);
    line.set = set;
    publish(f, kSetSlot, kind);
    return *this;
  }
  // Has made n barrier_alls and left the last.
  Pe& barriers(int n) {
    for (int i = 0; i < n; ++i) team_call(kBarrierAll, kWorld);
    return leave();
  }
  // Leaves the call it is in: the call stays on the line, marked left (as Scope's destructor).
  Pe& leave() {
    line.state |= shmem::coll_check::kLeft;
    return *this;
  }
  Pe& finalize() {
    line.finalizing = 1;
    return *this;
  }
  // Its own check has found it waiting in its call on a team slot (on_long_wait).
  Pe& waiting(int slot) {
    line.waiting_state = line.state;
    line.waiting_number = line.calls[slot];
    return *this;
  }
};

// The teams as the checking PE sees them: members (world PEs) per slot.
class FakeTeams final : public rules::Teams {
 public:
  std::map<int, std::vector<int>> members;
  int index_of(int slot, int world_pe) const noexcept override {
    const auto it = members.find(slot);
    if (it == members.end()) return -1;
    for (std::size_t i = 0; i < it->second.size(); ++i)
      if (it->second[i] == world_pe) return static_cast<int>(i);
    return -1;
  }
};

bool cannot_meet(const Pe& mine, const Pe& theirs, int me, int pe, const FakeTeams& teams = FakeTeams{}) {
  return rules::cannot_meet(mine.line, theirs.line, me, pe, kWorld, teams);
}

// rules::Stuck over PEs 0..n-1 (pes[i] is PE i's line), as PE me sees them; remote: the PEs on
// another host.
struct Verdict {
  int finalizing;
  bool abandoned;
};
Verdict stuck(const std::vector<const Pe*>& pes, int me, const std::vector<int>& remote = {},
              const FakeTeams& teams = FakeTeams{}) {
  rules::Stuck s(pes[me]->line, me, kWorld, teams);
  for (int pe = 0; pe < static_cast<int>(pes.size()); ++pe) {
    bool local = true;
    for (int r : remote) local = local && r != pe;
    s.add(pe, pes[pe] != nullptr ? &pes[pe]->line : nullptr, local);
  }
  return {s.finalizing(), s.abandoned()};
}

}  // namespace

// The false report seen at 256 PEs: PE 3 still inside an active-set alltoall (held there), PE 0
// has made it and left it, and waits in the next barrier_all.
TEST(CollCheckSet, APeerThatLeftTheSetCallForBarrierAllIsNoMismatch) {
  Pe slow, fast;
  slow.barriers(5).set_call(kAlltoall64, kAll4, Kind::kSetNelems, 1);
  fast.barriers(5).set_call(kAlltoall64, kAll4, Kind::kSetNelems, 1).leave().team_call(kBarrierAll, kWorld);
  EXPECT_FALSE(cannot_meet(slow, fast, 3, 0));
  EXPECT_FALSE(cannot_meet(fast, slow, 0, 3));
}

// The same with several calls on the set: the peer has made as many, and left the last.
TEST(CollCheckSet, APeerThatLeftTheNthSetCallIsNoMismatch) {
  Pe slow, fast;
  for (int i = 0; i < 3; ++i) {
    slow.set_call(kAlltoall64, kAll4, Kind::kSetNelems, 1).leave().barriers(1);
    fast.set_call(kAlltoall64, kAll4, Kind::kSetNelems, 1).leave().barriers(1);
  }
  slow.set_call(kAlltoall64, kAll4, Kind::kSetNelems, 1);
  fast.set_call(kAlltoall64, kAll4, Kind::kSetNelems, 1).leave().team_call(kBarrierAll, kWorld);
  EXPECT_FALSE(cannot_meet(slow, fast, 3, 0));
  EXPECT_FALSE(cannot_meet(fast, slow, 0, 3));
  // One call fewer on the set (the peer skipped the fourth): a real mismatch, from both sides.
  Pe skipper;
  for (int i = 0; i < 3; ++i) skipper.set_call(kAlltoall64, kAll4, Kind::kSetNelems, 1).leave().barriers(1);
  skipper.team_call(kBarrierAll, kWorld);
  EXPECT_TRUE(cannot_meet(slow, skipper, 3, 0));
  EXPECT_TRUE(cannot_meet(skipper, slow, 0, 3));
}

// tests/coll/coll_mismatch.c "set": PE 0 in the active-set barrier of every PE, the others in
// team_sync(WORLD), never having made that barrier.
TEST(CollCheckSet, APeerThatNeverMadeTheSetCallIsAMismatch) {
  Pe in_set, in_team;
  in_set.barriers(2).set_call(kBarrier, kAll4);
  in_team.barriers(2).team_call(kTeamSync, kWorld, Kind::kTeam);
  EXPECT_TRUE(cannot_meet(in_set, in_team, 0, 1));
  EXPECT_TRUE(cannot_meet(in_team, in_set, 1, 0));
  // Once the peer has made the team call too (it is late to the set, not absent): no mismatch.
  in_set.leave().team_call(kTeamSync, kWorld, Kind::kTeam).leave().set_call(kBarrier, kAll4);
  EXPECT_FALSE(cannot_meet(in_set, in_team, 0, 1));
  EXPECT_FALSE(cannot_meet(in_team, in_set, 1, 0));
}

// A team call of a team the peer is in, against an active set that does not hold this PE (or
// the peer): neither waits for the other there.
TEST(CollCheckSet, OnlyMembersAreWaitedFor) {
  Pe mine, theirs;
  mine.set_call(kBarrier, kPair01);       // PE 0, in a set of PEs 0 and 1
  theirs.team_call(kBarrierAll, kWorld);  // PE 2, not in the set
  EXPECT_FALSE(cannot_meet(mine, theirs, 0, 2));
  EXPECT_FALSE(cannot_meet(theirs, mine, 2, 0));
  // PE 1 is in the set: the same calls cannot meet.
  EXPECT_TRUE(cannot_meet(mine, theirs, 0, 1));
  EXPECT_TRUE(cannot_meet(theirs, mine, 1, 0));
}

// An active-set broadcast waits only for its root.
TEST(CollCheckSet, ABroadcastWaitsOnlyForItsRoot) {
  Pe receiver, root, other;
  receiver.set_call(kBroadcast64, kAll4, Kind::kSetNelemsRoot, 4, 2);  // PE 0, root index 2
  root.team_call(kBarrierAll, kWorld);                                 // PE 2 (the root)
  other.team_call(kBarrierAll, kWorld);                                // PE 1
  EXPECT_TRUE(cannot_meet(receiver, root, 0, 2));
  EXPECT_FALSE(cannot_meet(receiver, other, 0, 1));
}

// Two active sets (previously never compared): each PE waits in a set call the other has not made.
TEST(CollCheckSet, TwoSetsInADifferentOrderAreAMismatch) {
  Pe a_first, b_first;
  a_first.set_call(kBarrier, kPair01);  // PE 0: the pair, then all
  b_first.set_call(kBarrier, kAll4);    // PE 1: all, then the pair
  EXPECT_TRUE(cannot_meet(a_first, b_first, 0, 1));
  EXPECT_TRUE(cannot_meet(b_first, a_first, 1, 0));
  // PE 1 made the pair's barrier and left it; PE 0 is still in it: no mismatch.
  Pe late, ahead;
  late.set_call(kBarrier, kPair01);
  ahead.set_call(kBarrier, kPair01).leave().set_call(kBarrier, kAll4);
  EXPECT_FALSE(cannot_meet(late, ahead, 0, 1));
  EXPECT_FALSE(cannot_meet(ahead, late, 1, 0));
}

// The same set: the same call must agree; an earlier or a later one is a PE on its way.
TEST(CollCheckSet, TheSameSetComparesTheSameCallOnly) {
  Pe slow, fast;
  slow.set_call(kAlltoall64, kAll4, Kind::kSetNelems, 1);
  fast.set_call(kAlltoall64, kAll4, Kind::kSetNelems, 1).leave().set_call(kBarrier, kAll4);
  EXPECT_FALSE(cannot_meet(slow, fast, 3, 0));  // the peer's next call on the set
  EXPECT_FALSE(cannot_meet(fast, slow, 0, 3));
  Pe four, eight;
  four.set_call(kSumToAll, kAll4, Kind::kSetNreduce, 4);
  eight.set_call(kSumToAll, kAll4, Kind::kSetNreduce, 8);
  EXPECT_TRUE(cannot_meet(four, eight, 0, 1));
  Pe other_routine;
  other_routine.set_call(kBarrier, kAll4);
  EXPECT_TRUE(cannot_meet(four, other_routine, 0, 1));
  Pe same;
  same.set_call(kSumToAll, kAll4, Kind::kSetNreduce, 4);
  EXPECT_FALSE(cannot_meet(four, same, 0, 1));
}

// The team rules, unchanged: two teams in a different order; a peer late to the same call.
TEST(CollCheckTeams, TeamsInADifferentOrderAreAMismatch) {
  FakeTeams teams;
  teams.members[kTeamA] = {0, 1};
  teams.members[kTeamB] = {0, 1};
  Pe a_first, b_first;
  a_first.team_call(kTeamSync, kTeamA, Kind::kTeam);
  b_first.team_call(kTeamSync, kTeamB, Kind::kTeam);
  EXPECT_TRUE(cannot_meet(a_first, b_first, 0, 1, teams));
  // PE 1 made A's sync and left it: no mismatch.
  b_first.leave().team_call(kTeamSync, kTeamA, Kind::kTeam);
  EXPECT_FALSE(cannot_meet(a_first, b_first, 0, 1, teams));
  // The peer's slot B holds a team without it here (another half of a split): not judged.
  Pe other_half;
  other_half.team_call(kTeamSync, kTeamB, Kind::kTeam);
  EXPECT_FALSE(cannot_meet(a_first, other_half, 0, 2, teams));
}

TEST(CollCheckTeams, TheSameTeamCallMustAgree) {
  Pe four, eight, later;
  four.team_call(kSumToAll, kWorld, Kind::kNreduce, 4);
  eight.team_call(kSumToAll, kWorld, Kind::kNreduce, 8);
  EXPECT_TRUE(cannot_meet(four, eight, 0, 1));
  later.team_call(kSumToAll, kWorld, Kind::kNreduce, 4).leave().team_call(kBarrierAll, kWorld);
  EXPECT_FALSE(cannot_meet(four, later, 0, 1));
  EXPECT_FALSE(cannot_meet(four, Pe{}, 0, 1));  // in no call
}

// A split puts different teams in one slot (rows of 2 at 3 PEs: {0, 1} and {2}): the same call
// number there on a PE of the other team is another team's call, not compared.
TEST(CollCheckTeams, TheOtherTeamInTheSameSlotIsNotCompared) {
  FakeTeams pe0_sees;
  pe0_sees.members[kTeamA] = {0, 2};  // PE 0's team in slot A; PE 1 is alone in its own
  Pe pe0, pe1;
  pe0.team_call(kBroadcast64, kTeamA, Kind::kNelemsRoot, 4).line.count_root |= std::uint64_t{1} << 40;
  pe1.team_call(kBroadcast64, kTeamA, Kind::kNelemsRoot, 4);  // root 0 of its own team
  EXPECT_FALSE(cannot_meet(pe0, pe1, 0, 1, pe0_sees));
  // PE 2 is in PE 0's team: the same call with another root is a mismatch.
  EXPECT_TRUE(cannot_meet(pe0, pe1, 0, 2, pe0_sees));
}

// Calls are counted per set, in the order the PE first calls on each; sets past kCountedSets
// are not counted, and their calls are never compared.
TEST(CollCheckSet, CallsAreCountedPerSet) {
  Pe pe;
  pe.set_call(kBarrier, kAll4).leave().set_call(kBarrier, kPair01).leave().set_call(kBarrier, kAll4).leave();
  EXPECT_EQ(rules::made_on_set(pe.line, kAll4), 2);
  EXPECT_EQ(rules::made_on_set(pe.line, kPair01), 1);
  EXPECT_EQ(rules::made_on_set(pe.line, set_of(1, 0, 3)), 0);
  EXPECT_EQ(pe.line.set_calls, 3u);
  EXPECT_EQ(pe.line.sets_used, 2u);
  for (int s = 2; s < kCountedSets; ++s) pe.set_call(kBarrier, set_of(s, 0, 1)).leave();
  EXPECT_EQ(pe.line.sets_used, static_cast<std::uint32_t>(kCountedSets));
  const std::uint64_t uncounted = set_of(0, 1, 2);
  EXPECT_EQ(rules::made_on_set(pe.line, uncounted), -1);
  pe.set_call(kBarrier, uncounted).leave();
  EXPECT_EQ(rules::made_on_set(pe.line, uncounted), -1);
  EXPECT_EQ(pe.line.sets_used, static_cast<std::uint32_t>(kCountedSets));
  EXPECT_EQ(rules::made_on_set(pe.line, kAll4), 2);  // the counted ones go on counting
  pe.set_call(kBarrier, kAll4);
  EXPECT_EQ(rules::made_on_set(pe.line, kAll4), 3);
  // An uncounted set against a peer that never made it: not known, so not reported.
  Pe in_team;
  in_team.team_call(kBarrierAll, kWorld);
  pe.leave().set_call(kBarrier, uncounted);
  EXPECT_FALSE(cannot_meet(pe, in_team, 0, 2));
  EXPECT_FALSE(cannot_meet(in_team, pe, 2, 0));
}

// A peer's latest call, made and left, is compared too: the root of a broadcast (which does not
// wait) left it, and the other PE waits in its barrier_all of the same number (coll_mismatch
// "bcast_barrier"; before, the job hung).
TEST(CollCheckLeft, ALeftCallOfTheSameNumberMustAgree) {
  Pe root, other;
  root.barriers(1).team_call(kBroadcast64, kWorld, Kind::kNelemsRoot, 4).leave();
  other.barriers(1).team_call(kBarrierAll, kWorld);
  EXPECT_TRUE(cannot_meet(other, root, 1, 0));
  // The same call, left: a PE this one will see leave, not a mismatch.
  Pe done;
  done.barriers(2);
  EXPECT_FALSE(cannot_meet(other, done, 1, 0));
  // A left call of another number: an earlier one (on its way) or a later one is not compared.
  Pe behind;
  behind.barriers(1);
  EXPECT_FALSE(cannot_meet(other, behind, 1, 0));
  root.finalize();  // its latest call stays readable in finalize
  EXPECT_TRUE(cannot_meet(other, root, 1, 0));
}

// A PE in finalize that has not made this PE's call never will (coll_mismatch "skip_finalize").
TEST(CollCheckStuck, APeerInFinalizeThatSkippedTheCall) {
  Pe skipper, waiter, other;
  skipper.barriers(1).finalize();
  waiter.barriers(1).team_call(kBarrierAll, kWorld);
  other.barriers(1).team_call(kBarrierAll, kWorld);
  Verdict v = stuck({&skipper, &waiter, &other}, 1);
  EXPECT_EQ(v.finalizing, 0);
  EXPECT_FALSE(v.abandoned);
  // Not yet in finalize: it may still come.
  skipper.line.finalizing = 0;
  v = stuck({&skipper, &waiter, &other}, 1);
  EXPECT_EQ(v.finalizing, -1);
  EXPECT_FALSE(v.abandoned);
  // In finalize having made the call (and left it, paired with ours): not this rule.
  Pe made_it;
  made_it.barriers(2).finalize();
  EXPECT_EQ(stuck({&made_it, &waiter}, 1).finalizing, -1);
  // A broadcast waits only for its root: a non-root in finalize is not waited for.
  Pe receiver, root, finalizing_other;
  receiver.team_call(kBroadcast64, kWorld, Kind::kNelemsRoot, 4);  // root 0
  root.team_call(kBroadcast64, kWorld, Kind::kNelemsRoot, 4);
  finalizing_other.finalize();
  EXPECT_EQ(stuck({&root, &receiver, &finalizing_other}, 1).finalizing, -1);
  Pe finalizing_root;
  finalizing_root.finalize();
  EXPECT_EQ(stuck({&finalizing_root, &receiver}, 1).finalizing, 0);
}

// coll_mismatch "bcast_then_barrier": PE 0 broadcast (pushed, left) then barrier_all, which met
// the others' first barrier_all; they wait in their second, which PE 0 has made and left.
TEST(CollCheckStuck, MembersThatLeftTheCallAbandonIt) {
  Pe pe0, pe1, pe2;
  pe0.barriers(1).team_call(kBroadcast64, kWorld, Kind::kNelemsRoot, 4).leave().barriers(1).finalize();
  pe1.barriers(2).team_call(kBarrierAll, kWorld).waiting(kWorld);
  pe2.barriers(2).team_call(kBarrierAll, kWorld);
  // PE 2 is in the call, and not known to wait there: it may be working on it (a broadcast's
  // root still pushing to the others).
  EXPECT_FALSE(stuck({&pe0, &pe1, &pe2}, 1).abandoned);
  pe2.waiting(kWorld);  // its own check found it waiting there too
  Verdict v = stuck({&pe0, &pe1, &pe2}, 1);
  EXPECT_TRUE(v.abandoned);
  EXPECT_EQ(v.finalizing, -1);
  Pe earlier_wait;  // its check ran in an earlier call: not this one
  earlier_wait.barriers(1).team_call(kBarrierAll, kWorld).waiting(kWorld).leave().team_call(kBarrierAll, kWorld);
  EXPECT_FALSE(stuck({&pe0, &pe1, &earlier_wait}, 1).abandoned);
  // PE 2 on another host: its part may be on its way, so only "every other member left" counts.
  EXPECT_FALSE(stuck({&pe0, &pe1, &pe2}, 1, {2}).abandoned);
  EXPECT_TRUE(stuck({&pe0, &pe1}, 1, {0}).abandoned);
  // A member not yet in the call may still come.
  Pe late;
  late.barriers(2);
  EXPECT_FALSE(stuck({&pe0, &pe1, &late}, 1).abandoned);
  // Nobody left: every member is in it (slow, not stuck).
  EXPECT_FALSE(stuck({&pe2, &pe1}, 1).abandoned);
  // A member whose line could not be read, or whose latest call is on another team (another of
  // its threads may have made it while it is still in this one): not judged.
  EXPECT_FALSE(stuck({&pe0, &pe1, nullptr}, 1).abandoned);
  FakeTeams teams;
  teams.members[kTeamA] = {0, 1, 2};
  Pe threads;
  threads.barriers(2).team_call(kBarrierAll, kWorld).team_call(kTeamSync, kTeamA, Kind::kTeam);
  --threads.line.calls[kWorld];  // the same count on WORLD as in the call above, made once
  EXPECT_FALSE(stuck({&pe0, &pe1, &threads}, 1, {}, teams).abandoned);
  // A later call on the team: it has left this one, whatever its latest call elsewhere.
  threads.line.calls[kWorld] += 2;
  EXPECT_TRUE(stuck({&pe0, &pe1, &threads}, 1, {}, teams).abandoned);
}
