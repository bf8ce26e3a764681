#pragma once
// The address a job's bootstrap store listens on when PEs on other hosts must reach it.
#include <string>

namespace shmem::bootstrap {

// SHMEM_BOOTSTRAP_ADDR when set; else the IPv4 address of SHMEM_BOOTSTRAP_IFACE (an error
// naming the interface when it has none); else the first interface that is up, not loopback
// and has an IPv4 address; else, unless `required`, 127.0.0.1 (a machine without a network:
// one host only). Throws Error naming the variable on bad settings, or (required) when there
// is no such interface.
std::string reachable_store_address(bool required = false);

}  // namespace shmem::bootstrap
