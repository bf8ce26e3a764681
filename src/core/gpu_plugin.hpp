#pragma once
// Loads libshmem_cuda.so (plugins/cuda_plugin_abi.h) from the plugin directory, once per
// process, when a GPU heap is first asked for. The handle is never closed: the driver it loaded
// cannot be unloaded.
#include "plugins/cuda_plugin_abi.h"

namespace shmem::core {

// The plugin's table; throws Error naming the file and the reason (not built, wrong ABI).
const shmem_cuda_plugin& cuda_plugin();

}  // namespace shmem::core
