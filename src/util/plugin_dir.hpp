#pragma once
// Where the library's plugins (bootstrap and transport modules) are looked for.
#include <string>

namespace shmem::util {

// SHMEM_BOOTSTRAP_PLUGIN_DIR when set, else the directory of the shared object this code is
// linked into (libshmem.so in an application). Throws Error when neither can be told.
std::string plugin_dir();

}  // namespace shmem::util
