#include "util/ifaddr.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "base/error.hpp"

namespace shmem::util {

std::vector<InterfaceAddress> ipv4_interfaces() {
  ifaddrs* raw = nullptr;
  if (::getifaddrs(&raw) != 0)
    throw Error(Errc::kInternal, std::string("getifaddrs: ") + std::strerror(errno));
  std::unique_ptr<ifaddrs, decltype(&::freeifaddrs)> list(raw, &::freeifaddrs);
  std::vector<InterfaceAddress> out;
  for (const ifaddrs* a = list.get(); a; a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || !a->ifa_name) continue;
    char text[INET_ADDRSTRLEN] = {};
    const auto* sin = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    if (!::inet_ntop(AF_INET, &sin->sin_addr, text, sizeof text)) continue;
    out.push_back({a->ifa_name, text, (a->ifa_flags & IFF_UP) != 0,
                   (a->ifa_flags & IFF_LOOPBACK) != 0});
  }
  return out;
}

std::optional<std::string> ipv4_of_interface(const std::vector<InterfaceAddress>& all,
                                             const std::string& name) {
  for (const auto& a : all)
    if (a.name == name) return a.address;
  return std::nullopt;
}

std::optional<std::string> first_external_ipv4(const std::vector<InterfaceAddress>& all) {
  for (const auto& a : all)
    if (a.up && !a.loopback) return a.address;
  return std::nullopt;
}

}  // namespace shmem::util
