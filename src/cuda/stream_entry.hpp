#pragma once
// The plugin's stream_op (plugins/cuda_plugin_abi.h): one shmem_cuda_stream_op onto the kernels of
// stream_ops.hpp. The caller made the device's primary context current.
#include <string>

#include "plugins/cuda_plugin_abi.h"

namespace shmem::cuda {

// Enqueues op on `stream` (a CUstream); false with *error naming the CUDA error of the enqueue.
bool stream_op(void* stream, const shmem_cuda_stream_op& op, std::string* error);

}  // namespace shmem::cuda
