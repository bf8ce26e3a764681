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
// PE's GPU heap (state.hpp: kGpuSyncOffset), apart from the host's barriers. Device barriers serve
// SHMEM_TEAM_WORLD; other teams are refused (reported, nothing done) in this version.
#include <cooperative_groups.h>

#include "shmem/device/cuda/rma.hpp"

namespace shmem::device {

__device__ __forceinline__ void fence() { cuda::detail::fence_system(); }
__device__ __forceinline__ void quiet() { cuda::detail::fence_system(); }

// ---- teams -------------------------------------------------------------------------------------
__device__ __forceinline__ bool is_world(shmem_team_t team) { return team == SHMEM_TEAM_WORLD; }
__device__ __forceinline__ int team_my_pe(shmem_team_t team) { return is_world(team) ? my_pe() : -1; }
__device__ __forceinline__ int team_n_pes(shmem_team_t team) { return is_world(team) ? n_pes() : -1; }
__device__ __forceinline__ int team_translate_pe(shmem_team_t src, int pe, shmem_team_t dst) {
  return is_world(src) && is_world(dst) && pe >= 0 && pe < n_pes() ? pe : -1;
}

namespace cuda::detail {

// A team slot's cell of the device synchronisation area, on every member: this PE's count of
// barriers on the slot, and one flag per dissemination round (written by one other member only).
inline constexpr int kSyncRounds = 15;  // up to 2^15 members
struct alignas(128) SyncCell {
  std::uint64_t epoch;
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
// nullptr: the world, member i = PE i; this PE is member `me`): in round k member i raises the
// round-k flag of member (i + 2^k) % n to this barrier's epoch (a release) and waits until its
// own round-k flag reaches it (an acquire): ceil(log2 n) one-way latencies and no shared counter.
// Flags only grow (each has one writer, and the epoch is this PE's count of barriers on the slot,
// kept in its own cell by the one caller per PE), so nothing is reset; a member already in the
// next barrier raises a flag past the epoch, which still releases this one's waiter, rightly.
__device__ __noinline__ inline void team_sync_on(const char* routine, int slot, const int* members, int me, int n) {
  if (n <= 1) return;
  if (n > (1 << kSyncRounds)) return bad_argument(routine, n);
  const int my_world = members ? members[me] : me;
  SyncCell* mine = sync_cell(my_world, slot);
  if (mine == nullptr) return bad_target(routine, state().my_heap, 0, my_world);
  const std::uint64_t epoch = mine->epoch + 1;
  mine->epoch = epoch;
  for (int k = 0, d = 1; d < n; ++k, d <<= 1) {
    const int to = members ? members[(me + d) % n] : (me + d) % n;
    SyncCell* peer = sync_cell(to, slot);
    if (peer == nullptr) return bad_target(routine, state().my_heap, 0, to);
    SysRef<std::uint64_t>(peer->flag[k]).store(epoch, kRelease);
    SysRef<std::uint64_t> own(mine->flag[k]);
    Backoff backoff;
    for (std::uint64_t v = own.load(kAcquire); v < epoch; v = own.load(kAcquire))
      backoff.pause(routine, &mine->flag[k], epoch, v, SHMEM_CMP_GE);
  }
}

__device__ __forceinline__ void team_sync(const char* routine, shmem_team_t team) {
  if (!is_world(team)) [[unlikely]]
    return bad_argument(routine, -1);
  team_sync_on(routine, 0, nullptr, state().my_pe, state().n_pes);
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
