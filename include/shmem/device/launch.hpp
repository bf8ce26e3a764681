#pragma once
// Launching C++ kernels (lambdas or function objects) on the CPU worker pool, ordered on a
// stream. The same kernel source can later target a GPU backend: a kernel only sees its Block
// and calls the device API.
//
//   shmem::device::launch(stream, grid, [=](const shmem::device::Block& b) {
//     shmem::device::putmem(dst + b.block_id * n, src + b.block_id * n, n, peer);
//   });
//   shmemx_stream_synchronize(stream);
//
// The function object is copied (or moved) into the launch and destroyed after its last block
// has finished, so it may capture by value freely. Each block runs with the device state cached
// for its threads (BlockBinding), so device calls make no library call.
#include "shmem/device/cxx20.hpp"  // first: refuses C++ before 20 in words
#include <exception>
#include <functional>
#include <new>
#include <utility>

#include "shmem/device/common.hpp"

namespace shmem::device {

struct LaunchOptions {
  int block_dim = 1;         // threads per block, 1 .. SHMEMX_MAX_BLOCK_DIM
  bool cooperative = false;  // every block at the same time (grid-wide sync and barriers)
};

namespace detail {
template <class Fn>
void kernel_trampoline(shmemx_block_t* blk, void* args) {
  BlockBinding bound(blk);
  try {
    std::invoke(*static_cast<Fn*>(args), static_cast<const Block&>(*blk));
  } catch (const std::exception& e) {
    shmemx_block_error(blk, SHMEMX_ERR_INTERNAL, e.what());
  } catch (...) {
    shmemx_block_error(blk, SHMEMX_ERR_INTERNAL, "a kernel threw an exception");
  }
}
template <class Fn>
void kernel_release(void* args) {
  delete static_cast<Fn*>(args);
}
}  // namespace detail

// Enqueues `grid` blocks of `kernel` on `stream` (nullptr: the default stream). `kernel` is
// callable as kernel(const Block&). Returns 0, or a negative SHMEMX_ERR_* code (nothing
// enqueued) for invalid launch arguments.
template <class F>
int launch(shmemx_stream_t stream, int grid, F&& kernel, LaunchOptions opt = {}) {
  using Fn = std::decay_t<F>;
  static_assert(std::is_invocable_v<Fn&, const Block&>, "a kernel is callable as kernel(const shmem::device::Block&)");
  Fn* fn = new (std::nothrow) Fn(std::forward<F>(kernel));
  if (fn == nullptr) return SHMEMX_ERR_OUT_OF_MEMORY;
  shmemx_launch_attr_t attr{};
  attr.grid = grid;
  attr.block_dim = opt.block_dim;
  attr.cooperative = opt.cooperative ? 1 : 0;
  attr.args_bytes = 0;
  attr.args_release = &detail::kernel_release<Fn>;
  const int rc = shmemx_launch_ex(&detail::kernel_trampoline<Fn>, fn, &attr, stream);
  if (rc != 0) delete fn;  // not enqueued: the release callback will not run
  return rc;
}

}  // namespace shmem::device
