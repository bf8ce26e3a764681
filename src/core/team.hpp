#pragma once
#include <cstdint>
#include <mutex>
#include <vector>

#include "core/host_layout.hpp"
#include "core/runtime.hpp"
#include "core/team_ops.hpp"

namespace shmem {

// A team: an ordered set of world PEs with a slot of runtime-internal symmetric memory (its
// barrier cell and a small scratch area for pulled values). All members of a team agree on
// its slot, because slots are chosen by a collective over the parent team.
class Team {
 public:
  // `routine` is what creates it (shmem_init, shmem_team_split_strided, ...), named when the
  // team's layout does not fit its slot's cross-host area.
  Team(Runtime& rt, int slot, std::vector<int> world_pes, bool predefined, const char* routine);

  Runtime& rt() const noexcept { return *rt_; }
  int slot() const noexcept { return slot_; }
  // The team's handle value (Runtime::add_team): its slot and how often the slot has held a team
  // on this PE, so that the handle of a destroyed team is never a live team's.
  std::uintptr_t handle() const noexcept { return handle_; }
  void set_handle(std::uintptr_t h) noexcept { handle_ = h; }
  int my_pe() const noexcept { return me_; }
  int size() const noexcept { return static_cast<int>(world_.size()); }
  int world_pe(int pe) const noexcept { return world_[static_cast<std::size_t>(pe)]; }
  const std::vector<int>& world_pes() const noexcept { return world_; }
  int index_of(int world_pe) const noexcept;  // -1 if not a member
  bool predefined() const noexcept { return predefined_; }
  // Some member is on another host: the barrier and allgather_words go through the remote
  // transport, and only the collectives that support it may run on the team.
  bool spans_hosts() const noexcept { return spans_hosts_; }
  // Teams that span hosts (coll/hier.hpp): how the members fall on hosts, the barriers of
  // this host's members and of the host leaders (words in the slot's cross-host area), and this
  // PE's byte counters of the leader channel, per host.
  const HostLayout& layout() const noexcept { return layout_; }
  // Where the words and rings of the slot's cross-host area are, for this team's layout.
  const XSlotMap& x_map() const noexcept { return x_map_; }
  void node_sync() noexcept;
  void leader_sync() noexcept;
  std::vector<XPair>& x_pairs() noexcept { return x_pairs_; }
  // Pushed broadcasts across hosts: member team_pe's count of copies written into it by the
  // member of its host with local index j (the slot's push word j, XSlotMap), and this PE's count of
  // those it has waited for, per local index.
  std::uint64_t* x_push_word(int team_pe, int j) const noexcept {
    return x_word(team_pe, x_map_.push + sizeof(std::uint64_t) * static_cast<std::size_t>(j));
  }
  std::vector<std::uint64_t>& x_push_seen() noexcept { return x_push_seen_; }
  TeamCell& cell(int team_pe) const noexcept { return rt_->internal(world_pe(team_pe)).teams[slot_]; }
  TeamCell& my_cell() const noexcept { return cell(me_); }

  core::TeamConfig config;
  long config_mask = 0;

  // Blocks until every member has arrived (no quiet: that is barrier's job).
  void sync() noexcept;
  // Every member publishes `words` (<= kScratchWords) and receives all members' values,
  // ordered by team PE: out[pe * words + k]. Collective.
  void allgather_words(const std::uint64_t* mine, int words, std::uint64_t* out) noexcept;
  // The bitwise AND of every member's `words` (<= kScratchWords / 3) into out. Collective. Across
  // hosts only the leaders talk: O(hosts) loads per leader, not O(members) per member.
  void and_words(const std::uint64_t* mine, int words, std::uint64_t* out) noexcept;
  // Whether every member passed the same `word` (one and_words round over the word and its
  // complement); the same answer on every member. Collective.
  bool all_equal(std::uint64_t word) noexcept;
  // Sequence number of the next broadcast on this team (the same on every member, since
  // members call collectives in the same order); *same_root tells whether the previous
  // broadcast had the same root.
  // The last bcast_ack this PE read from member pe (a local cache: a root re-reads a member's
  // ack line only when the cached value does not yet let it go on).
  std::uint64_t& seen_ack(int pe) noexcept { return seen_ack_[static_cast<std::size_t>(pe)]; }
  std::uint64_t next_broadcast(int root, bool* same_root) noexcept {
    *same_root = root == last_broadcast_root_;
    last_broadcast_root_ = root;
    return ++broadcasts_;
  }
  // Number of the next pushed collective on this team (the same on every member).
  std::uint64_t next_push() noexcept { return ++pushes_; }
  // After the last use of the team (team_destroy's sync): clears this member's words of the
  // slot (and its push lines) so that the next team to get the slot starts from zero.
  void clear_my_cell() noexcept;

 private:
  Runtime* rt_;
  int slot_;
  std::uintptr_t handle_ = 0;
  int me_ = -1;
  std::vector<int> world_;
  bool predefined_;
  bool spans_hosts_ = false;
  std::uint64_t broadcasts_ = 0;
  std::uint64_t pushes_ = 0;
  int last_broadcast_root_ = -1;
  std::vector<std::uint64_t> seen_ack_;
  HostLayout layout_;
  XSlotMap x_map_;
  std::vector<XPair> x_pairs_;
  std::vector<std::uint64_t> x_push_seen_;

  void central_sync() noexcept;
  std::uint64_t* x_word(int team_pe, std::size_t off_in_slot) const noexcept;
  void load_words(int team_pe, const std::uint64_t* words_here, int n, std::uint64_t* out) noexcept;
};

// Slot bookkeeping for one PE: which team slots it uses. Team creation ANDs the free sets of
// all parent members so every member of the new team gets the same slot.
class TeamSlots {
 public:
  static constexpr int kWords = kMaxTeams / 64;
  TeamSlots();
  void take(int slot) noexcept;
  void release(int slot) noexcept;
  const std::uint64_t* free_mask() const noexcept { return free_; }

 private:
  std::uint64_t free_[kWords];
};

}  // namespace shmem
