// Legacy active-set collectives on sets that span hosts: the hierarchical algorithms of
// hier.hpp. Active sets have no team slot, so their leaders talk through the runtime's
// active-set channel (core/xhost_area.hpp), keyed by world PE: both ends of a pair count the bytes
// between them, whichever sets they were for, which stays consistent because the members of
// overlapping sets call their collectives in the same order (the specification's rule).
// collect's sizes pass through pSync[2..3], pushed broadcasts count in pSync[4]; the barriers use the caller's pSync: [16..31] for this host's members, [32..47] for the host
// leaders (counting flags, back at SHMEM_SYNC_VALUE once everyone is through).
#include "coll/xhost_set.hpp"

#include "coll/hier.hpp"
#include "core/sync_wait.hpp"
#include "core/set_layouts.hpp"

namespace shmem::xhost_set {
namespace {

constexpr std::size_t kPushWord = 4, kNodeRounds = 16, kLeaderRounds = 32;
// Dissemination rounds the pSync holds for each barrier: hosts and PEs per host up to 65536.
constexpr int kSetRounds = 16;
static_assert(kNodeRounds + kSetRounds <= kLeaderRounds && kLeaderRounds + kSetRounds <= core::kSyncSize);

class SetChan {
 public:
  explicit SetChan(Runtime& rt) noexcept
      : rt_(rt), base_(rt.x_set_off()), n_(static_cast<std::size_t>(rt.n_pes())) {}
  int my_key() const noexcept { return rt_.my_pe(); }
  std::size_t ring_bytes() const noexcept { return x_set_ring_bytes(static_cast<int>(n_)); }
  std::size_t seq_off(int key) const noexcept { return base_ + 8 * static_cast<std::size_t>(key); }
  std::size_t ack_off(int key) const noexcept { return base_ + 8 * (n_ + static_cast<std::size_t>(key)); }
  std::size_t ring_off(int, int sender) const noexcept {
    return base_ + x_set_header_bytes(static_cast<int>(n_)) + static_cast<std::size_t>(sender) * ring_bytes();
  }
  XPair& pair(int key) noexcept { return rt_.x_set_pairs()[static_cast<std::size_t>(key)]; }

 private:
  Runtime& rt_;
  std::size_t base_, n_;
};

struct Group {
  Runtime& r;
  const core::ActiveSet& set;
  const char* func;
  int self;  // this PE's index in the set
  std::shared_ptr<const SetLayout> held;  // computed once per set (core/set_layouts.hpp)
  const std::vector<int>& worlds;
  const HostLayout& l;
  SetChan ch{r};

  Group(Runtime& rt, const core::ActiveSet& s, int me, const char* f)
      : r(rt), set(s), func(f), self(me), held(rt.set_layouts().get(rt, s.start, s.log_stride, s.size, me)),
        worlds(held->worlds), l(held->layout) {
    if (l.hosts() > (1 << kSetRounds) || l.mine().size() > (1u << kSetRounds))
      core::fatal(func,
                  "an active set spanning %d hosts with %zu PEs on this host: this version supports up to %d of "
                  "each",
                  l.hosts(), l.mine().size(), 1 << kSetRounds);
    // The other hosts' leaders write into our active-set channel; each waits (once) until
    // we have registered it, which we do on entering the first such collective we lead.
    if (l.is_leader()) r.remote()->expose_lazy();
  }
  Runtime& rt() const noexcept { return r; }
  int size() const noexcept { return set.size; }
  int me() const noexcept { return self; }
  int world(int i) const noexcept { return worlds[static_cast<std::size_t>(i)]; }
  const HostLayout& layout() const noexcept { return l; }
  SetChan& chan() noexcept { return ch; }
  int key(int host) const noexcept { return world(l.leader(host)); }
  const char* name() const noexcept { return func; }
  char* at(const void* sym, int i) const noexcept { return coll::hier::member_at(r, sym, world(i), func); }
  // pSync[2] and [3] of member i (it is zero again once collect returns).
  std::uint64_t* word(int i, int k) const noexcept {
    return reinterpret_cast<std::uint64_t*>(reinterpret_cast<long*>(at(set.psync, i)) + 2 + k);
  }
  // Pushed broadcasts: pSync[4] counts the copies written into this PE (one per call: a pSync
  // is reused only once every call on it is complete everywhere), back at SHMEM_SYNC_VALUE
  // once this PE has seen its copy.
  void push_signal(int m) noexcept {
    std::atomic_ref<long>(reinterpret_cast<long*>(at(set.psync, m))[kPushWord]).fetch_add(1, std::memory_order_release);
  }
  void push_wait(int) noexcept {
    long* w = set.psync + kPushWord;
    std::atomic_ref<long> count(*w);
    wait_word(r, "the broadcast's data from a member of this host (pSync[4])", w,
              [&] { return count.load(std::memory_order_acquire) > core::kSyncValue; });
    count.fetch_sub(1, std::memory_order_relaxed);
  }
  void node_sync() noexcept {
    const std::vector<int>& local = l.mine();
    dissemination<long>(r, static_cast<int>(local.size()), l.my_local, [&](int i, int round) {
      return reinterpret_cast<long*>(at(set.psync, local[static_cast<std::size_t>(i)])) + kNodeRounds + round;
    });
  }
  void leader_sync() noexcept {
    transport::Seg seg = transport::Seg::kHeap;
    std::uint64_t off = 0;
    if (!r.symmetric_offset(set.psync, &seg, &off)) core::fatal(func, "pSync is not symmetric");
    dissemination<long>(
        r, l.hosts(), l.my_host, [&](int, int round) { return set.psync + kLeaderRounds + round; },
        [&](int h, int round) {
          r.remote()->signal_add(world(l.leader(h)), seg,
                                 off + sizeof(long) * (kLeaderRounds + static_cast<std::size_t>(round)), 1, func);
        });
  }
};

}  // namespace

void barrier(Runtime& rt, const core::ActiveSet& set, int me, bool quiet_first) {
  Group g(rt, set, me, quiet_first ? "shmem_barrier" : "shmem_sync");
  coll::hier::sync(g);
}

void broadcast(Runtime& rt, const core::ActiveSet& set, int me, void* dest, const void* source, std::size_t bytes,
               int root) {
  Group g(rt, set, me, "shmem_broadcast");
  coll::hier::broadcast(g, dest, source, bytes, root, false);
}

void collect(Runtime& rt, const core::ActiveSet& set, int me, void* dest, const void* source, std::size_t bytes) {
  Group g(rt, set, me, "shmem_collect");
  coll::hier::collect(g, dest, source, bytes);
}

void fcollect(Runtime& rt, const core::ActiveSet& set, int me, void* dest, const void* source, std::size_t bytes) {
  Group g(rt, set, me, "shmem_fcollect");
  coll::hier::fcollect(g, dest, source, bytes);
}

void alltoall(Runtime& rt, const core::ActiveSet& set, int me, void* dest, const void* source, std::size_t bytes) {
  Group g(rt, set, me, "shmem_alltoall");
  coll::hier::alltoall(g, dest, source, bytes);
}

void alltoalls(Runtime& rt, const core::ActiveSet& set, int me, void* dest, const void* source, std::ptrdiff_t dst,
               std::ptrdiff_t sst, std::size_t nelems, std::size_t elem) {
  Group g(rt, set, me, "shmem_alltoalls");
  coll::hier::alltoalls(g, dest, source, dst, sst, nelems, elem);
}

void reduce(Runtime& rt, const core::ActiveSet& set, int me, void* dest, const void* source, std::size_t nelems,
            std::size_t elem, core::Combine combine) {
  Group g(rt, set, me, "shmem_to_all");
  coll::hier::reduce(g, dest, source, nelems, elem, combine);
}

}  // namespace shmem::xhost_set
