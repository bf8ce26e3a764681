// Chooses and loads the remote transport. Backends are plugins next to libshmem
// (plugin_abi.hpp says why); this file is the only place that knows their names.
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "base/config.hpp"
#include "base/error.hpp"
#include "transport/plugin_abi.hpp"
#include "transport/transport.hpp"
#include "util/plugin.hpp"

namespace shmem::transport {
namespace {

constexpr const char* kUcxPlugin = "libshmem_transport_ucx.so";

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// Environment UCX reads when it loads: set before the first load (user settings win).
void set_ucx_environment() {
  // UCX installs handlers for SIGSEGV, SIGBUS, ... when libucs loads, unless told not to:
  // a crashing PE must die of its signal as it does without UCX (the launcher reports it).
  ::setenv("UCX_HANDLE_ERRORS", "none", 0);
  ::setenv("UCX_ERROR_SIGNALS", "", 0);
  // TCP connections whose peer host stays silent (link down, no reset) fail after about
  // SHMEM_HOST_TIMEOUT, as the bootstrap store's do (util::set_keepalive); shorter outages
  // are survived.
  ::setenv("UCX_TCP_KEEPIDLE", "1s", 0);
  ::setenv("UCX_TCP_KEEPINTVL", "1s", 0);
  ::setenv("UCX_TCP_KEEPCNT", std::to_string(std::min<long long>(host_timeout_from_env().count(), 127)).c_str(), 0);
  // UCX's TCP transport emulates RMA with active messages of at most one segment (8 KiB by
  // default): a 1 MiB get came back as 128 replies, a 1 MiB put went as 128 messages each
  // answered by the target. 128 KiB segments cut that sixteenfold and doubled 1 MiB put/get
  // bandwidth between hosts (docs/performance.md, "Between hosts"). A segment holds UCX's
  // headers too, so it is 4 KiB more: then a 128 KiB put (a chunk of the collectives' leader
  // channel, half of its 256 KiB ring) is one message, not a full one and a few bytes, which
  // made large collectives between hosts 1.1-1.4x faster. Both sizes or neither: a receiver's
  // segment must hold the sender's.
  if (!::getenv("UCX_TCP_TX_SEG_SIZE") && !::getenv("UCX_TCP_RX_SEG_SIZE")) {
    ::setenv("UCX_TCP_TX_SEG_SIZE", "132K", 1);
    ::setenv("UCX_TCP_RX_SEG_SIZE", "132K", 1);
  }
}

constexpr util::PluginSpec kUcxSpec{
    kUcxPlugin,
    SHMEM_PLUGIN_KIND_TRANSPORT,
    SHMEM_TRANSPORT_PLUGIN_ABI_VERSION,
    sizeof(PluginTable),
    "PEs on other hosts (the UCX transport)",  // "... needs the plugin ..."
    "this shmem was built without UCX (Debian: apt-get install libucx-dev, then rebuild)"};

// Loads the UCX plugin (once per process: the handle is never closed, as UCX cannot be
// unloaded safely) and returns its table.
const PluginTable& ucx_plugin(const std::string& dir) {
  set_ucx_environment();
  const auto& t = util::plugin_table<PluginTable>(util::load_plugin(dir, kUcxSpec));
  if (std::string_view(t.build) != SHMEM_VERSION_STRING)
    throw Error(Errc::kInternal, dir + "/" + kUcxPlugin + " was built with shmem " + t.build + ", this is shmem " +
                                     SHMEM_VERSION_STRING + " (reinstall the plugin with this libshmem)");
  return t;
}

}  // namespace

std::vector<std::string> probe_remote(const std::string& dir) {
  const std::string path = dir + "/" + kUcxPlugin;
  if (!exists(path)) return {"ucx: not built (" + path + " is missing; Debian: apt-get install libucx-dev, rebuild)"};
  try {
    const PluginTable& e = ucx_plugin(dir);
    return {"ucx " + std::string(e.version) + " (" + path + "): " + e.probe()};
  } catch (const Error& err) {
    return {std::string("ucx: ") + err.what()};
  }
}

std::unique_ptr<RemoteTransport> create_remote(TransportMode which, const Setup& setup) {
  if (which == TransportMode::kNone)
    throw Error(Errc::kNotSupported,
                "PEs of this job run on different hosts, but SHMEM_TRANSPORT=none allows node-local PEs only");
  const PluginTable& e = ucx_plugin(util::plugin_dir());
  std::string error;
  RemoteTransport* t = e.create(setup, &error);
  if (!t) throw Error(Errc::kBootstrap, "the UCX transport (UCX " + std::string(e.version) + ") failed to start: " + error);
  return std::unique_ptr<RemoteTransport>(t);
}

}  // namespace shmem::transport
