#pragma once
// The device API in CUDA kernels (what include/shmem/device/device.hpp includes when nvcc
// compiles): the names of the CPU device API as __device__ functions on the GPU symmetric heap,
// plus warp forms. See docs/cuda.md.
//
//   state.hpp   the GPU state contract with the library's CUDA plugin
//   common.hpp  the state's copy in constant memory, translation, errors, memory model, backoff
//   rma.hpp     my_pe, n_pes, ptr, this_block, put/get/p/g (+_nbi), iput/iget, *_block, *_warp
//   signal.hpp  signal_op, putmem_signal (+_nbi, _block, _warp), signal_fetch, wait_until, test
//   amo.hpp     atomic_fetch/set/swap/compare_swap/fetch_add/add/fetch_inc/inc/fetch_and/...
//   sync.hpp    fence, quiet, barrier/sync at thread, block and grid scope, team queries
//   launch.hpp  launch(cuda_stream, grid, __device__ lambda, {block_dim, cooperative})
#include "shmem/device/cuda/amo.hpp"
#include "shmem/device/cuda/common.hpp"
#include "shmem/device/cuda/launch.hpp"
#include "shmem/device/cuda/rma.hpp"
#include "shmem/device/cuda/signal.hpp"
#include "shmem/device/cuda/state.hpp"
#include "shmem/device/cuda/sync.hpp"
