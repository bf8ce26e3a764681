#pragma once
// Legacy active-set collectives on sets that span hosts (coll/xhost_set.cpp; the algorithms
// are in coll/hier.hpp). `me` is this PE's index in the set; arguments are checked by
// the callers (coll/active_set.cpp).
#include <cstddef>

#include "core/runtime.hpp"
#include "coll/ops.hpp"

namespace shmem::xhost_set {

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

}  // namespace shmem::xhost_set
