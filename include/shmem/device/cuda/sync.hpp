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
// They count arrivals in a cell of the device synchronisation area at the start of PE 0's GPU heap
// (state.hpp: kGpuSyncOffset), apart from the host's barriers. Device barriers serve
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

struct alignas(64) SyncCell {
  std::uint64_t count;  // arrivals of the current round
  char pad_[56];
  std::uint64_t gen;    // completed rounds
  char pad2_[56];
};
static_assert(sizeof(SyncCell) == 128 && kGpuSyncSlots * sizeof(SyncCell) <= kGpuStreamOffset - kGpuSyncOffset);

// Centralised counter barrier on cell `slot` of world PE `root`: the last of n arrivals resets the
// count and advances the generation the others wait for. The generation is read before arriving,
// which is safe because it cannot advance before this caller arrives.
__device__ __noinline__ inline void team_sync_on(const char* routine, int slot, int root, int n) {
  if (n <= 1) return;
  const GpuState& s = state();
  const int li = s.n_local == s.n_pes ? root : s.local_index[root];
  if (li < 0) return bad_target(routine, s.my_heap, 0, root);
  auto* cell = reinterpret_cast<SyncCell*>(s.base + static_cast<std::size_t>(li) * s.stride + kGpuSyncOffset) + slot;
  SysRef<std::uint64_t> gen(cell->gen);
  SysRef<std::uint64_t> count(cell->count);
  const std::uint64_t g = gen.load(kAcquire);
  if (count.fetch_add(1, ::cuda::std::memory_order_acq_rel) == static_cast<std::uint64_t>(n - 1)) {
    count.store(0, kRelaxed);
    gen.store(g + 1, kRelease);
    return;
  }
  Backoff backoff;
  for (std::uint64_t v = gen.load(kAcquire); v == g; v = gen.load(kAcquire))
    backoff.pause(routine, &cell->gen, g + 1, v, SHMEM_CMP_GT);
}

__device__ __forceinline__ void team_sync(const char* routine, shmem_team_t team) {
  if (!is_world(team)) [[unlikely]]
    return bad_argument(routine, -1);
  team_sync_on(routine, 0, 0, state().n_pes);
}

}  // namespace cuda::detail

// Every thread of the launch waits for all others: the launch must be cooperative unless it has
// a single block (reported otherwise, and the threads then only synchronise their block).
__device__ inline void grid_sync(const Block& b) {
  if (b.grid <= 1) return __syncthreads();
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  if (!grid.is_valid()) [[unlikely]] {
    if (b.thread_id == 0 && b.block_id == 0) cuda::detail::bad_argument("shmem::device::grid_sync (not a cooperative launch)", b.grid);
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
