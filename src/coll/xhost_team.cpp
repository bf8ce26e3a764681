// Team-based collectives on teams that span hosts: the hierarchical algorithms of
// hier.hpp over a Team, whose leaders talk through the channel in the team slot's
// cross-host area (core/xhost_area.hpp), keyed by the team's host index.
#include "coll/xhost_team.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>

#include "coll/hier.hpp"
#include "core/sync_wait.hpp"
#include "core/team.hpp"

namespace shmem::xhost_team {
namespace {

class TeamChan {
 public:
  explicit TeamChan(Team& t) noexcept
      : t_(t), base_(t.rt().x_slot_off(t.slot())), hosts_(t.layout().hosts()), ring_(t.x_map().ring) {}
  int my_key() const noexcept { return t_.layout().my_host; }
  std::size_t ring_bytes() const noexcept { return ring_; }
  std::size_t seq_off(int key) const noexcept { return base_ + t_.x_map().seq + 8 * static_cast<std::size_t>(key); }
  std::size_t ack_off(int key) const noexcept { return base_ + t_.x_map().ack + 8 * static_cast<std::size_t>(key); }
  std::size_t ring_off(int receiver, int sender) const noexcept {
    const auto rel = static_cast<std::size_t>(((sender - receiver - 1) % hosts_ + hosts_) % hosts_);
    return base_ + t_.x_map().header + rel * ring_;
  }
  XPair& pair(int key) noexcept { return t_.x_pairs()[static_cast<std::size_t>(key)]; }

 private:
  Team& t_;
  std::size_t base_;
  int hosts_;
  std::size_t ring_;
};

struct Group {
  Team& t;
  const char* func;
  TeamChan ch{t};
  Runtime& rt() const noexcept { return t.rt(); }
  int size() const noexcept { return t.size(); }
  int me() const noexcept { return t.my_pe(); }
  int world(int i) const noexcept { return t.world_pe(i); }
  const HostLayout& layout() const noexcept { return t.layout(); }
  void node_sync() noexcept { t.node_sync(); }
  void leader_sync() noexcept { t.leader_sync(); }
  TeamChan& chan() noexcept { return ch; }
  int key(int host) const noexcept { return host; }
  const char* name() const noexcept { return func; }
  std::uint64_t* word(int i, int k) const noexcept { return &t.cell(i).scratch[k]; }
  // Member i's copy of a symmetric address (members on this host).
  char* at(const void* sym, int i) const noexcept { return coll::hier::member_at(t.rt(), sym, t.world_pe(i), func); }
  void push_signal(int m) noexcept {
    std::atomic_ref<std::uint64_t>(*t.x_push_word(m, t.layout().my_local)).fetch_add(1, std::memory_order_release);
  }
  void push_wait(int pusher) noexcept {
    const std::vector<int>& local = t.layout().mine();
    const auto j = std::find(local.begin(), local.end(), pusher) - local.begin();
    const std::uint64_t want = ++t.x_push_seen()[static_cast<std::size_t>(j)];
    std::uint64_t* w = t.x_push_word(t.my_pe(), static_cast<int>(j));
    std::atomic_ref<std::uint64_t> count(*w);
    wait_word(t.rt(), "the broadcast's data from a member of this host", w,
              [&] { return count.load(std::memory_order_acquire) >= want; });
  }
};

}  // namespace

void broadcast(Team& t, void* dest, const void* source, std::size_t bytes, int root) {
  Group g{t, "shmem_broadcast"};
  coll::hier::broadcast(g, dest, source, bytes, root, true);
}

void collect(Team& t, void* dest, const void* source, std::size_t bytes) {
  Group g{t, "shmem_collect"};
  coll::hier::collect(g, dest, source, bytes);
}

void fcollect(Team& t, void* dest, const void* source, std::size_t bytes) {
  Group g{t, "shmem_fcollect"};
  coll::hier::fcollect(g, dest, source, bytes);
}

void alltoall(Team& t, void* dest, const void* source, std::size_t bytes) {
  Group g{t, "shmem_alltoall"};
  coll::hier::alltoall(g, dest, source, bytes);
}

void alltoalls(Team& t, void* dest, const void* source, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t nelems,
               std::size_t elem) {
  Group g{t, "shmem_alltoalls"};
  coll::hier::alltoalls(g, dest, source, dst, sst, nelems, elem);
}

void reduce(Team& t, void* dest, const void* source, std::size_t nelems, std::size_t elem, core::Combine combine) {
  Group g{t, "shmem_reduce"};
  coll::hier::reduce(g, dest, source, nelems, elem, combine);
}

void scan(Team& t, void* dest, const void* source, std::size_t nelems, std::size_t elem, core::Combine combine,
          bool exclusive) {
  Group g{t, exclusive ? "shmem_exscan" : "shmem_inscan"};
  coll::hier::scan(g, dest, source, nelems, elem, combine, exclusive);
}

}  // namespace shmem::xhost_team
