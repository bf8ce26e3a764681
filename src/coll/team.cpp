// Team-based collectives: the algorithms of algos.hpp over a Team, and for small
// reductions, fcollects and alltoalls on teams of up to 8 PEs the pushed ones of push.hpp
// over the team's push lines (TeamLines).
#include <atomic>

#include "coll/algos.hpp"
#include "coll/ops.hpp"
#include "coll/push.hpp"
#include "coll/xhost_team.hpp"
#include "base/log.hpp"
#include "core/team.hpp"

namespace shmem {
namespace {

struct TeamGroup {
  Team* t;
  Runtime& rt() const noexcept { return t->rt(); }
  int size() const noexcept { return t->size(); }
  int me() const noexcept { return t->my_pe(); }
  int world(int i) const noexcept { return t->world_pe(i); }
  void sync() noexcept { t->sync(); }
  void allgather_word(std::uint64_t v, std::uint64_t* out) noexcept { t->allgather_words(&v, 1, out); }

  // Pushed broadcasts: monotonic sequence numbers in the members' team cells. Before writing a
  // member's dest and flag slot seq % 2, the root waits until the member has completed the
  // previous broadcast, so that all of its writes have landed; when the previous broadcast had
  // the same root (its writes are ours, already made) only until the member has completed the
  // one before, whose flag used the same slot: a root then runs one broadcast ahead.
  std::uint64_t lag = 1;
  std::uint64_t bcast_begin(int root) noexcept {
    bool same_root = false;
    const std::uint64_t seq = t->next_broadcast(root, &same_root);
    lag = same_root ? 2 : 1;
    return seq;
  }
  void bcast_wait_ready(int pe, std::uint64_t seq) noexcept {
    std::uint64_t& seen = t->seen_ack(pe);
    if (seen + lag >= seq) return;
    std::atomic_ref<std::uint64_t> ack(t->cell(pe).bcast_ack);
    wait_word(rt(), "a team member to finish an earlier broadcast", &t->cell(pe).bcast_ack,
                    [&] { return (seen = ack.load(std::memory_order_acquire)) + lag >= seq; });
  }
  void bcast_signal(int pe, std::uint64_t seq) noexcept {
    std::atomic_ref<std::uint64_t>(t->cell(pe).bcast_flag[seq & 1]).store(seq, std::memory_order_release);
  }
  void bcast_wait_signal(std::uint64_t seq) noexcept {
    std::uint64_t& word = t->my_cell().bcast_flag[seq & 1];
    std::atomic_ref<std::uint64_t> flag(word);
    wait_word(rt(), "the broadcast's root to deliver the data", &word,
                    [&] { return flag.load(std::memory_order_acquire) >= seq; });
  }
  void bcast_done(std::uint64_t seq, bool) noexcept { bcast_pulled(seq); }
  void bcast_pulled(std::uint64_t seq) noexcept {
    std::atomic_ref<std::uint64_t>(t->my_cell().bcast_ack).store(seq, std::memory_order_release);
  }
};

// The push channel of a team (push.hpp): member r's lines for sender s are
// team_push(r).lines[slot][call & 1][(s - r - 1) mod n]. Lines carry the call number, so nothing
// is cleared, and alternate calls use alternate lines: a member starting call c + 2 has finished
// call c + 1, which needed every other member's data for c + 1, sent only once that member had
// taken everything of call c out of its lines.
class TeamLines {
 public:
  // Whether a call moving `bytes` per member pair on team t goes through its lines.
  static bool fits(const Team& t, std::size_t bytes) noexcept {
    return t.slot() < kPushTeams && t.size() > 1 && t.size() <= kPushSenders + 1 && bytes <= kPushLineBytes;
  }
  explicit TeamLines(Team* t) noexcept : t_(t), call_(t->next_push()), n_(t->size()), me_(t->my_pe()) {}
  int size() const noexcept { return n_; }
  int me() const noexcept { return me_; }
  PushLine* claim(int to) noexcept { return &line(to, me_); }
  void fill(PushLine* l, coll::push::Kind kind, const void* data, std::size_t bytes) noexcept {
    if (bytes) std::memcpy(l->data, data, bytes);
    std::atomic_ref<std::uint64_t>(l->head).store(head(kind), std::memory_order_release);
  }
  const char* await(int from, coll::push::Kind kind) noexcept {
    PushLine& l = line(me_, from);
    std::atomic_ref<std::uint64_t> h(l.head);
    std::uint64_t got = 0;
    wait_word(t_->rt(), "a team member's data pushed into this PE's lines", &l.head, [&] {
      got = h.load(std::memory_order_acquire);
      return (got & kCallMask) == (call_ & kCallMask);
    });
    if (got != head(kind))
      core::fatal(coll::push::kind_name(coll::push::full(kind)),
                  "team PE %d called %s while this PE (team PE %d) is in %s: the members of a team must make the "
                  "same collective calls in the same order",
                  from, coll::push::kind_name(static_cast<long>(got >> 56)), me_,
                  coll::push::kind_name(coll::push::full(kind)));
    return reinterpret_cast<const char*>(l.data);
  }
  void release(int, std::size_t) noexcept {}

 private:
  static constexpr std::uint64_t kCallMask = (std::uint64_t{1} << 56) - 1;
  Team* t_;
  std::uint64_t call_;
  int n_, me_;

  std::uint64_t head(coll::push::Kind kind) const noexcept {
    return (call_ & kCallMask) | static_cast<std::uint64_t>(kind) << 56;
  }
  PushLine& line(int owner, int from) const noexcept {
    return t_->rt().team_push(t_->world_pe(owner)).lines[t_->slot()][call_ & 1][coll::push::slot_index(owner, from, n_)];
  }
};

bool valid(Team* t, const char* func) {
  if (!t) {
    SHMEM_ERROR("coll", "%s: the team is SHMEM_TEAM_INVALID", func);
    return false;
  }
  return true;
}

}  // namespace

namespace core {

int broadcast(Team* team, void* dest, const void* source, std::size_t bytes, int root) noexcept {
  if (!valid(team, "shmem_broadcast")) return 1;
  if (root < 0 || root >= team->size()) {
    core::fatal("shmem_broadcast", "PE_root %d is not a PE of the team (0..%d)", root, team->size() - 1);
  }
  if (team->spans_hosts()) return xhost_team::broadcast(*team, dest, source, bytes, root), 0;
  TeamGroup g{team};
  coll::broadcast(g, dest, source, bytes, root, true);
  return 0;
}

int collect(Team* team, void* dest, const void* source, std::size_t bytes) noexcept {
  if (!valid(team, "shmem_collect")) return 1;
  if (team->spans_hosts()) return xhost_team::collect(*team, dest, source, bytes), 0;
  TeamGroup g{team};
  coll::collect(g, dest, source, bytes);
  return 0;
}

int fcollect(Team* team, void* dest, const void* source, std::size_t bytes) noexcept {
  if (!valid(team, "shmem_fcollect")) return 1;
  if (team->spans_hosts()) return xhost_team::fcollect(*team, dest, source, bytes), 0;
  if (TeamLines::fits(*team, bytes)) {
    TeamLines lines(team);
    coll::push::gather(lines, coll::push::Kind::kFcollect, dest, source, bytes, 0);
    return 0;
  }
  TeamGroup g{team};
  coll::fcollect(g, dest, source, bytes);
  return 0;
}

int alltoall(Team* team, void* dest, const void* source, std::size_t bytes) noexcept {
  if (!valid(team, "shmem_alltoall")) return 1;
  if (team->spans_hosts()) return xhost_team::alltoall(*team, dest, source, bytes), 0;
  if (TeamLines::fits(*team, bytes)) {
    TeamLines lines(team);
    coll::push::gather(lines, coll::push::Kind::kAlltoall, dest, source, bytes, bytes);
    return 0;
  }
  TeamGroup g{team};
  coll::alltoall(g, dest, source, bytes);
  return 0;
}

int alltoalls(Team* team, void* dest, const void* source, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t nelems,
              std::size_t elem) noexcept {
  if (!valid(team, "shmem_alltoalls")) return 1;
  if (team->spans_hosts()) return xhost_team::alltoalls(*team, dest, source, dst, sst, nelems, elem), 0;
  TeamGroup g{team};
  coll::alltoalls(g, dest, source, dst, sst, nelems, elem);
  return 0;
}

int reduce(Team* team, void* dest, const void* source, std::size_t nelems, std::size_t elem, Combine combine) noexcept {
  if (!valid(team, "shmem_reduce")) return 1;
  if (team->spans_hosts()) return xhost_team::reduce(*team, dest, source, nelems, elem, combine), 0;
  if (TeamLines::fits(*team, nelems * elem)) {
    TeamLines lines(team);
    coll::push::reduce(lines, dest, source, nelems, elem, combine);
    return 0;
  }
  TeamGroup g{team};
  coll::reduce(g, dest, source, nelems, elem, combine);
  return 0;
}

int scan(Team* team, void* dest, const void* source, std::size_t nelems, std::size_t elem, Combine combine,
         bool exclusive) noexcept {
  if (!valid(team, "shmem_scan")) return 1;
  if (team->spans_hosts()) return xhost_team::scan(*team, dest, source, nelems, elem, combine, exclusive), 0;
  TeamGroup g{team};
  coll::scan(g, dest, source, nelems, elem, combine, exclusive);
  return 0;
}

}  // namespace core
}  // namespace shmem
