#pragma once
// Team-based collectives on teams that span hosts (coll/xhost_team.cpp; the algorithms are in
// coll/hier.hpp). Arguments are checked by the callers (coll/team.cpp).
#include <cstddef>

#include "coll/ops.hpp"

namespace shmem {
class Team;
namespace xhost_team {

void broadcast(Team& t, void* dest, const void* source, std::size_t bytes, int root);
void collect(Team& t, void* dest, const void* source, std::size_t bytes);
void fcollect(Team& t, void* dest, const void* source, std::size_t bytes);
void alltoall(Team& t, void* dest, const void* source, std::size_t bytes);
void alltoalls(Team& t, void* dest, const void* source, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t nelems,
               std::size_t elem);
void reduce(Team& t, void* dest, const void* source, std::size_t nelems, std::size_t elem, core::Combine combine);
void scan(Team& t, void* dest, const void* source, std::size_t nelems, std::size_t elem, core::Combine combine,
          bool exclusive);

}  // namespace xhost_team
}  // namespace shmem
