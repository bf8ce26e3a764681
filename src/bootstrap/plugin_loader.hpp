#pragma once
// The bootstrap plugins (plugins/bootstrap_plugin_abi.h): shared libraries that link MPI or PMIx
// so that libshmem does not have to, loaded by util::load_plugin (util/plugin.hpp) from next to
// libshmem.so, or from SHMEM_BOOTSTRAP_PLUGIN_DIR when that is set.
#include <string>

#include "plugins/bootstrap_plugin_abi.h"

namespace shmem::bootstrap {

// The plugins' function tables. Each is loaded once per process and never unloaded (an MPI or
// PMIx library cannot be unloaded safely). `purpose` names what needs it, for messages.
// Throws Error(kNotSupported) when the file is not there (the library was built without MPI or
// PMIx), Error(kBootstrap) when it cannot be loaded (dlerror() is in the message), is of another
// kind or has another ABI version.
const shmem_mpi_plugin& mpi_plugin(const std::string& purpose);
const shmem_pmix_plugin& pmix_plugin(const std::string& purpose);

}  // namespace shmem::bootstrap
