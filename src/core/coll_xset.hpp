#pragma once
// Legacy active-set collectives on sets that span hosts (core/coll_xset.cpp; the algorithms
// are in core/coll_hier.hpp). `me` is this PE's index in the set; arguments are checked by
// the callers (core/coll_legacy.cpp).
#include <cstddef>

#include "core/runtime.hpp"
#include "core/team_ops.hpp"

namespace shmem::xset {

void barrier(Runtime& rt, const core::ActiveSet& set, int me, bool quiet_first);
void broadcast(Runtime& rt, const core::ActiveSet& set, int me, void* dest, const void* source, std::size_t bytes,
               int root);
void collect(Runtime& rt, const core::ActiveSet& set, int me, void* dest, const void* source, std::size_t bytes);
void fcollect(Runtime& rt, const core::ActiveSet& set, int me, void* dest, const void* source, std::size_t bytes);
void alltoall(Runtime& rt, const core::ActiveSet& set, int me, void* dest, const void* source, std::size_t bytes);
void alltoalls(Runtime& rt, const core::ActiveSet& set, int me, void* dest, const void* source, std::ptrdiff_t dst,
               std::ptrdiff_t sst, std::size_t nelems, std::size_t elem);
void reduce(Runtime& rt, const core::ActiveSet& set, int me, void* dest, const void* source, std::size_t nelems,
            std::size_t elem, core::Combine combine);

}  // namespace shmem::xset
