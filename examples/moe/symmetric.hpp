#pragma once
// The RAII helpers shared by the C++ examples (examples/common/symmetric.hpp), in this
// example's namespace.
#include "../common/symmetric.hpp"

namespace moe {
using shmem_examples::Stream;
using shmem_examples::SymmetricArray;
using shmem_examples::sum_over_pes;
}  // namespace moe
