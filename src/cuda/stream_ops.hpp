#pragma once
// Stream-ordered operations on a CUDA stream, on the GPU symmetric heap of the PEs of this host:
// the work behind shmemx_*_on_stream when the stream wraps a CUDA stream. Each call only enqueues
// on `stream` (small kernels) and returns at once; the work runs in the stream's
// order, after the kernels enqueued before it and before those enqueued after.
//
//   put/get      a grid of loads and stores through the peer's mapping
//   signal       a release store or atomic add on the peer's word (a one-thread kernel)
//   wait         a one-thread kernel that waits (acquire) until the local word satisfies cmp
//   barrier      a one-thread kernel: the device counter barrier of the team's stream cell
//   collectives  an opening barrier, a kernel that pulls over the members' mappings, a closing
//                barrier; small ones are one block that passes both barriers itself (one
//                launch), larger ones a barrier kernel and a grid whose last block through
//                passes the closing barrier (stream_plan.hpp)
//   reductions   one-shot (every PE reads every member's source) up to one_shot_limit(n), else
//                two-shot (each PE reduces its chunk, a barrier, then pulls the others' reduced
//                chunks); elements are combined in member order, so every PE ends with the same
//                bits
//
// Arguments are checked by the caller (the stream layer); these return 0 or a CUDA error code
// (cudaError_t) of the enqueue. Errors inside the kernels go to the PE's status record
// (include/shmem/device/cuda/state.hpp) like any device-API error.
#include <cuda_runtime_api.h>

#include "cuda/stream_plan.hpp"

#include <cstddef>
#include <cstdint>

namespace shmem::cuda {

enum class RedOp : int { kSum, kProd, kMin, kMax, kAnd, kOr, kXor };
enum class Elem : int { kI8, kI16, kI32, kI64, kU8, kU16, kU32, kU64, kF32, kF64 };
std::size_t elem_size(Elem e) noexcept;

int put(cudaStream_t s, void* dest, const void* source, std::size_t bytes, int pe) noexcept;
int get(cudaStream_t s, void* dest, const void* source, std::size_t bytes, int pe) noexcept;
int signal(cudaStream_t s, std::uint64_t* sig, std::uint64_t value, int sig_op, int pe) noexcept;
int wait(cudaStream_t s, std::uint64_t* sig, int cmp, std::uint64_t value) noexcept;
int barrier(cudaStream_t s, const StreamTeam& t) noexcept;
int broadcast(cudaStream_t s, const StreamTeam& t, void* dest, const void* source, std::size_t bytes,
              int root) noexcept;
int fcollect(cudaStream_t s, const StreamTeam& t, void* dest, const void* source, std::size_t bytes) noexcept;
int alltoall(cudaStream_t s, const StreamTeam& t, void* dest, const void* source, std::size_t bytes) noexcept;
int reduce(cudaStream_t s, const StreamTeam& t, void* dest, const void* source, std::size_t count, Elem e,
           RedOp op) noexcept;

}  // namespace shmem::cuda
