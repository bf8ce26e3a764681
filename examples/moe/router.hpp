#pragma once
// This PE's tokens and the router's choice for each: topk distinct experts with gate weights.
// Both depend only on (PE, token, iteration), so every iteration routes differently and the
// receive counts change from one iteration to the next.
#include <vector>

#include "shape.hpp"

namespace moe {

struct Routing {
  std::vector<int> expert;    // tokens x topk global expert ids, distinct per token
  std::vector<float> weight;  // tokens x topk gate weights, multiples of 1/64 in (0, 1]
};

// tokens x hidden values, integers in -32..31.
std::vector<float> make_tokens(const MoeShape& shape, int pe, int epoch);

// The PE whose experts get no token at all in this iteration (as with cold experts in a real
// batch), or -1: odd iterations leave PE (epoch / 2) mod npes idle when the other PEs host at
// least topk experts; even iterations use every expert.
int idle_pe(const MoeShape& shape, int epoch);

Routing route_tokens(const MoeShape& shape, int pe, int epoch);

// Tokens that have two or more of their experts on one PE (and so send it two or more rows).
long tokens_sharing_a_pe(const MoeShape& shape, const Routing& routing);

}  // namespace moe
