#pragma once
// Team-based collectives on teams that span hosts (core/coll_xteam.cpp; the algorithms are in
// core/coll_hier.hpp). Arguments are checked by the callers (core/coll_team.cpp).
#include <cstddef>

#include "core/team_ops.hpp"

namespace shmem {
class Team;
namespace xteam {

void broadcast(Team& t, void* dest, const void* source, std::size_t bytes, int root);
void collect(Team& t, void* dest, const void* source, std::size_t bytes);
void fcollect(Team& t, void* dest, const void* source, std::size_t bytes);
void alltoall(Team& t, void* dest, const void* source, std::size_t bytes);
void alltoalls(Team& t, void* dest, const void* source, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t nelems,
               std::size_t elem);
void reduce(Team& t, void* dest, const void* source, std::size_t nelems, std::size_t elem, core::Combine combine);
void scan(Team& t, void* dest, const void* source, std::size_t nelems, std::size_t elem, core::Combine combine,
          bool exclusive);

}  // namespace xteam
}  // namespace shmem
