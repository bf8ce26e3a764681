// aclshmem's memory types on the CUDA backend (fake driver): with SHMEM_ACL_DEVICE=cuda, device
// memory (aclshmem_malloc & co., DEVICE_SIDE) is the GPU heap and HOST_SIDE the CPU heap; with
// the default (cpu) both are the CPU heap. argv[1]: "cuda" or "cpu", the expected placement.
#include <aclshmem.h>
#include <shmem.h>

#include <cstdio>
#include <cstring>

#include "fakecuda.h"

int main(int argc, char** argv) {
  const bool gpu = argc > 1 && std::strcmp(argv[1], "cuda") == 0;
  int failures = 0;
  auto check = [&](bool ok, const char* what) {
    if (!ok) std::fprintf(stderr, "acl_cuda: PE %d: %s\n", shmem_my_pe(), what), ++failures;
  };
  shmem_init();
  const int me = shmem_my_pe(), next = (me + 1) % shmem_n_pes();
  auto* dev = static_cast<long*>(aclshmem_malloc(64 * sizeof(long)));
  auto* host = static_cast<long*>(aclshmemx_malloc(64 * sizeof(long), HOST_SIDE));
  auto* zero = static_cast<long*>(aclshmemx_calloc(8, sizeof(long), DEVICE_SIDE));
  check(dev && host && zero, "an allocation failed");
  if (!dev || !host || !zero) return 1;
  // Device memory is the GPU heap exactly when asked for: only there does the driver see it.
  check((fakecuda_host_view(dev, 8) != nullptr) == gpu, "aclshmem_malloc's placement");
  check(aclshmemx_get_heap_base(DEVICE_SIDE) == dev, "the device heap base (the first device object)");
  check((aclshmemx_get_heap_base(HOST_SIDE) != aclshmemx_get_heap_base(DEVICE_SIDE)) == gpu, "the two heap bases");
  check(fakecuda_host_view(host, 8) == nullptr, "HOST_SIDE memory is not host memory");
  host[0] = 7 + me;  // host memory: the host writes it directly
  long v = 100 + me, got = -1, z[8];
  aclshmem_putmem(dev + 3, &v, sizeof v, next);
  shmem_barrier_all();
  aclshmem_getmem(&got, dev + 3, sizeof got, me);
  check(got == 100 + (me + shmem_n_pes() - 1) % shmem_n_pes(), "put/get on device memory");
  aclshmem_getmem(z, zero, sizeof z, next);
  bool zeroed = true;
  for (long w : z) zeroed = zeroed && w == 0;
  check(zeroed, "aclshmemx_calloc(DEVICE_SIDE) did not zero");
  check(shmem_long_g(host, next) == 7 + next, "HOST_SIDE memory");
  shmem_barrier_all();
  aclshmemx_free(zero, DEVICE_SIDE);
  aclshmem_free(dev);
  aclshmemx_free(host, HOST_SIDE);
  shmem_finalize();
  if (failures == 0 && me == 0) std::printf("acl_cuda: %s OK\n", gpu ? "cuda" : "cpu");
  return failures == 0 ? 0 : 1;
}
