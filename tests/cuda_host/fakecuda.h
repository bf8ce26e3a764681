/* The fake CUDA driver's own diagnostics (tests/cuda_host/fakecuda.cpp). */
#ifndef SHMEM_TESTS_FAKECUDA_H
#define SHMEM_TESTS_FAKECUDA_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
typedef struct FakeCudaLive {
  int allocations, reservations, mappings, host_allocations, streams, retained;
} FakeCudaLive;
/* What the process holds now (every count is 0 once everything was released). */
void fakecuda_live(FakeCudaLive* out);
/* The host (driver's) view of [device_address, +bytes) inside one accessible mapping; NULL for
 * host memory, unmapped or inaccessible device memory, or a range that crosses a mapping's end. */
void* fakecuda_host_view(const void* device_address, size_t bytes);
#ifdef __cplusplus
}
#endif
#endif
