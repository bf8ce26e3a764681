// The Ascend SHMEM device names (aclshmem_device.hpp) compiled as CUDA kernels for sm_90: every
// family once, so that kernel code written for Ascend SHMEM builds for the GPU.
#include <shmem/device/aclshmem_device.hpp>

__global__ void acl_kernel(float* f, int32_t* sig, int64_t* w, int pe) {
  const int me = aclshmem_my_pe(), n = aclshmem_n_pes();
  aclshmem_float_put(f, f + 8, 4, (me + 1) % n);
  aclshmem_float_get(f + 8, f, 4, pe);
  aclshmem_float_p(f, 1.0f, pe);
  f[1] = aclshmem_float_g(f, pe);
  aclshmem_float_iput(f, f + 8, 2, 1, 4, pe);
  aclshmemx_putmem_block(f, f + 8, 16, pe);
  aclshmemx_float_put_block(f, f + 8, 4, pe);
  aclshmem_put64(w, w + 4, 2, pe);
  aclshmem_putmem_signal(f, f + 8, 16, sig, 1, ACLSHMEM_SIGNAL_SET, pe);
  aclshmem_float_put_signal(f, f + 8, 4, sig, 1, ACLSHMEM_SIGNAL_ADD, pe);
  aclshmemx_signal_op(sig, 1, ACLSHMEM_SIGNAL_ADD, pe);
  aclshmem_signal_wait_until(sig, ACLSHMEM_CMP_GE, 1);
  aclshmem_int64_atomic_add(w, 1, pe);
  w[1] = aclshmem_int64_atomic_fetch_add(w, 1, pe);
  w[2] = aclshmem_int64_atomic_compare_swap(w, 0, 1, pe);
  aclshmem_int8_atomic_add(reinterpret_cast<int8_t*>(w + 3), 1, pe);
  aclshmem_float_atomic_add(f, 1.0f, pe);
  aclshmem_int64_wait_until(w, ACLSHMEM_CMP_GE, 1);
  aclshmem_quiet();
  aclshmem_fence();
  aclshmem_barrier_all();
  aclshmem_sync_all();
  f[2] = static_cast<float>(aclshmem_team_my_pe(ACLSHMEM_TEAM_WORLD) + aclshmem_team_n_pes(ACLSHMEM_TEAM_WORLD));
}
