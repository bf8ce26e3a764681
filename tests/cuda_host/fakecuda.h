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
/* The contexts are lost with CUresult r (as after an exception in a kernel): from now on every
 * stream's synchronize and query returns r; CUDA_SUCCESS (0) makes them well again. */
void fakecuda_lose_contexts(int r);
/* Only CUstream s (of another context, say) reports r from its synchronize; 0 clears it. */
void fakecuda_fail_stream(void* s, int r);
#ifdef __cplusplus
}
#endif
#endif
