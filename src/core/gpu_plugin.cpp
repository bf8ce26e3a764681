#include "core/gpu_plugin.hpp"

#include "util/plugin.hpp"

namespace shmem::core {

namespace {

constexpr util::PluginSpec kSpec{
    SHMEM_CUDA_PLUGIN_FILE,
    SHMEM_PLUGIN_KIND_CUDA,
    SHMEM_CUDA_PLUGIN_ABI_VERSION,
    sizeof(shmem_cuda_plugin),
    "GPU memory",
    "this shmem was built without the CUDA backend (configure with nvcc available or -DSHMEM_WITH_CUDA=ON)"};

}  // namespace

const shmem_cuda_plugin& cuda_plugin() {
  return util::plugin_table<shmem_cuda_plugin>(util::load_plugin(util::plugin_dir(), kSpec));
}

}  // namespace shmem::core
