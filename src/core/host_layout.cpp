#include "core/host_layout.hpp"

#include <unordered_map>

namespace shmem {

HostLayout HostLayout::make(const Runtime& rt, const std::vector<int>& world_pes, int me) {
  HostLayout l;
  std::unordered_map<int, int> index;  // host id -> host index
  l.host_of.resize(world_pes.size());
  for (std::size_t i = 0; i < world_pes.size(); ++i) {
    const int id = rt.node_of(world_pes[i]);
    auto [it, fresh] = index.emplace(id, static_cast<int>(l.members.size()));
    if (fresh) l.members.emplace_back();
    l.host_of[i] = it->second;
    l.members[static_cast<std::size_t>(it->second)].push_back(static_cast<int>(i));
  }
  if (me >= 0) {
    l.my_host = l.host_of[static_cast<std::size_t>(me)];
    const auto& m = l.mine();
    for (std::size_t k = 0; k < m.size(); ++k)
      if (m[k] == me) l.my_local = static_cast<int>(k);
  }
  return l;
}

}  // namespace shmem
