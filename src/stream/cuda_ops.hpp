#pragma once
// On-stream operations on GPU symmetric memory of a stream that wraps a CUDA stream: they become
// kernels on the CUDA stream (the CUDA plugin's stream_op, src/cuda/stream_ops.hpp), enqueued on
// the calling thread and ordered with the CUDA stream's own work both ways. Each returns false
// when the operation is not one for this path (not a CUDA stream, or no operand in the GPU heap):
// the caller then takes the library-thread path. When it returns true the operation was enqueued,
// or its error was reported and recorded on the stream (returned by shmemx_stream_synchronize).
#include <shmemx.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "coll/reduce_ops.hpp"

namespace shmem::stream {

bool gpu_signal(const char* f, std::uint64_t* sig, std::uint64_t value, int sig_op, int pe, shmemx_stream_t s) noexcept;
bool gpu_put_signal(const char* f, void* dest, const void* source, std::size_t bytes, std::uint64_t* sig,
                    std::uint64_t value, int sig_op, int pe, shmemx_stream_t s) noexcept;
bool gpu_wait(const char* f, std::uint64_t* sig, int cmp, std::uint64_t value, shmemx_stream_t s) noexcept;
// On a CUDA stream with a GPU heap: the team's device barrier (a kernel), so later CUDA work waits too.
bool gpu_barrier(const char* f, shmem_team_t team, shmemx_stream_t s) noexcept;

enum class GpuGather : int { kBroadcast, kFcollect, kAlltoall };
bool gpu_gather(const char* f, GpuGather kind, shmem_team_t team, void* dest, const void* source, std::size_t bytes,
                int root, shmemx_stream_t s) noexcept;
// elem and op: shmem::cuda::Elem and RedOp (gpu_elem / gpu_op below); elem < 0: a type the GPU
// path does not reduce (reported when the operands are GPU memory).
bool gpu_reduce(const char* f, shmem_team_t team, void* dest, const void* source, std::size_t count, int elem, int op,
                shmemx_stream_t s) noexcept;

// shmem::cuda::Elem of T (-1: none), shmem::cuda::RedOp of a coll::Op* (stream_ops.hpp's order).
template <class T>
constexpr int gpu_elem() noexcept {
  if constexpr (std::is_same_v<T, float>)
    return 8;
  else if constexpr (std::is_same_v<T, double>)
    return 9;
  else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return (std::is_signed_v<T> ? 0 : 4) + (sizeof(T) == 1 ? 0 : sizeof(T) == 2 ? 1 : sizeof(T) == 4 ? 2 : 3);
  else
    return -1;
}
template <class Op>
constexpr int gpu_op() noexcept {
  if constexpr (std::is_same_v<Op, coll::OpSum>)
    return 0;
  else if constexpr (std::is_same_v<Op, coll::OpProd>)
    return 1;
  else if constexpr (std::is_same_v<Op, coll::OpMin>)
    return 2;
  else if constexpr (std::is_same_v<Op, coll::OpMax>)
    return 3;
  else if constexpr (std::is_same_v<Op, coll::OpAnd>)
    return 4;
  else if constexpr (std::is_same_v<Op, coll::OpOr>)
    return 5;
  else
    return 6;  // OpXor
}

}  // namespace shmem::stream
