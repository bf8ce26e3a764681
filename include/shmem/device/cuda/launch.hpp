#pragma once
// Launching __device__ lambdas (or function objects) as CUDA kernels, the counterpart of the CPU
// device's shmem::device::launch: every thread gets its Block and calls the device API.
//
//   shmem::device::launch(cuda_stream, grid, [=] __device__(const shmem::device::Block& b) {
//     shmem::device::putmem_block(b, dst + b.block_id * n, src + b.block_id * n, n, peer);
//   }, {.block_dim = 256});
//
// Lambdas need nvcc's --extended-lambda. Plain <<<>>> kernels work too: they call
// shmem::device::this_block() for their Block. A cooperative launch (every block resident at once)
// is what grid-wide barriers (barrier_all_grid) need.
#include <cstdio>

#include "shmem/device/cuda/rma.hpp"

namespace shmem::device {

struct LaunchOptions {
  int block_dim = 1;             // threads per block, 1 .. 1024
  bool cooperative = false;      // every block at the same time (grid-wide sync and barriers)
  std::size_t shared_bytes = 0;  // dynamic shared memory per block
};

namespace cuda::detail {
template <class F>
__global__ void kernel_entry(F kernel) {
  const Block b = this_block();
  kernel(b);
}
}  // namespace cuda::detail

// Enqueues `grid` blocks of `kernel` on `stream`. Returns 0, SHMEMX_ERR_INVALID_ARGUMENT for
// invalid launch arguments (a cooperative grid larger than the device holds at once included),
// or SHMEMX_ERR_INTERNAL for another CUDA error; the CUDA error is printed.
template <class F>
int launch(cudaStream_t stream, int grid, F kernel, LaunchOptions opt = {}) {
  if (grid < 1 || opt.block_dim < 1 || opt.block_dim > 1024) {
    std::fprintf(stderr, "shmem::device::launch: grid=%d, block_dim=%d: grid >= 1 and block_dim 1..1024\n", grid,
                 opt.block_dim);
    return SHMEMX_ERR_INVALID_ARGUMENT;
  }
  cudaError_t e;
  if (opt.cooperative) {
    void* args[] = {&kernel};
    e = cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&cuda::detail::kernel_entry<F>), dim3(grid),
                                    dim3(opt.block_dim), args, opt.shared_bytes, stream);
  } else {
    cuda::detail::kernel_entry<F><<<grid, opt.block_dim, opt.shared_bytes, stream>>>(kernel);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) return 0;
  std::fprintf(stderr, "shmem::device::launch: %s (grid %d, block_dim %d%s)\n", cudaGetErrorString(e), grid,
               opt.block_dim, opt.cooperative ? ", cooperative" : "");
  return e == cudaErrorCooperativeLaunchTooLarge || e == cudaErrorInvalidValue || e == cudaErrorInvalidConfiguration
             ? SHMEMX_ERR_INVALID_ARGUMENT
             : SHMEMX_ERR_INTERNAL;
}

}  // namespace shmem::device
