#pragma once
// The in-kernel ("device") API: header-only, inline, noexcept functions that kernel code calls
// from many threads at once, without locks or allocation. Kernels run on the CPU worker pool
// (shmem::device::launch or shmemx_launch) and address every node-local PE's symmetric memory
// directly; operations on PEs of other hosts go out of line through the library (remote.hpp).
// See docs/streams.md.
//
//   rma.hpp     my_pe, n_pes, ptr, put/get/p/g, putmem/getmem (+_nbi), iput/iget, *_block forms
//   signal.hpp  putmem_signal (+_nbi, _block), signal_op, signal_fetch, signal_wait_until,
//               wait_until, test
//   amo.hpp     atomic_fetch/set/swap/compare_swap/fetch_add/add/fetch_inc/inc/fetch_and/...
//   sync.hpp    quiet, fence, barrier/sync at thread, block and grid scope, team queries
//   launch.hpp  launch(stream, grid, kernel, {block_dim, cooperative})
//   aclshmem_device.hpp  Ascend SHMEM's device names (aclshmem_*), mapped onto these
//   remote.hpp  (internal) the library's entry points for PEs on other hosts
//   cuda/       the same API in CUDA kernels, chosen when nvcc compiles (docs/cuda.md)
#if defined(__CUDACC__)
// Compiled by nvcc: the same names as __device__ functions for CUDA kernels on the GPU heap.
#include "shmem/device/cuda/device.hpp"
#else
#include "shmem/device/amo.hpp"
#include "shmem/device/common.hpp"
#include "shmem/device/launch.hpp"
#include "shmem/device/rma.hpp"
#include "shmem/device/signal.hpp"
#include "shmem/device/state.hpp"
#include "shmem/device/sync.hpp"
#endif
