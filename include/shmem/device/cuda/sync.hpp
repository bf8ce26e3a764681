#pragma once
// In-kernel ordering, barriers and team queries.
//
// fence() and quiet(): a system-scope fence (fence.sc.sys). Node-local puts, atomics and signals
// are complete once fenced, so both make every earlier operation of the calling thread visible
// to every PE before any later one.
//
// Barriers across PEs come in three scopes; exactly one "caller" per PE enters each:
//   barrier_all() / sync_all()                     one thread per PE
//   barrier_all_block(b) / sync_all_block(b)       every thread of one block per PE
//   barrier_all_grid(b) / sync_all_grid(b)         every thread of a cooperative launch per PE
//                                                  (the Ascend API's aclshmem_barrier_all)
// They are dissemination barriers on cells of the device synchronisation area at the start of every
// PE's GPU heap (state.hpp: kGpuSyncOffset), apart from the host's barriers. Every team serves:
// SHMEM_TEAM_WORLD directly, the others through the device team table (state.hpp: GpuTeam), whose
// entry gives the members and the cell (team slot % kGpuTeamCells; two teams whose slots are equal
// modulo 64 share a cell, so device barriers must not run on both at once). A handle that is not a
// team of this PE is reported (bad argument) and nothing is done.
#include <cooperative_groups.h>

#include "shmem/device/cuda/rma.hpp"

namespace shmem::device {

__device__ __forceinline__ void fence() { cuda::detail::fence_system(); }
__device__ __forceinline__ void quiet() { cuda::detail::fence_system(); }

// ---- teams -------------------------------------------------------------------------------------
__device__ __forceinline__ bool is_world(shmem_team_t team) { return team == SHMEM_TEAM_WORLD; }

namespace cuda::detail {
// The table entry of a team other than the world; nullptr when `team` is none of this PE's.
__device__ inline const GpuTeam* find_team(shmem_team_t team) {
  const GpuState& s = state();
  const auto h = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(team));
  if (h == 0 || s.teams == nullptr) return nullptr;
  for (int i = 0; i < kGpuTeams; ++i)
    if (s.teams[i].handle == h) return &s.teams[i];
  return nullptr;
}
// The entry of team slot `slot` (the Ascend API's team handles are slots); nullptr when no team
// of this PE has it.
__device__ inline const GpuTeam* team_at(int slot) {
  const GpuState& s = state();
  if (slot < 0 || slot >= kGpuTeams || s.teams == nullptr || s.teams[slot].handle == 0) return nullptr;
  return &s.teams[slot];
}
// Member `pe` of team t as a world PE (t == nullptr: the world), and the inverse; -1 when out of
// range or not a member.
__device__ inline int world_of(const GpuTeam* t, int pe) {
  if (t == nullptr) return pe >= 0 && pe < state().n_pes ? pe : -1;
  return pe >= 0 && pe < t->n ? t->members[pe] : -1;
}
__device__ inline int index_in(const GpuTeam* t, int world) {
  if (world < 0 || t == nullptr) return world;
  for (int i = 0; i < t->n; ++i)
    if (t->members[i] == world) return i;
  return -1;
}
}  // namespace cuda::detail

__device__ inline int team_my_pe(shmem_team_t team) {
  if (is_world(team)) return my_pe();
  const cuda::GpuTeam* t = cuda::detail::find_team(team);
  return t ? t->me : -1;
}
__device__ inline int team_n_pes(shmem_team_t team) {
  if (is_world(team)) return n_pes();
  const cuda::GpuTeam* t = cuda::detail::find_team(team);
  return t ? t->n : -1;
}
// PE `pe` of team `src` as a PE of team `dst`; -1 when either is not a team here, pe is out of
// range, or that PE is not a member of dst.
__device__ inline int team_translate_pe(shmem_team_t src, int pe, shmem_team_t dst) {
  const cuda::GpuTeam* s = is_world(src) ? nullptr : cuda::detail::find_team(src);
  const cuda::GpuTeam* d = is_world(dst) ? nullptr : cuda::detail::find_team(dst);
  if ((!is_world(src) && !s) || (!is_world(dst) && !d)) return -1;
  return cuda::detail::index_in(d, cuda::detail::world_of(s, pe));
}

namespace cuda::detail {

// A team slot's cell of the device synchronisation area, on every member: one counting flag per
// dissemination round (added to by one other member per barrier). The first word is the library's
// stream operations' (src/cuda/stream_ops.cu): the blocks of a grid that are through, so that the
// last one passes the closing barrier; barriers leave it alone.
inline constexpr int kSyncRounds = 15;  // up to 2^15 members
struct alignas(128) SyncCell {
  std::uint64_t blocks_done;
  std::uint64_t flag[kSyncRounds];
};
static_assert(sizeof(SyncCell) == 128 && kGpuSyncSlots * sizeof(SyncCell) <= kGpuStreamOffset - kGpuSyncOffset);

__device__ __forceinline__ SyncCell* sync_cell(int world_pe, int slot) {
  const GpuState& s = state();
  const int li = s.n_local == s.n_pes ? world_pe : s.local_index[world_pe];
  if (li < 0) return nullptr;
  return reinterpret_cast<SyncCell*>(s.base + static_cast<std::size_t>(li) * s.stride + kGpuSyncOffset) + slot;
}

// Dissemination barrier on cell `slot` of the n members (members[i] is member i as a world PE;
// nullptr: the world, member i = PE i; this PE is member `me`): in round k member i adds one to
// the round-k flag of member (i + 2^k) % n (a release) and waits until its own round-k flag is
// non-zero (an acquire), then takes one back: ceil(log2 n) one-way latencies and no shared
// counter. A member already in the next barrier only adds one more, which that barrier takes.
// The flags count arrivals not yet taken, so they are back to zero once every member is through:
// the cell keeps no per-PE count that a later team on the same slot (other members, other size)
// would have to agree with.
__device__ __noinline__ inline void team_sync_on(const char* routine, int slot, const int* members, int me, int n) {
  if (n <= 1) return;
  if (n > (1 << kSyncRounds)) return bad_argument(routine, n);
  const int my_world = members ? members[me] : me;
  SyncCell* mine = sync_cell(my_world, slot);
  if (mine == nullptr) return bad_target(routine, state().my_heap, 0, my_world);
  for (int k = 0, d = 1; d < n; ++k, d <<= 1) {
    const int to = members ? members[(me + d) % n] : (me + d) % n;
    SyncCell* peer = sync_cell(to, slot);
    if (peer == nullptr) return bad_target(routine, state().my_heap, 0, to);
    SysRef<std::uint64_t>(peer->flag[k]).fetch_add(1, kRelease);
    SysRef<std::uint64_t> own(mine->flag[k]);
    Backoff backoff;
    for (std::uint64_t v = own.load(kAcquire); v == 0; v = own.load(kAcquire))
      backoff.pause(routine, &mine->flag[k], 1, v, SHMEM_CMP_GE);
    own.fetch_sub(1, kRelaxed);
  }
}

__device__ __forceinline__ void team_sync(const char* routine, shmem_team_t team) {
  if (is_world(team)) [[likely]]
    return team_sync_on(routine, 0, nullptr, state().my_pe, state().n_pes);
  const GpuTeam* t = find_team(team);
  if (t == nullptr) [[unlikely]]
    return bad_argument(routine, -1);
  team_sync_on(routine, t->slot % kGpuTeamCells, t->members, t->me, t->n);
}
__device__ __forceinline__ void team_sync(const char* routine, const GpuTeam& t) {
  team_sync_on(routine, t.slot % kGpuTeamCells, t.members, t.me, t.n);
}

}  // namespace cuda::detail

// Every thread of the launch waits for all others: the launch must be cooperative unless it has
// a single block (reported otherwise, and the threads then only synchronise their block).
__device__ inline void grid_sync(const Block& b) {
  if (b.grid <= 1) return __syncthreads();
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  if (!grid.is_valid()) [[unlikely]] {
    if (b.thread_id == 0 && b.block_id == 0)
      cuda::detail::bad_argument("shmem::device::grid_sync (not a cooperative launch)", b.grid);
    return __syncthreads();
  }
  grid.sync();
}

// ---- thread scope ----------------------------------------------------------------------------------
__device__ __forceinline__ void sync(shmem_team_t team) { cuda::detail::team_sync("shmem::device::sync", team); }
__device__ __forceinline__ void sync_all() { sync(SHMEM_TEAM_WORLD); }
__device__ __forceinline__ void barrier(shmem_team_t team) {
  quiet();
  cuda::detail::team_sync("shmem::device::barrier", team);
}
__device__ __forceinline__ void barrier_all() { barrier(SHMEM_TEAM_WORLD); }

// ---- block scope -------------------------------------------------------------------------------
__device__ __forceinline__ void barrier_block(const Block& b, shmem_team_t team) {
  quiet();
  __syncthreads();
  if (b.thread_id == 0) cuda::detail::team_sync("shmem::device::barrier_block", team);
  __syncthreads();
}
__device__ __forceinline__ void barrier_all_block(const Block& b) { barrier_block(b, SHMEM_TEAM_WORLD); }
__device__ __forceinline__ void sync_block(const Block& b, shmem_team_t team) {
  __syncthreads();
  if (b.thread_id == 0) cuda::detail::team_sync("shmem::device::sync_block", team);
  __syncthreads();
}
__device__ __forceinline__ void sync_all_block(const Block& b) { sync_block(b, SHMEM_TEAM_WORLD); }

// ---- grid scope (cooperative launches, or a single block) -------------------------------------
__device__ __forceinline__ void barrier_grid(const Block& b, shmem_team_t team) {
  quiet();
  grid_sync(b);
  if (b.block_id == 0 && b.thread_id == 0) cuda::detail::team_sync("shmem::device::barrier_grid", team);
  grid_sync(b);
}
__device__ __forceinline__ void barrier_all_grid(const Block& b) { barrier_grid(b, SHMEM_TEAM_WORLD); }
__device__ __forceinline__ void sync_grid(const Block& b, shmem_team_t team) {
  grid_sync(b);
  if (b.block_id == 0 && b.thread_id == 0) cuda::detail::team_sync("shmem::device::sync_grid", team);
  grid_sync(b);
}
__device__ __forceinline__ void sync_all_grid(const Block& b) { sync_grid(b, SHMEM_TEAM_WORLD); }

}  // namespace shmem::device
