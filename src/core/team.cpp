// Teams: membership, slots, and the team barrier.
//
// When every PE of the node has a CPU, the barrier is a dissemination barrier on counting flags
// in the members' team cells (sync_wait.hpp): log2(n) one-way hand-offs, each waited for by
// spinning briefly, then yielding. When PEs outnumber CPUs it is the central barrier below,
// whose sleepers the last arriver wakes all at once.
//
// The central barrier is a counter and a generation word in the team's PE 0 cell. Arrivals fetch-add
// the counter; the last one resets it and bumps the generation. Waiters spin briefly, then
// sleep on the generation word with a futex (shared mapping: the kernel keys it by the memfd
// page, so processes that map it at different addresses meet), and the releaser makes the
// wake system call only when someone sleeps.
#include "core/team.hpp"
#include "core/coll_check.hpp"
#include "core/ops.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstddef>
#include <cstring>
#include <ctime>

#include "core/sync_wait.hpp"
#include "base/log.hpp"

namespace shmem {
namespace {

long futex(std::uint32_t* addr, int op, std::uint32_t val, const timespec* ts) {
  return syscall(SYS_futex, addr, op, val, ts, nullptr, 0);
}

}  // namespace

Team::Team(Runtime& rt, int slot, std::vector<int> world_pes, bool predefined, const char* routine)
    : rt_(&rt), slot_(slot), world_(std::move(world_pes)), predefined_(predefined), seen_ack_(world_.size(), 0) {
  me_ = index_of(rt.my_pe());
  for (int pe : world_) spans_hosts_ = spans_hosts_ || !rt.is_local(pe);
  if (!spans_hosts_ || me_ < 0) return;
  layout_ = HostLayout::make(rt, world_, me_);
  std::size_t max_local = 0;
  for (const auto& m : layout_.members) max_local = std::max(max_local, m.size());
  x_map_ = x_slot_map(layout_.hosts(), static_cast<int>(max_local), rt.x_slot_bytes(slot));
  if (!x_map_.fits())
    core::fatal(routine,
                "a team of %d PEs spanning %d hosts (up to %zu PEs on one) does not fit its cross-host "
                "area: a team slot of this %d-PE job holds %zu bytes, which leaves %zu bytes per ring for each "
                "of the %d other hosts (at least %zu needed; slots are sized for up to %d hosts): run the job "
                "on fewer hosts",
                size(), layout_.hosts(), max_local, rt.n_pes(), rt.x_slot_bytes(slot), x_map_.ring, layout_.hosts() - 1,
                kXMinRingBytes, kXMaxHosts);
  x_pairs_.assign(static_cast<std::size_t>(layout_.hosts()), XPair{});
  // The other hosts' leaders write into this slot of ours: before any of them can (every
  // member constructs the team before the creating collective ends).
  if (layout_.is_leader()) rt.remote()->expose_lazy();
  x_push_seen_.assign(max_local, 0);
}

// A word of the slot's cross-host area (core/xhost_area.hpp) of member team_pe, as mapped here (a
// member on this host), or of this PE.
std::uint64_t* Team::x_word(int team_pe, std::size_t off_in_slot) const noexcept {
  return reinterpret_cast<std::uint64_t*>(rt_->heap_at(world_pe(team_pe), rt_->x_slot_off(slot_) + off_in_slot));
}

void Team::node_sync() noexcept {
  const std::vector<int>& local = layout_.mine();
  dissemination<std::uint64_t>(*rt_, static_cast<int>(local.size()), layout_.my_local, [&](int i, int r) {
    return x_word(local[static_cast<std::size_t>(i)], x_map_.node_rounds + sizeof(std::uint64_t) * r);
  });
}

// Dissemination over the host leaders: each round's flag raised with one remote atomic.
void Team::leader_sync() noexcept {
  dissemination<std::uint64_t>(
      *rt_, layout_.hosts(), layout_.my_host,
      [&](int, int r) { return x_word(me_, x_map_.leader_rounds + sizeof(std::uint64_t) * r); },
      [&](int h, int r) {
        rt_->remote()->signal_add(world_pe(layout_.leader(h)), transport::Seg::kHeap,
                                  rt_->x_slot_off(slot_) + x_map_.leader_rounds + sizeof(std::uint64_t) * r, 1,
                                  "team barrier");
      });
}

void Team::load_words(int team_pe, const std::uint64_t* words_here, int n, std::uint64_t* out) noexcept {
  const int pe = world_pe(team_pe);
  if (rt_->is_local(pe)) {
    const auto* w = reinterpret_cast<const std::uint64_t*>(rt_->translate(words_here, pe));
    for (int k = 0; k < n; ++k) out[k] = std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t&>(w[k])).load(std::memory_order_relaxed);
    return;
  }
  transport::Seg seg = transport::Seg::kHeap;
  std::uint64_t off = 0;
  rt_->symmetric_offset(words_here, &seg, &off);
  rt_->remote()->get(pe, seg, off, out, sizeof(std::uint64_t) * static_cast<std::size_t>(n), false, "team allgather");
}

int Team::index_of(int world_pe) const noexcept {
  auto it = std::find(world_.begin(), world_.end(), world_pe);
  return it == world_.end() ? -1 : static_cast<int>(it - world_.begin());
}

void Team::sync() noexcept {
  const int n = size();
  if (n == 1) return;
  if (spans_hosts_) {  // hierarchical: this host's members, the host leaders, this host again
    node_sync();
    if (layout_.is_leader()) leader_sync();
    node_sync();
    return;
  }
  if (!rt_->wait_policy().oversubscribed && n <= (1 << kSyncRounds)) {
    dissemination<std::uint64_t>(*rt_, n, me_, [this](int pe, int r) { return &cell(pe).rounds[r]; });
    return;
  }
  central_sync();
}

void Team::central_sync() noexcept {
  const int n = size();
  TeamCell& root = cell(0);
  std::atomic_ref<std::uint32_t> count(root.count);
  std::atomic_ref<std::uint32_t> gen(root.gen);
  std::atomic_ref<std::uint32_t> sleepers(root.sleepers);
  const std::uint32_t my_gen = gen.load(std::memory_order_acquire);
  if (count.fetch_add(1, std::memory_order_acq_rel) + 1 == static_cast<std::uint32_t>(n)) {
    count.store(0, std::memory_order_relaxed);
    gen.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers.load(std::memory_order_seq_cst) != 0) futex(&root.gen, FUTEX_WAKE, INT_MAX, nullptr);
    return;
  }
  auto done = [&] { return gen.load(std::memory_order_acquire) != my_gen; };
  const WaitPolicy& pol = rt_->wait_policy();
  if (done() || spin_for(pol, done)) return;  // the adaptive spin of every wait (wait.hpp)
  const auto start = std::chrono::steady_clock::now();
  // Yield first: with more PEs than CPUs the member we wait for is often runnable on this CPU,
  // and handing it the CPU is much quicker than a futex sleep and wake-up.
  while (!done() && std::chrono::steady_clock::now() - start < std::chrono::milliseconds(2)) sched_yield();
  pol.board.asleep();  // queued behind nobody while on the futex (core/wait_board.hpp)
  while (!done()) {
    sleepers.fetch_add(1, std::memory_order_seq_cst);
    timespec ts{0, 200 * 1000 * 1000};  // wake up now and then for the watchdog
    if (gen.load(std::memory_order_seq_cst) == my_gen) futex(&root.gen, FUTEX_WAIT, my_gen, &ts);
    sleepers.fetch_sub(1, std::memory_order_seq_cst);
    after_sleep(pol, start);
    if (pol.timeout_s > 0 && !done()) {
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (waited > pol.timeout_s) {
        if (pol.timed_out != nullptr) pol.timed_out(pol.timed_out_arg);
        log::write(log::Level::kFatal, "wait",
                   "barrier timed out after %.1f s (SHMEM_WAIT_TIMEOUT=%g): PE %d (team PE %d of %d, slot %d) "
                   "waited on the barrier word at %s of world PE %d for generation != %u; last seen generation "
                   "%u with %u of %d PEs arrived",
                   waited, pol.timeout_s, rt_->my_pe(), me_, n, slot_, rt_->describe(&my_cell().gen).c_str(),
                   world_pe(0), my_gen, gen.load(), count.load(), n);
        rt_->abort_job(1);
      }
    }
  }
  sleeps_done(pol, start);
}

void Team::allgather_words(const std::uint64_t* mine, int words, std::uint64_t* out) noexcept {
  TeamCell& c = my_cell();
  for (int k = 0; k < words; ++k) std::atomic_ref<std::uint64_t>(c.scratch[k]).store(mine[k], std::memory_order_relaxed);
  sync();
  for (int pe = 0; pe < size(); ++pe) {
    if (spans_hosts_) {
      load_words(pe, c.scratch, words, out + pe * words);
      continue;
    }
    TeamCell& p = cell(pe);
    for (int k = 0; k < words; ++k)
      out[pe * words + k] = std::atomic_ref<std::uint64_t>(p.scratch[k]).load(std::memory_order_relaxed);
  }
  sync();  // nobody overwrites its scratch before everyone has read it
}

bool Team::all_equal(std::uint64_t word) noexcept {
  // All equal iff the AND is the word and the AND of the complements (the complement of the
  // OR) is its complement.
  const std::uint64_t mine[2] = {word, ~word};
  std::uint64_t all[2];
  and_words(mine, 2, all);
  return all[0] == word && all[1] == ~word;
}

void Team::and_words(const std::uint64_t* mine, int words, std::uint64_t* out) noexcept {
  if (!spans_hosts_) {  // one host: every member reads every cell through the mapping
    std::vector<std::uint64_t> all(static_cast<std::size_t>(size()) * static_cast<std::size_t>(words));
    allgather_words(mine, words, all.data());
    for (int k = 0; k < words; ++k) out[k] = ~std::uint64_t{0};
    for (int pe = 0; pe < size(); ++pe)
      for (int k = 0; k < words; ++k) out[k] &= all[static_cast<std::size_t>(pe * words + k)];
    return;
  }
  // Scratch words [0, w): this member's value; [w, 2w): a leader's AND over its host;
  // [2w, 3w): a leader's AND over every host, which its host's members then read.
  TeamCell& c = my_cell();
  auto word = [&](int k) { return std::atomic_ref<std::uint64_t>(c.scratch[k]); };
  std::uint64_t acc[kScratchWords / 3];
  std::uint64_t got[kScratchWords / 3];
  for (int k = 0; k < words; ++k) word(k).store(mine[k], std::memory_order_relaxed);
  sync();
  if (layout_.is_leader()) {
    std::copy_n(mine, words, acc);
    for (int m : layout_.mine()) {
      if (m == me_) continue;
      load_words(m, c.scratch, words, got);
      for (int k = 0; k < words; ++k) acc[k] &= got[k];
    }
    for (int k = 0; k < words; ++k) word(words + k).store(acc[k], std::memory_order_relaxed);
  }
  sync();
  if (layout_.is_leader()) {
    for (int h = 0; h < layout_.hosts(); ++h) {
      if (h == layout_.my_host) continue;
      load_words(layout_.leader(h), c.scratch + words, words, got);
      for (int k = 0; k < words; ++k) acc[k] &= got[k];
    }
    for (int k = 0; k < words; ++k) word(2 * words + k).store(acc[k], std::memory_order_relaxed);
  }
  sync();
  if (!layout_.is_leader()) load_words(layout_.leader(layout_.my_host), c.scratch + 2 * words, words, acc);
  std::copy_n(acc, words, out);
  sync();  // nobody overwrites its scratch before everyone has read it
}

void Team::clear_my_cell() noexcept {
  TeamCell& c = my_cell();
  for (auto& w : c.bcast_flag) std::atomic_ref<std::uint64_t>(w).store(0, std::memory_order_relaxed);
  for (auto& w : c.rounds) std::atomic_ref<std::uint64_t>(w).store(0, std::memory_order_relaxed);
  if (slot_ < kPushTeams)
    for (auto& parity : rt_->team_push(rt_->my_pe()).lines[slot_])
      for (auto& line : parity) std::atomic_ref<std::uint64_t>(line.head).store(0, std::memory_order_relaxed);
  std::atomic_ref<std::uint64_t>(c.bcast_ack).store(0, std::memory_order_release);
  // The slot's cross-host counters (the last remote adds completed before team_destroy's sync).
  if (spans_hosts_) std::memset(x_word(me_, 0), 0, x_map_.header);
  coll_check::forget_slot(*rt_, slot_);
}

TeamSlots::TeamSlots() {
  for (auto& w : free_) w = ~0ull;
}
void TeamSlots::take(int slot) noexcept { free_[slot / 64] &= ~(1ull << (slot % 64)); }
void TeamSlots::release(int slot) noexcept { free_[slot / 64] |= 1ull << (slot % 64); }

void Runtime::barrier() noexcept { world_team_->sync(); }

// Handles: the slot in the low 8 bits, above them how many teams the slot has held on this PE
// (from 1: no handle is 0, SHMEM_TEAM_INVALID, or one of the predefined teams' 1 and 2).
static_assert(kMaxTeams <= 256, "a team handle keeps the slot in 8 bits");

Team* Runtime::add_team(std::unique_ptr<Team> t) {
  Team* added = nullptr;
  {
    std::lock_guard<std::mutex> g(teams_mu_);
    const auto slot = static_cast<std::size_t>(t->slot());
    t->set_handle(static_cast<std::uintptr_t>(++slot_uses_[slot]) << 8 | slot);
    teams_.push_back(std::move(t));
    added = teams_.back().get();
    team_at_[slot].store(added, std::memory_order_release);
  }
  if (gpu_) gpu_team(*added, true);  // kernels may name it (the device team table)
  return added;
}

Team* Runtime::team_in_slot(int slot) noexcept {
  return slot >= 0 && static_cast<std::size_t>(slot) < team_at_.size()
             ? team_at_[static_cast<std::size_t>(slot)].load(std::memory_order_acquire)
             : nullptr;
}

Ctx* Runtime::add_ctx(std::unique_ptr<Ctx> c) {
  std::lock_guard<std::mutex> g(ctxs_mu_);
  ctxs_.push_back(std::move(c));
  return ctxs_.back().get();
}

bool Runtime::remove_ctx(Ctx* c) noexcept {
  std::unique_ptr<Ctx> gone;  // destroyed outside the lock, after its quiet
  {
    std::lock_guard<std::mutex> g(ctxs_mu_);
    const auto it =
        std::find_if(ctxs_.begin(), ctxs_.end(), [c](const std::unique_ptr<Ctx>& p) { return p.get() == c; });
    if (it == ctxs_.end()) return false;
    gone = std::move(*it);
    ctxs_.erase(it);
  }
  core::quiet(gone.get());
  return true;
}

int Runtime::remove_team_ctxs(const Team* t) noexcept {
  std::lock_guard<std::mutex> g(ctxs_mu_);
  const auto gone =
      std::stable_partition(ctxs_.begin(), ctxs_.end(), [t](const std::unique_ptr<Ctx>& c) { return c->team != t; });
  int private_ones = 0;
  for (auto it = gone; it != ctxs_.end(); ++it) {
    core::quiet(it->get());
    if ((*it)->options & core::kCtxPrivate) ++private_ones;
  }
  ctxs_.erase(gone, ctxs_.end());
  return private_ones;
}

Team* Runtime::team_by_handle(std::uintptr_t handle) noexcept {
  Team* t = team_in_slot(static_cast<int>(handle & 0xff));
  return t != nullptr && t->handle() == handle ? t : nullptr;
}

void Runtime::remove_team(Team* t) noexcept {
  if (gpu_) gpu_team(*t, false);
  std::lock_guard<std::mutex> g(teams_mu_);
  team_at_[static_cast<std::size_t>(t->slot())].store(nullptr, std::memory_order_release);
  slots_->release(t->slot());
  std::erase_if(teams_, [t](const std::unique_ptr<Team>& p) { return p.get() == t; });
}

}  // namespace shmem
