#include "bootstrap/store_address.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <memory>

#include "base/config.hpp"
#include "base/error.hpp"

namespace shmem::bootstrap {
namespace {

struct IfaddrsDeleter {
  void operator()(ifaddrs* p) const noexcept { freeifaddrs(p); }
};

std::string ipv4(const sockaddr* sa) {
  char buf[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, buf, sizeof buf);
  return buf;
}

}  // namespace

std::string reachable_store_address() {
  if (std::string addr = config_raw("SHMEM_BOOTSTRAP_ADDR"); !addr.empty()) return addr;
  const std::string iface = config_raw("SHMEM_BOOTSTRAP_IFACE");
  ifaddrs* raw = nullptr;
  if (getifaddrs(&raw) != 0) throw Error(Errc::kBootstrap, "getifaddrs failed: cannot list network interfaces");
  std::unique_ptr<ifaddrs, IfaddrsDeleter> list(raw);
  std::string names;
  for (const ifaddrs* i = list.get(); i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    if (!names.empty()) names += ", ";
    names += i->ifa_name;
    if (!iface.empty()) {
      if (iface == i->ifa_name) return ipv4(i->ifa_addr);
      continue;
    }
    if ((i->ifa_flags & IFF_UP) && !(i->ifa_flags & IFF_LOOPBACK)) return ipv4(i->ifa_addr);
  }
  if (!iface.empty())
    throw Error(Errc::kInvalidValue, "SHMEM_BOOTSTRAP_IFACE=" + iface +
                                         ": no such interface with an IPv4 address (interfaces with one: " +
                                         (names.empty() ? std::string("none") : names) + ")");
  return "127.0.0.1";
}

}  // namespace shmem::bootstrap
