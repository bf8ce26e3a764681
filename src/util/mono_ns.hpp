#pragma once
// CLOCK_MONOTONIC in nanoseconds: the clock of the yield timing (yield_cost.hpp) and of the
// UCX transport's record of the application's polls.
#include <time.h>

#include <cstdint>

namespace shmem::util {

inline std::uint64_t mono_ns() noexcept {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1000000000u + static_cast<std::uint64_t>(t.tv_nsec);
}

}  // namespace shmem::util
