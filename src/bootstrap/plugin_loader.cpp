#include "bootstrap/plugin_loader.hpp"

#include "util/plugin.hpp"

namespace shmem::bootstrap {
namespace {

// Errors other than a missing file are bootstrap errors (the init that needed the plugin fails).
// RTLD_GLOBAL: MPI and PMIx libraries load components of their own that expect to find the
// library's symbols.
const shmem_plugin_head& load(util::PluginSpec spec, const std::string& purpose) {
  spec.purpose = purpose.c_str();
  spec.global = true;
  spec.load_errc = Errc::kBootstrap;
  return util::load_plugin(util::plugin_dir(), spec);
}

}  // namespace

const shmem_mpi_plugin& mpi_plugin(const std::string& purpose) {
  return util::plugin_table<shmem_mpi_plugin>(
      load({SHMEM_MPI_PLUGIN_FILE, SHMEM_PLUGIN_KIND_BOOTSTRAP_MPI, SHMEM_BOOTSTRAP_PLUGIN_ABI_VERSION,
            sizeof(shmem_mpi_plugin), nullptr,
            "this shmem was built without MPI (install an MPI, e.g. Debian's libopenmpi-dev, and rebuild)"},
           purpose));
}

const shmem_pmix_plugin& pmix_plugin(const std::string& purpose) {
  return util::plugin_table<shmem_pmix_plugin>(
      load({SHMEM_PMIX_PLUGIN_FILE, SHMEM_PLUGIN_KIND_BOOTSTRAP_PMIX, SHMEM_BOOTSTRAP_PLUGIN_ABI_VERSION,
            sizeof(shmem_pmix_plugin), nullptr,
            "this shmem was built without PMIx (install Debian's libpmix-dev and rebuild), or start the job with "
            "oshrun"},
           purpose));
}

}  // namespace shmem::bootstrap
