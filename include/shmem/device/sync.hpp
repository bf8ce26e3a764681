#pragma once
// In-kernel ordering, barriers and team queries.
//
// quiet(): every earlier put/AMO/signal of this thread is complete and visible (node-local ones
// are complete already; this is the fence that orders them; in a job with PEs on other hosts it
// also completes this PE's operations on them). fence(): orders this thread's earlier stores
// before its later ones (and, across hosts, its operations on each PE).
//
// Within a PE, block_sync(b) and grid_sync(b) (rma.hpp) make the threads of a block, or of a
// whole cooperative launch, wait for each other. Across PEs, barriers come in three scopes;
// exactly one "caller" per PE must enter each barrier:
//   barrier_all() / barrier(team)                 one thread per PE (as NVSHMEM's device barrier)
//   barrier_all_block(b) / barrier_block(b, team)  every thread of one block per PE
//   barrier_all_grid(b) / barrier_grid(b, team)    every thread of every block of a (cooperative)
//                                                  launch per PE: Ascend SHMEM's aclshmem_barrier_all
// The barrier counts arrivals in a cell of the device synchronisation area on the team's PE 0
// (one cell per team slot; see common.hpp), separate from the host's barrier words, so a
// device barrier never mixes with a host barrier. A team with members on several hosts counts
// its arrivals in the same cell through the library's remote atomics and releases every member
// in its own cell (stream/device_remote.cpp). Two device barriers on the same team must not run
// at the same time on one PE (two kernels on different streams, say). The sync_* forms are the
// same without the quiet.
#include "shmem/device/rma.hpp"

namespace shmem::device {

inline void fence() noexcept {
  detail::store_fence();
  if (const State* s = detail::progress_state()) [[unlikely]]
    shmemx_device_remote_order(s, 0);
}
inline void quiet() noexcept {
  detail::store_fence();
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (const State* s = detail::progress_state()) [[unlikely]]
    shmemx_device_remote_order(s, 1);
}

// ---- teams -------------------------------------------------------------------------------------
inline bool is_world(shmem_team_t team) noexcept { return team == SHMEM_TEAM_WORLD; }

inline int team_my_pe(shmem_team_t team) noexcept { return is_world(team) ? my_pe() : shmem_team_my_pe(team); }
inline int team_n_pes(shmem_team_t team) noexcept { return is_world(team) ? n_pes() : shmem_team_n_pes(team); }
inline int team_translate_pe(shmem_team_t src, int pe, shmem_team_t dst) noexcept {
  if (is_world(src) && is_world(dst)) return pe >= 0 && pe < n_pes() ? pe : -1;
  return shmem_team_translate_pe(src, pe, dst);
}

namespace detail {

// Centralised counter barrier on cell `slot` of PE `root`: the last of n arrivals resets the
// count and advances the generation that the others wait for. The generation is read before
// arriving, which is safe because it cannot advance until this caller has arrived.
inline void team_sync_on(const State& s, int slot, int root, int n) noexcept {
  if (n <= 1) return;
  SyncCell& c = sync_cell(s, root, slot);
  std::atomic_ref<std::uint64_t> gen(c.gen);
  std::atomic_ref<std::uint64_t> count(c.count);
  const std::uint64_t g = gen.load(std::memory_order_acquire);
  if (count.fetch_add(1, std::memory_order_acq_rel) == static_cast<std::uint64_t>(n - 1)) {
    count.store(0, std::memory_order_relaxed);
    gen.store(g + 1, std::memory_order_release);
    return;
  }
  Backoff backoff(s);
  while (gen.load(std::memory_order_acquire) == g) backoff.pause();
}

// A team with a member on another host (the same answer on every member: node-locality is an
// equivalence) synchronises through the library.
[[gnu::cold, gnu::noinline]] inline void far_team_sync(const char* func, const State& s, int slot, const int* world_pes,
                                                      int n) noexcept {
  if (shmemx_device_remote_sync(&s, slot, world_pes, n) != 0) fail(func, "team slot %d: nothing was done", slot);
}
inline bool spans_hosts(const State& s, const int* world_pes, int n) noexcept {
  if (!s.remote) return false;
  for (int i = 0; i < n; ++i)
    if (s.heap[world_pes[i]] == nullptr) return true;
  return false;
}

inline void team_sync(const char* func, shmem_team_t team) noexcept {
  const State& s = state();
  if (is_world(team)) {
    if (__builtin_expect(s.remote, 0)) return far_team_sync(func, s, 0, nullptr, s.n_pes);
    return team_sync_on(s, 0, 0, s.n_pes);
  }
  shmemx_team_view_t v;
  if (shmemx_team_view(team, &v) != 0) return fail(func, "invalid team; nothing was done");
  if (v.my_pe < 0) return fail(func, "this PE is not a member of the team; nothing was done");
  if (v.slot < 0 || v.slot >= kSyncSlots) return fail(func, "team slot %d has no device barrier cell", v.slot);
  if (spans_hosts(s, v.world_pes, v.n_pes)) return far_team_sync(func, s, v.slot, v.world_pes, v.n_pes);
  team_sync_on(s, v.slot, v.world_pes[0], v.n_pes);
}

}  // namespace detail

// ---- thread scope ----------------------------------------------------------------------------------
inline void sync(shmem_team_t team) noexcept { detail::team_sync("shmem::device::sync", team); }
inline void sync_all() noexcept { sync(SHMEM_TEAM_WORLD); }
inline void barrier(shmem_team_t team) noexcept {
  quiet();
  detail::team_sync("shmem::device::barrier", team);
}
inline void barrier_all() noexcept { barrier(SHMEM_TEAM_WORLD); }

// ---- block scope -------------------------------------------------------------------------------
inline void barrier_block(const Block& b, shmem_team_t team) noexcept {
  quiet();
  block_sync(b);
  if (b.thread_id == 0) detail::team_sync("shmem::device::barrier_block", team);
  block_sync(b);
}
inline void barrier_all_block(const Block& b) noexcept { barrier_block(b, SHMEM_TEAM_WORLD); }
inline void sync_block(const Block& b, shmem_team_t team) noexcept {
  block_sync(b);
  if (b.thread_id == 0) detail::team_sync("shmem::device::sync_block", team);
  block_sync(b);
}
inline void sync_all_block(const Block& b) noexcept { sync_block(b, SHMEM_TEAM_WORLD); }

// ---- grid scope (cooperative launches, or a single block) -------------------------------------
inline void barrier_grid(const Block& b, shmem_team_t team) noexcept {
  quiet();
  grid_sync(b);
  if (b.block_id == 0 && b.thread_id == 0) detail::team_sync("shmem::device::barrier_grid", team);
  grid_sync(b);
}
inline void barrier_all_grid(const Block& b) noexcept { barrier_grid(b, SHMEM_TEAM_WORLD); }
inline void sync_grid(const Block& b, shmem_team_t team) noexcept {
  grid_sync(b);
  if (b.block_id == 0 && b.thread_id == 0) detail::team_sync("shmem::device::sync_grid", team);
  grid_sync(b);
}
inline void sync_all_grid(const Block& b) noexcept { sync_grid(b, SHMEM_TEAM_WORLD); }

}  // namespace shmem::device
