#pragma once
// The dispatch plan: this PE's (token, expert) pairs grouped by the PE that hosts the expert.
#include <cstdint>
#include <vector>

#include "router.hpp"
#include "shape.hpp"

namespace moe {

struct DispatchPlan {
  std::vector<Meta> meta;            // every pair, grouped by destination PE, tokens in order
  std::vector<std::int64_t> first;   // npes + 1: the pairs for PE d are meta[first[d] .. first[d+1])
  std::int64_t count(int pe) const { return first[pe + 1] - first[pe]; }
};

// A token whose two experts live on the same PE appears twice in that PE's group (one row per
// pair: the expert PE keeps no state about tokens).
DispatchPlan plan_dispatch(const MoeShape& shape, const Routing& routing, int me);

}  // namespace moe
