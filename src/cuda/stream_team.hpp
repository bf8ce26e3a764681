#pragma once
// The team of a stream collective on a CUDA stream (stream_ops.hpp), shared by the host code that
// fills it and the kernels that read it. No CUDA headers: the unit tests build it as plain C++.
#if defined(__CUDACC__)
#define SHMEM_CUDA_HD __host__ __device__
#else
#define SHMEM_CUDA_HD
#endif

namespace shmem::cuda {

// Its members as world PEs in device memory (members[i] is team PE i), this PE's index, and the
// device-barrier cell the stream operations of the team use (kept apart from the cells of device
// barriers in kernels).
struct StreamTeam {
  int n = 1;
  int me = 0;
  int slot = 0;
  const int* members = nullptr;  // device memory, n entries; nullptr: the world (member i = PE i)
};

// Team member i as a world PE.
SHMEM_CUDA_HD inline int member(const StreamTeam& t, int i) { return t.members ? t.members[i] : i; }

}  // namespace shmem::cuda
