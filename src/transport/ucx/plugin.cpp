// The UCX transport's plugin table (libshmem_transport_ucx.so; transport/plugin_abi.hpp).
#include <exception>

#include "transport/plugin_abi.hpp"
#include "transport/ucx/ucx_transport.hpp"

namespace {

shmem::transport::RemoteTransport* create(const shmem::transport::Setup& setup, std::string* error) {
  try {
    return shmem::transport::ucx::create(setup).release();
  } catch (const std::exception& e) {
    *error = e.what();
  } catch (...) {
    *error = "unknown error";
  }
  return nullptr;
}

std::string probe() {
  try {
    return shmem::transport::ucx::probe();
  } catch (const std::exception& e) {
    return std::string("UCX cannot start here: ") + e.what();
  }
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const shmem_plugin_head* shmem_plugin_table() {
  using shmem::transport::PluginTable;
  static const std::string version = shmem::transport::ucx::library_version();
  static const PluginTable table{
      SHMEM_PLUGIN_HEAD(SHMEM_PLUGIN_KIND_TRANSPORT, SHMEM_TRANSPORT_PLUGIN_ABI_VERSION, PluginTable),
      SHMEM_VERSION_STRING,
      "ucx",
      version.c_str(),
      &create,
      &probe};
  return &table.head;
}
