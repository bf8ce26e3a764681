// Legacy active-set collectives: the same algorithms over (PE_start, logPE_stride, PE_size)
// synchronised through the caller's pSync array, which is left at SHMEM_SYNC_VALUE on return.
//
// pSync use: [0] on the set's first PE counts arrivals; [1] on every PE is its release flag;
// [2] on every PE publishes a value (collect sizes); [3] on every PE counts the deliveries of
// pushed broadcasts; [4..7] on every PE are the counting round flags of the dissemination
// barrier that replaces [0]/[1] for sets of up to 16 PEs when PEs do not outnumber CPUs
// (core/sync_wait.hpp); the rest holds the slots of pushed small fcollects, alltoalls and
// reductions for sets of up to 8 PEs (push.hpp). Broadcasts of up to 8 bytes, and
// fcollects, alltoalls and reductions of up to 8 bytes per member pair, use the runtime's rings
// instead when they can (ring.hpp), and leave pSync alone. The last arriver resets the
// counter before releasing anyone, and each PE clears its own flag once released, so
// consecutive calls with the same pSync need no re-initialisation.
#include <atomic>

#include "core/access.hpp"
#include "coll/algos.hpp"
#include "coll/ops.hpp"
#include "coll/push.hpp"
#include "coll/ring.hpp"
#include "coll/xhost_set.hpp"
#include "base/log.hpp"

namespace shmem {
namespace {

constexpr int kDissRounds = 4;  // pSync[4..7]: dissemination rounds for sets of up to 16 PEs

struct SetGroup {
  Runtime* r;
  core::ActiveSet set;
  int my_index;
  bool spans = false;  // some member is on another host: coll/xhost_set.cpp runs the call

  Runtime& rt() const noexcept { return *r; }
  int size() const noexcept { return set.size; }
  int me() const noexcept { return my_index; }
  int world(int i) const noexcept { return set.start + (i << set.log_stride); }
  long* psync_at(int i) const noexcept {
    return reinterpret_cast<long*>(
        detail::local_target(*r, set.psync, sizeof(long), world(i), "an active-set collective (pSync)"));
  }
  long* local() const noexcept { return set.psync; }

  void sync() noexcept {
    if (set.size == 1) return;
    if (!r->wait_policy().oversubscribed && set.size <= (1 << kDissRounds)) {
      dissemination<long>(*r, set.size, my_index, [this](int pe, int round) { return &psync_at(pe)[4 + round]; });
      return;
    }
    std::atomic_ref<long> count(*psync_at(0));
    if (count.fetch_add(1, std::memory_order_acq_rel) + 1 == set.size) {
      count.store(core::kSyncValue, std::memory_order_relaxed);
      for (int i = 0; i < set.size; ++i) std::atomic_ref<long>(psync_at(i)[1]).store(1, std::memory_order_release);
    }
    std::atomic_ref<long> flag(set.psync[1]);
    wait_for(r->wait_policy(), [&] { return flag.load(std::memory_order_acquire) != 0; }, [&](double waited) {
      log::write(log::Level::kFatal, "wait",
                 "active-set barrier timed out after %.1f s (SHMEM_WAIT_TIMEOUT=%g): PE %d waited on pSync[1] at %s "
                 "for a nonzero value; last seen %ld, %ld of %d PEs arrived",
                 waited, r->wait_policy().timeout_s, r->my_pe(), r->describe(&set.psync[1]).c_str(), flag.load(),
                 std::atomic_ref<long>(*psync_at(0)).load(), set.size);
      r->abort_job(1);
    });
    flag.store(core::kSyncValue, std::memory_order_relaxed);
  }

  void allgather_word(std::uint64_t v, std::uint64_t* out) noexcept {
    std::atomic_ref<long>(set.psync[2]).store(static_cast<long>(v), std::memory_order_relaxed);
    sync();
    for (int i = 0; i < set.size; ++i)
      out[i] = static_cast<std::uint64_t>(std::atomic_ref<long>(psync_at(i)[2]).load(std::memory_order_relaxed));
    sync();
    std::atomic_ref<long>(set.psync[2]).store(core::kSyncValue, std::memory_order_relaxed);
  }

  // Pushed broadcasts: pSync[3] on each receiver counts deliveries; the root adds one after
  // writing the receiver's dest, the receiver takes one when it returns. The specification
  // lets a pSync be reused only once every collective that used it has completed everywhere,
  // so the root need not look first; and should a program reuse it early, a count (unlike a
  // flag) loses no delivery, so nothing hangs.
  std::uint64_t bcast_begin(int) noexcept { return 0; }
  void bcast_wait_ready(int, std::uint64_t) noexcept {}
  void bcast_signal(int pe, std::uint64_t) noexcept {
    std::atomic_ref<long>(psync_at(pe)[3]).fetch_add(1, std::memory_order_release);
  }
  void bcast_wait_signal(std::uint64_t) noexcept {
    std::atomic_ref<long> count(set.psync[3]);
    wait_word(*r, "the broadcast's root to deliver the data (pSync[3])", &set.psync[3],
              [&] { return count.load(std::memory_order_acquire) > 0; });
  }
  void bcast_done(std::uint64_t, bool root) noexcept {
    if (!root) std::atomic_ref<long>(set.psync[3]).fetch_sub(1, std::memory_order_relaxed);
  }
  void bcast_pulled(std::uint64_t) noexcept {}
};

// Whether a call of set g moving `bytes` per member pair goes through the rings (ring.hpp);
// `top_sender` is the highest member index that sends.
bool on_rings(const SetGroup& g, int top_sender, std::size_t bytes) noexcept {
  return g.set.size > 1 && g.set.size <= coll::push::kMaxMembers && coll::ring::usable(*g.r, g.world(top_sender), bytes);
}

// A pushed fcollect or alltoall (stride = block) of set g: through the rings, or the pSync
// slots.
void gather(SetGroup& g, coll::push::Kind kind, void* dest, const void* source, std::size_t block,
            std::size_t stride) noexcept {
  if (on_rings(g, g.set.size - 1, block)) {
    coll::ring::Channel<SetGroup> ch(g, kind, block);
    return coll::push::gather(ch, kind, dest, source, block, stride);
  }
  coll::push::SetSlots<SetGroup> slots(g);
  coll::push::gather(slots, kind, dest, source, block, stride);
}

SetGroup make_group(const core::ActiveSet& set, const char* func) {
  Runtime& r = core::rt(func);
  const int n = r.n_pes();
  if (set.size <= 0 || set.log_stride < 0 || set.log_stride > 30 || set.start < 0 ||
      set.start + (static_cast<long long>(set.size - 1) << set.log_stride) >= n)
    core::fatal(func, "the active set (PE_start=%d, logPE_stride=%d, PE_size=%d) does not fit in the %d PEs of the job",
                set.start, set.log_stride, set.size, n);
  const int off = r.my_pe() - set.start;
  const int idx = (off >= 0 && (off & ((1 << set.log_stride) - 1)) == 0) ? off >> set.log_stride : -1;
  if (idx < 0 || idx >= set.size)
    core::fatal(func, "PE %d is not in the active set (PE_start=%d, logPE_stride=%d, PE_size=%d)", r.my_pe(), set.start,
                set.log_stride, set.size);
  if (!set.psync) core::fatal(func, "pSync is NULL");
  SetGroup g{&r, set, idx};
  for (int k = 0; k < set.size && !g.spans; ++k) g.spans = !r.is_local(set.start + (k << set.log_stride));
  return g;
}

}  // namespace

namespace core {

void barrier(const ActiveSet& set) noexcept {
  SetGroup g = make_group(set, "shmem_barrier");
  if (g.spans) {
    quiet(g.r->default_ctx());
    return xhost_set::barrier(*g.r, set, g.my_index, true);
  }
  quiet(g.r->default_ctx());
  g.sync();
}

void sync(const ActiveSet& set) noexcept {
  SetGroup g = make_group(set, "shmem_sync");
  if (g.spans) return xhost_set::barrier(*g.r, set, g.my_index, false);
  g.sync();
}

void broadcast(const ActiveSet& set, void* dest, const void* source, std::size_t bytes, int root) noexcept {
  SetGroup g = make_group(set, "shmem_broadcast");
  if (root < 0 || root >= set.size)
    core::fatal("shmem_broadcast", "PE_root %d is not an index of the active set (0..%d)", root, set.size - 1);
  if (g.spans) return xhost_set::broadcast(*g.r, set, g.my_index, dest, source, bytes, root);
  if (on_rings(g, root, bytes)) {
    const std::uint64_t tag = coll::ring::tag(coll::ring::kBroadcast, set.start, set.log_stride, set.size, root, bytes);
    if (g.me() != root) {
      g.psync_at(root);  // fails clearly if the root is not on this host
      return coll::ring::receive(*g.r, g.world(root), tag, dest, bytes);
    }
    for (int k = 1; k < set.size; ++k) {
      const int pe = (root + k) % set.size;
      g.psync_at(pe);
      coll::ring::send(*g.r, g.world(pe), tag, source, bytes);
    }
    return;
  }
  coll::broadcast(g, dest, source, bytes, root, false);
}

void collect(const ActiveSet& set, void* dest, const void* source, std::size_t bytes) noexcept {
  SetGroup g = make_group(set, "shmem_collect");
  if (g.spans) return xhost_set::collect(*g.r, set, g.my_index, dest, source, bytes);
  coll::collect(g, dest, source, bytes);
}

void fcollect(const ActiveSet& set, void* dest, const void* source, std::size_t bytes) noexcept {
  SetGroup g = make_group(set, "shmem_fcollect");
  if (g.spans) return xhost_set::fcollect(*g.r, set, g.my_index, dest, source, bytes);
  if (coll::push::fits(set.size, bytes)) return gather(g, coll::push::Kind::kFcollect, dest, source, bytes, 0);
  coll::fcollect(g, dest, source, bytes);
}

void alltoall(const ActiveSet& set, void* dest, const void* source, std::size_t bytes) noexcept {
  SetGroup g = make_group(set, "shmem_alltoall");
  if (g.spans) return xhost_set::alltoall(*g.r, set, g.my_index, dest, source, bytes);
  if (coll::push::fits(set.size, bytes)) return gather(g, coll::push::Kind::kAlltoall, dest, source, bytes, bytes);
  coll::alltoall(g, dest, source, bytes);
}

void alltoalls(const ActiveSet& set, void* dest, const void* source, std::ptrdiff_t dst, std::ptrdiff_t sst,
               std::size_t nelems, std::size_t elem) noexcept {
  SetGroup g = make_group(set, "shmem_alltoalls");
  if (g.spans) return xhost_set::alltoalls(*g.r, set, g.my_index, dest, source, dst, sst, nelems, elem);
  coll::alltoalls(g, dest, source, dst, sst, nelems, elem);
}

void reduce(const ActiveSet& set, void* dest, const void* source, std::size_t nelems, std::size_t elem,
            Combine combine) noexcept {
  SetGroup g = make_group(set, "shmem_to_all");
  if (g.spans) return xhost_set::reduce(*g.r, set, g.my_index, dest, source, nelems, elem, combine);
  if (on_rings(g, set.size - 1, nelems * elem)) {
    coll::ring::Channel<SetGroup> ch(g, coll::push::Kind::kReduce, nelems * elem);
    return coll::push::reduce(ch, dest, source, nelems, elem, combine);
  }
  if (coll::push::fits(set.size, nelems * elem)) {
    coll::push::SetSlots<SetGroup> slots(g);
    return coll::push::reduce(slots, dest, source, nelems, elem, combine);
  }
  coll::reduce(g, dest, source, nelems, elem, combine);
}

}  // namespace core
}  // namespace shmem
