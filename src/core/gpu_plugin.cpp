#include "core/gpu_plugin.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <mutex>
#include <string>

#include "base/error.hpp"
#include "util/plugin_dir.hpp"

namespace shmem::core {

const shmem_cuda_plugin& cuda_plugin() {
  static std::mutex mu;
  static const shmem_cuda_plugin* table = nullptr;
  std::lock_guard<std::mutex> lock(mu);
  if (table) return *table;
  const std::string path = util::plugin_dir() + "/" + SHMEM_CUDA_PLUGIN_FILE;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw Error(Errc::kNotSupported, "this shmem was built without the CUDA backend (" + path +
                                         " is missing; configure with nvcc available or -DSHMEM_WITH_CUDA=ON), or "
                                         "set SHMEM_BOOTSTRAP_PLUGIN_DIR to the directory holding it");
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = ::dlerror();
    throw Error(Errc::kInternal, "cannot load " + path + ": " + (why ? why : "unknown dlopen error"));
  }
  auto fn = reinterpret_cast<shmem_cuda_plugin_fn>(::dlsym(h, SHMEM_CUDA_PLUGIN_SYMBOL));
  const shmem_cuda_plugin* t = fn ? fn() : nullptr;
  if (!t || t->abi_version != SHMEM_CUDA_PLUGIN_ABI_VERSION || t->size < sizeof(shmem_cuda_plugin))
    throw Error(Errc::kInternal, path + " is not a CUDA plugin of this library build (ABI version " +
                                     (t ? std::to_string(t->abi_version) : std::string("missing")) + ", expected " +
                                     std::to_string(SHMEM_CUDA_PLUGIN_ABI_VERSION) + ")");
  table = t;
  return *table;
}

}  // namespace shmem::core
