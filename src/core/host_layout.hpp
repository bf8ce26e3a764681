#pragma once
// How the members of a team (or an active set) fall on hosts: hosts numbered in the order of
// their first member, each host's members in member order, its first member its leader. Every
// member computes the same layout from the runtime's host ids (Runtime::node_of).
#include <vector>

#include "core/runtime.hpp"

namespace shmem {

struct HostLayout {
  std::vector<int> host_of;               // member -> host index
  std::vector<std::vector<int>> members;  // host index -> its members, ascending
  int my_host = 0;
  int my_local = 0;  // this PE's index among its host's members (0: the leader)

  int hosts() const noexcept { return static_cast<int>(members.size()); }
  int leader(int host) const noexcept { return members[static_cast<std::size_t>(host)][0]; }
  bool is_leader() const noexcept { return my_local == 0; }
  const std::vector<int>& mine() const noexcept { return members[static_cast<std::size_t>(my_host)]; }

  // world_pes[i] is member i's world PE; me is this PE's member index.
  static HostLayout make(const Runtime& rt, const std::vector<int>& world_pes, int me);
};

}  // namespace shmem
