#pragma once
// Internal operations for the collectives (OpenSHMEM 1.6 sections 9.6-9.9), the collectives
// layer's interface (src/coll/, between the core's primitives and the API). Like
// core/ops.hpp, this is the one interface behind every public surface; the C shims in src/api/
// stay thin. Every PE number passed here is relative to the team it comes with.
#include <cstddef>
#include <cstdint>

#include "core/team_ops.hpp"

namespace shmem {
namespace core {

// ---- team-based collectives (return 0 on success, nonzero for an invalid team/argument) -----
// Byte-based; typed shims multiply by sizeof. All are collective over `team`.
int broadcast(Team* team, void* dest, const void* source, std::size_t bytes, int root) noexcept;
int collect(Team* team, void* dest, const void* source, std::size_t bytes) noexcept;   // sizes may differ per PE
int fcollect(Team* team, void* dest, const void* source, std::size_t bytes) noexcept;  // same size on every PE
int alltoall(Team* team, void* dest, const void* source, std::size_t bytes_per_pe) noexcept;
// Strides in elements of elem_size; nelems elements go to each PE.
int alltoalls(Team* team, void* dest, const void* source, std::ptrdiff_t dst, std::ptrdiff_t sst,
              std::size_t nelems, std::size_t elem_size) noexcept;

// out[i] = a[i] OP b[i] for i < n (elements of the reduced type); out may be a (accumulate in
// place) but must not overlap b. The typed shims pass one instantiation per (type, op); the
// algorithms only move bytes and call it on slices.
using Combine = void (*)(void* out, const void* a, const void* b, std::size_t n) noexcept;
int reduce(Team* team, void* dest, const void* source, std::size_t nelems, std::size_t elem_size,
           Combine combine) noexcept;
// Inclusive (exclusive=false) or exclusive prefix reduction in team PE order. The spec only
// has sum scans: for the exclusive form PE 0's dest is set to zero (shmem_scan.tex).
int scan(Team* team, void* dest, const void* source, std::size_t nelems, std::size_t elem_size, Combine combine,
         bool exclusive) noexcept;

// ---- legacy active-set collectives ----------------------------------------------------------
// PEs start, start + 2^log_stride, ... (size of them). pSync is the user's symmetric array of
// longs, initialised to SHMEM_SYNC_VALUE (0) and left so on return; it must hold at least
// kSyncSize longs (every *_SYNC_SIZE constant is this value).
constexpr std::size_t kSyncSize = 240;
constexpr long kSyncValue = 0;
struct ActiveSet {
  int start;
  int log_stride;
  int size;
  long* psync;
};
void barrier(const ActiveSet& set) noexcept;  // quiet + sync over the set
void sync(const ActiveSet& set) noexcept;     // sync only
// root is the index within the set for broadcast, as in the spec; dest on the root is not written.
void broadcast(const ActiveSet& set, void* dest, const void* source, std::size_t bytes, int root) noexcept;
void collect(const ActiveSet& set, void* dest, const void* source, std::size_t bytes) noexcept;
void fcollect(const ActiveSet& set, void* dest, const void* source, std::size_t bytes) noexcept;
void alltoall(const ActiveSet& set, void* dest, const void* source, std::size_t bytes_per_pe) noexcept;
void alltoalls(const ActiveSet& set, void* dest, const void* source, std::ptrdiff_t dst, std::ptrdiff_t sst,
               std::size_t nelems, std::size_t elem_size) noexcept;
// pWrk is accepted and unused: the pull algorithms need no work array.
void reduce(const ActiveSet& set, void* dest, const void* source, std::size_t nelems, std::size_t elem_size,
            Combine combine) noexcept;

}  // namespace core
}  // namespace shmem
