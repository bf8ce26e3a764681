#pragma once
// The RAII helpers shared by the C++ examples (examples/common/symmetric.hpp), in this
// example's namespace.
#include "../common/symmetric.hpp"

namespace mc2 {
using shmem_examples::Stream;
using shmem_examples::SymmetricArray;
}  // namespace mc2
