#include "bootstrap/plugin_loader.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstddef>
#include <map>
#include <mutex>

#include "base/config.hpp"
#include "base/error.hpp"
#include "base/log.hpp"
#include "util/plugin_dir.hpp"

namespace shmem::bootstrap {
namespace {

struct Loaded {
  std::mutex mu;
  std::map<std::string, const void*> tables;  // file name -> table (handles are never closed)
};

Loaded& loaded() {
  static Loaded l;
  return l;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// The table `symbol` of `file` returns, checked for our ABI version.
const void* load(const char* file, const char* symbol, const std::string& purpose, const char* missing_hint) {
  Loaded& l = loaded();
  std::lock_guard<std::mutex> g(l.mu);
  if (auto it = l.tables.find(file); it != l.tables.end()) return it->second;
  const std::string dir = plugin_dir();
  const std::string path = dir + "/" + file;
  if (!exists(path))
    throw Error(Errc::kNotSupported, purpose + " needs the plugin " + file + ", which is not in " + dir + ": " +
                                         missing_hint + "; or set SHMEM_BOOTSTRAP_PLUGIN_DIR to the directory holding it");
  // RTLD_GLOBAL: MPI and PMIx libraries load components of their own that expect to find the
  // library's symbols.
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (h == nullptr) {
    const char* why = ::dlerror();
    throw Error(Errc::kBootstrap, purpose + ": cannot load " + path + ": " + (why ? why : "unknown dlopen error"));
  }
  using TableFn = const unsigned* (*)();  // every table starts with its abi_version
  auto fn = reinterpret_cast<TableFn>(::dlsym(h, symbol));
  const unsigned* table = fn ? fn() : nullptr;
  if (table == nullptr || *table != SHMEM_BOOTSTRAP_PLUGIN_ABI_VERSION)
    throw Error(Errc::kBootstrap, purpose + ": " + path + " is not a bootstrap plugin of this library version (" +
                                      (table ? "ABI version " + std::to_string(*table) : std::string("no ") + symbol) +
                                      ", expected " + std::to_string(SHMEM_BOOTSTRAP_PLUGIN_ABI_VERSION) + ")");
  SHMEM_DEBUG_LOG("init", "loaded bootstrap plugin %s", path.c_str());
  l.tables.emplace(file, table);
  return table;
}

}  // namespace

std::string plugin_dir() { return util::plugin_dir(); }

const shmem_mpi_plugin& mpi_plugin(const std::string& purpose) {
  static_assert(offsetof(shmem_mpi_plugin, abi_version) == 0);
  return *static_cast<const shmem_mpi_plugin*>(
      load(SHMEM_MPI_PLUGIN_FILE, SHMEM_MPI_PLUGIN_SYMBOL, purpose,
           "this shmem was built without MPI (install an MPI, e.g. Debian's libopenmpi-dev, and rebuild)"));
}

const shmem_pmix_plugin& pmix_plugin(const std::string& purpose) {
  static_assert(offsetof(shmem_pmix_plugin, abi_version) == 0);
  return *static_cast<const shmem_pmix_plugin*>(
      load(SHMEM_PMIX_PLUGIN_FILE, SHMEM_PMIX_PLUGIN_SYMBOL, purpose,
           "this shmem was built without PMIx (install Debian's libpmix-dev and rebuild), or start the job with "
           "oshrun"));
}

}  // namespace shmem::bootstrap
