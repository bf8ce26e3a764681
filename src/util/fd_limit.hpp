#pragma once
// The open-file limit: a process that will hold many descriptors (oshrun: pipes and store
// connections per PE; a PE: transport endpoints per peer) raises its soft limit to what it
// needs, never beyond the hard limit.
#include <cstdint>
#include <string>

namespace shmem::util {

struct FdLimit {
  std::uint64_t soft = 0;  // after the call (UINT64_MAX: unlimited)
  std::uint64_t hard = 0;
  bool enough = true;  // soft >= need
};

// Raises RLIMIT_NOFILE's soft limit to `need` if it is lower (up to the hard limit). Never
// lowers it.
FdLimit raise_fd_limit(std::uint64_t need) noexcept;

// "WHO needs about NEED open files (WHAT), but the hard limit is HARD (ulimit -Hn): ..." for a
// limit that stays too low; empty when it is enough.
std::string fd_limit_advice(const FdLimit& l, std::uint64_t need, const std::string& who, const std::string& what);

}  // namespace shmem::util
