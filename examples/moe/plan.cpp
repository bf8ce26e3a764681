#include "plan.hpp"

namespace moe {

DispatchPlan plan_dispatch(const MoeShape& shape, const Routing& routing, int me) {
  DispatchPlan p;
  p.first.assign(static_cast<std::size_t>(shape.npes) + 1, 0);
  for (int e : routing.expert) ++p.first[static_cast<std::size_t>(e / shape.experts_per_pe) + 1];
  for (std::size_t d = 0; d < static_cast<std::size_t>(shape.npes); ++d) p.first[d + 1] += p.first[d];

  std::vector<std::int64_t> next(p.first.begin(), p.first.end() - 1);  // counting sort, stable
  p.meta.resize(routing.expert.size());
  const auto k = static_cast<std::size_t>(shape.topk);
  for (std::size_t pair = 0; pair < routing.expert.size(); ++pair) {
    const int e = routing.expert[pair];
    p.meta[static_cast<std::size_t>(next[static_cast<std::size_t>(e / shape.experts_per_pe)]++)] =
        Meta{static_cast<std::int32_t>(pair / k), static_cast<std::int32_t>(pair % k), e, me};
  }
  return p;
}

}  // namespace moe
