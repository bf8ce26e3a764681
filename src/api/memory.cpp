// Symmetric memory management: shmem_malloc, free, realloc, align, malloc_with_hints, calloc,
// and the deprecated (1.2) shmalloc, shfree, shrealloc, shmemalign.
// The core allocators are collective, noexcept, and return null on failure after logging the
// reason (naming SHMEM_SYMMETRIC_SIZE), so the shims only forward.
#include "api/shim.hpp"

extern "C" {

void* shmem_malloc(size_t size) noexcept { return shmem::core::malloc(size, __func__); }

void shmem_free(void* ptr) noexcept { shmem::core::free(ptr, __func__); }

void* shmem_realloc(void* ptr, size_t size) noexcept { return shmem::core::realloc(ptr, size, __func__); }

void* shmem_align(size_t alignment, size_t size) noexcept { return shmem::core::align(alignment, size, __func__); }

// SHMEM_MALLOC_ATOMICS_REMOTE / SHMEM_MALLOC_SIGNAL_REMOTE are performance hints only: on this
// library every symmetric allocation already supports remote atomics and signals.
void* shmem_malloc_with_hints(size_t size, long hints) noexcept {
  (void)hints;
  return shmem::core::malloc(size, __func__);
}

void* shmem_calloc(size_t count, size_t size) noexcept { return shmem::core::calloc(count, size, __func__); }

void* shmalloc(size_t size) noexcept { return shmem::core::malloc(size, __func__); }
void shfree(void* ptr) noexcept { shmem::core::free(ptr, __func__); }
void* shrealloc(void* ptr, size_t size) noexcept { return shmem::core::realloc(ptr, size, __func__); }
void* shmemalign(size_t alignment, size_t size) noexcept { return shmem::core::align(alignment, size, __func__); }

}  // extern "C"
