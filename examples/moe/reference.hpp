#pragma once
// The owner's check: each PE recomputes its own tokens' outputs locally (the experts applied
// here, without any communication) and compares them with what the layer produced. Every value
// is an integer or a multiple of 1/64 below 2^17 in magnitude, so every float operation is exact
// and the comparison is bitwise (see README).
#include <vector>

#include "router.hpp"
#include "shape.hpp"

namespace moe {

// Prints a FAILED line for each of the first few wrong tokens; returns the number of wrong floats.
long check_outputs(const MoeShape& shape, int me, int epoch, const std::vector<float>& x, const Routing& routing,
                   const std::vector<float>& out);

}  // namespace moe
