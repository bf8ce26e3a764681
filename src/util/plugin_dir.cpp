#include "util/plugin_dir.hpp"

#include <dlfcn.h>

#include "base/config.hpp"
#include "base/error.hpp"

namespace shmem::util {

std::string plugin_dir() {
  std::string dir = config_raw("SHMEM_BOOTSTRAP_PLUGIN_DIR");
  if (!dir.empty()) return dir;
  Dl_info info{};
  if (::dladdr(reinterpret_cast<const void*>(&plugin_dir), &info) == 0 || info.dli_fname == nullptr)
    throw Error(Errc::kInternal, "dladdr cannot tell where libshmem is loaded from; set SHMEM_BOOTSTRAP_PLUGIN_DIR");
  const std::string self = info.dli_fname;
  const auto slash = self.rfind('/');
  return slash == std::string::npos ? std::string(".") : self.substr(0, slash == 0 ? 1 : slash);
}

}  // namespace shmem::util
