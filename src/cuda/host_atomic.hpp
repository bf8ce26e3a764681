#pragma once
// Host atomics on GPU symmetric memory (the plugin's `atomic`): the host cannot touch GPU memory,
// so a one-thread kernel of the device API performs the operation on the target PE's word.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace shmem::cuda {

// Enqueues on `s` the atomic `op` (shmem_cuda_atomic_op) of `width` (4 or 8) bytes on the symmetric
// word `addr` of world PE `pe`, writing the previous value (zero-extended) to device word `old`.
// Returns 0 or the cudaError_t of the enqueue.
int host_atomic(cudaStream_t s, void* addr, int pe, int width, int op, std::uint64_t value, std::uint64_t cond,
                std::uint64_t* old) noexcept;

}  // namespace shmem::cuda
