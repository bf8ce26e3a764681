#include "cuda/driver.hpp"

#include <dlfcn.h>

#include <map>
#include <memory>
#include <mutex>

namespace shmem::cuda {
namespace {

constexpr const char* kDefaultDriver = "libcuda.so.1";
constexpr int kApiLevel = 12000;  // the CUDA version whose signatures cuda.h gives these names

using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

std::unique_ptr<Driver> open_driver(const std::string& path, std::string* error) {
  void* lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = ::dlerror();
    *error = "no CUDA driver (" + std::string(why ? why : path + ": cannot be loaded") +
             "); set SHMEM_CUDA_DRIVER or run on a machine with an NVIDIA GPU";
    return nullptr;
  }
  auto get = reinterpret_cast<GetProcAddress>(::dlsym(lib, "cuGetProcAddress_v2"));
  if (!get) {
    *error = path + " has no cuGetProcAddress_v2: the CUDA driver is older than 12.0 (or not a CUDA driver)";
    return nullptr;  // the library stays loaded: unloading drivers is not supported
  }
  auto d = std::make_unique<Driver>();
  d->path = path;
  std::string missing;
  auto resolve = [&](const char* name, void** slot) {
    CUdriverProcAddressQueryResult status{};
    if (get(name, slot, kApiLevel, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status) != CUDA_SUCCESS ||
        status != CU_GET_PROC_ADDRESS_SUCCESS || *slot == nullptr)
      missing += std::string(missing.empty() ? "" : ", ") + name;
  };
#define SHMEM_CU_RESOLVE(name) resolve(#name, reinterpret_cast<void**>(&d->name));
  SHMEM_CU_FUNCS(SHMEM_CU_RESOLVE)
#undef SHMEM_CU_RESOLVE
  if (!missing.empty()) {
    *error = path + " lacks driver entry points the CUDA plugin needs: " + missing;
    return nullptr;
  }
  return d;
}

}  // namespace

const Driver* Driver::load(const std::string& requested, std::string* error) {
  // One driver per process; a different path later is refused rather than mixed in.
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<Driver>> loaded;
  const std::string path = requested.empty() ? kDefaultDriver : requested;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = loaded.find(path); it != loaded.end()) return it->second.get();
  if (!loaded.empty()) {
    *error = "the CUDA driver " + loaded.begin()->first + " is loaded already; cannot also load " + path;
    return nullptr;
  }
  auto d = open_driver(path, error);
  if (!d) return nullptr;
  return loaded.emplace(path, std::move(d)).first->second.get();
}

std::string Driver::describe(const char* call, CUresult r) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName(r, &name) != CUDA_SUCCESS || !name) name = "CUDA error";
  if (cuGetErrorString(r, &text) != CUDA_SUCCESS || !text) text = "unknown";
  return std::string(call) + ": " + name + " (" + text + ", code " + std::to_string(static_cast<int>(r)) + ")";
}

}  // namespace shmem::cuda
