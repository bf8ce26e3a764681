// GPU symmetric memory of the CUDA backend (shmemx.h, docs/cuda.md): the collective allocation
// routines over the GPU heap, and the device state sinks of shmem/device/cuda/state.hpp.

#include <shmemx.h>

#include <cstdint>

#include "api/shim.hpp"
#include "base/log.hpp"
#include "core/gpu_heap.hpp"
#include "core/heap_allocator.hpp"
#include "shmem/device/cuda/state.hpp"

namespace core = shmem::core;

extern "C" {

void* shmemx_cuda_malloc(size_t size) noexcept {
  return core::gpu_alloc(shmem::HeapAllocator::kMinAlign, size, false, __func__);
}

void* shmemx_cuda_calloc(size_t count, size_t size) noexcept {
  if (count != 0 && size > SIZE_MAX / count) {
    // Every PE sees the same overflow: none allocates, and the call stays collective.
    SHMEM_ERROR("cuda", "%s(%zu, %zu): the size overflows", __func__, count, size);
    core::rt(__func__).barrier();
    return nullptr;
  }
  return core::gpu_alloc(shmem::HeapAllocator::kMinAlign, count * size, true, __func__);
}

void* shmemx_cuda_align(size_t alignment, size_t size) noexcept {
  return core::gpu_alloc(alignment, size, false, __func__);
}

void shmemx_cuda_free(void* ptr) noexcept { core::gpu_free(ptr, __func__); }

int shmemx_cuda_state_sink_add(shmemx_cuda_state_sink_t sink) noexcept {
  if (sink) core::add_gpu_sink(sink);
  return 0;
}

}  // extern "C"
