#pragma once
// The table of a transport plugin (libshmem_transport_<name>.so), found by the one symbol every
// plugin exports (plugins/plugin_head.h). A backend is a plugin so that libshmem links no
// network library: UCX's libucs, once loaded, installs its own handlers for SIGSEGV and friends,
// which must not change how every single-host program crashes. The table passes C++ types
// (Setup, RemoteTransport), so plugins are built from the same tree as libshmem: besides the
// head's ABI version, `build` (the library version) refuses any other build.
#include <string>

#include "plugins/plugin_head.h"
#include "transport/transport.hpp"

// 2: the common head and shmem_plugin_table() replaced the ABI string and shmem_transport_plugin().
#define SHMEM_TRANSPORT_PLUGIN_ABI_VERSION 2u

namespace shmem::transport {

struct PluginTable {
  shmem_plugin_head head;  // SHMEM_PLUGIN_KIND_TRANSPORT, SHMEM_TRANSPORT_PLUGIN_ABI_VERSION
  const char* build;       // SHMEM_VERSION_STRING of the build that made the plugin
  const char* name;        // "ucx"
  const char* version;     // the backend library's version ("1.13.1")
  // Returns a new transport, or nullptr with *error set.
  RemoteTransport* (*create)(const Setup& setup, std::string* error);
  // What the backend would use on this host, without peers (for shmem-info).
  std::string (*probe)();
};

}  // namespace shmem::transport
