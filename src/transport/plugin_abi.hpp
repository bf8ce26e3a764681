#pragma once
// The entry point of a transport plugin (libshmem_transport_<name>.so). A backend is a plugin
// so that libshmem links no network library: UCX's libucs, once loaded, installs its own
// handlers for SIGSEGV and friends, which must not change how every single-host program
// crashes. Plugins are built from the same tree as libshmem; the ABI string, which includes the
// library version, refuses any other build.
#include <string>

#include "transport/transport.hpp"

namespace shmem::transport {

struct PluginEntry {
  const char* abi;      // kPluginAbi of the build that made the plugin
  const char* name;     // "ucx"
  const char* version;  // the backend library's version ("1.13.1")
  // Returns a new transport, or nullptr with *error set.
  RemoteTransport* (*create)(const Setup& setup, std::string* error);
  // What the backend would use on this host, without peers (for shmem-info).
  std::string (*probe)();
};

#define SHMEM_TRANSPORT_PLUGIN_ABI "shmem-transport-1/" SHMEM_VERSION_STRING
using PluginEntryFn = const PluginEntry* (*)();

}  // namespace shmem::transport
