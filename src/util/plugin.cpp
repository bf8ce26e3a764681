#include "util/plugin.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <map>
#include <mutex>

#include "base/config.hpp"
#include "base/log.hpp"

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

const char* plugin_kind_name(std::uint32_t kind) noexcept {
  switch (kind) {
    case SHMEM_PLUGIN_KIND_TRANSPORT: return "transport";
    case SHMEM_PLUGIN_KIND_BOOTSTRAP_MPI: return "bootstrap-mpi";
    case SHMEM_PLUGIN_KIND_BOOTSTRAP_PMIX: return "bootstrap-pmix";
    case SHMEM_PLUGIN_KIND_CUDA: return "cuda";
    default: return "unknown";
  }
}

namespace {

// Tables loaded so far, by path (process-wide: a dlopen handle is, and is never closed).
struct Loaded {
  std::mutex mu;
  std::map<std::string, const shmem_plugin_head*> tables;
};

Loaded& loaded() {
  static Loaded l;
  return l;
}

// The table `path` exports, checked against `spec`.
const shmem_plugin_head* open_checked(const std::string& path, const PluginSpec& spec) {
  const std::string who = std::string(spec.purpose) + ": " + path;
  void* h = ::dlopen(path.c_str(), RTLD_NOW | (spec.global ? RTLD_GLOBAL : RTLD_LOCAL));
  if (h == nullptr) {
    const char* why = ::dlerror();
    throw Error(spec.load_errc,
                std::string(spec.purpose) + ": cannot load " + path + ": " + (why ? why : "unknown dlopen error"));
  }
  auto fn = reinterpret_cast<shmem_plugin_table_fn>(::dlsym(h, SHMEM_PLUGIN_SYMBOL));
  if (fn == nullptr)
    throw Error(spec.load_errc, who + " is not a shmem plugin: it does not export " SHMEM_PLUGIN_SYMBOL "()");
  const shmem_plugin_head* t = fn();
  if (t == nullptr) throw Error(spec.load_errc, who + ": " SHMEM_PLUGIN_SYMBOL "() returned no table");
  if (t->kind != spec.kind)
    throw Error(spec.load_errc, who + " is a " + plugin_kind_name(t->kind) + " plugin (kind " +
                                    std::to_string(t->kind) + "), expected a " + plugin_kind_name(spec.kind) +
                                    " plugin (kind " + std::to_string(spec.kind) + ")");
  if (t->abi_version != spec.abi_version)
    throw Error(spec.load_errc, who + " has " + plugin_kind_name(spec.kind) + " ABI version " +
                                    std::to_string(t->abi_version) + ", expected " + std::to_string(spec.abi_version) +
                                    " (a plugin of another shmem build: reinstall it with this libshmem)");
  if (t->size < spec.size)
    throw Error(spec.load_errc, who + " has a " + std::to_string(t->size) + "-byte table, expected at least " +
                                    std::to_string(spec.size) + " (a plugin of another shmem build)");
  return t;
}

}  // namespace

const shmem_plugin_head& load_plugin(const std::string& dir, const PluginSpec& spec) {
  Loaded& l = loaded();
  const std::string path = dir + "/" + spec.file;
  std::lock_guard<std::mutex> g(l.mu);
  if (auto it = l.tables.find(path); it != l.tables.end()) return *it->second;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw Error(Errc::kNotSupported, std::string(spec.purpose) + " needs the plugin " + spec.file +
                                         ", which is not in " + dir + ": " + spec.missing_hint +
                                         "; or set SHMEM_BOOTSTRAP_PLUGIN_DIR to the directory holding it");
  const shmem_plugin_head* t = open_checked(path, spec);
  SHMEM_DEBUG_LOG("init", "loaded %s plugin %s", plugin_kind_name(spec.kind), path.c_str());
  l.tables.emplace(path, t);
  return *t;
}

}  // namespace shmem::util
