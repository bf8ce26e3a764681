#pragma once
// The machine's IPv4 interface addresses (getifaddrs), for choosing where a multi-host job's
// bootstrap store listens and for recognising this host in a host list.
#include <optional>
#include <string>
#include <vector>

namespace shmem::util {

struct InterfaceAddress {
  std::string name;     // "eth0"
  std::string address;  // "10.0.0.5"
  bool up = false;
  bool loopback = false;
};

// Every IPv4 address of every interface, in the order the kernel lists them.
// Throws Error(kInternal) when getifaddrs fails.
std::vector<InterfaceAddress> ipv4_interfaces();

// The IPv4 address of interface `name` (the first, if it has several), if it has one.
std::optional<std::string> ipv4_of_interface(const std::vector<InterfaceAddress>& all,
                                             const std::string& name);

// The first address of an up, non-loopback interface, if any.
std::optional<std::string> first_external_ipv4(const std::vector<InterfaceAddress>& all);

}  // namespace shmem::util
