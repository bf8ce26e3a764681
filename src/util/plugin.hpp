#pragma once
// Finds and loads the library's plugins (src/plugins/plugin_head.h): one loader for every kind.
// A plugin is loaded once per process and never unloaded (MPI, PMIx, UCX and the CUDA driver
// cannot be unloaded safely).
#include <cstdint>
#include <string>

#include "base/error.hpp"
#include "plugins/plugin_head.h"

namespace shmem::util {

// SHMEM_BOOTSTRAP_PLUGIN_DIR when set, else the directory of the shared object this code is
// linked into (libshmem.so in an application). Throws Error when neither can be told.
std::string plugin_dir();

struct PluginSpec {
  const char* file;                  // "libshmem_transport_ucx.so"
  std::uint32_t kind;                // SHMEM_PLUGIN_KIND_*
  std::uint32_t abi_version;         // the version this build's table has
  std::uint32_t size;                // sizeof this build's table: the plugin's may be larger, not smaller
  const char* purpose;               // what needs it, for messages: "PEs on other hosts"
  const char* missing_hint;          // why it may be missing and what to do: "built without UCX (...)"
  bool global = false;               // RTLD_GLOBAL (MPI and PMIx load components that need their symbols)
  Errc load_errc = Errc::kInternal;  // the code of every error but a missing file
};

// The table of `dir`/spec.file, checked against spec. Throws Error(kNotSupported) when the file
// is not there, Error(spec.load_errc) when it cannot be loaded (dlerror() is in the message), does
// not export SHMEM_PLUGIN_SYMBOL, or has another kind, ABI version or a smaller table; every
// message names the file, and a version mismatch both versions.
const shmem_plugin_head& load_plugin(const std::string& dir, const PluginSpec& spec);

// The kind's name for messages ("transport", "bootstrap-mpi", ...).
const char* plugin_kind_name(std::uint32_t kind) noexcept;

// The table as its kind's type (T starts with a shmem_plugin_head).
template <class T>
const T& plugin_table(const shmem_plugin_head& head) noexcept {
  return *reinterpret_cast<const T*>(&head);
}

}  // namespace shmem::util
