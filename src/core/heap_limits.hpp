#pragma once
// A symmetric heap larger than the memory the PE may use: said at init, since the heap is sparse
// and the kernel ends the program only when it touches that much.
#include <cstdint>

namespace shmem::core {

// Logs a warning (PE `me`) when `heap_bytes` exceed the machine's memory or the memory limit of
// the PE's cgroup.
void warn_if_heap_exceeds_memory(std::uint64_t heap_bytes, int me) noexcept;

}  // namespace shmem::core
