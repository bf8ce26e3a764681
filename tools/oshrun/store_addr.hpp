#pragma once
// Where the launcher's bootstrap store listens.
#include <string>

namespace oshrun {

// A job on this host only: loopback. With a PE on another host: SHMEM_BOOTSTRAP_ADDR, else
// the IPv4 address of SHMEM_BOOTSTRAP_IFACE, else the first address of an up, non-loopback
// IPv4 interface. Throws shmem::Error(kInvalidValue / kBootstrap) naming the variable.
std::string store_bind_address(bool multi_host);

}  // namespace oshrun
