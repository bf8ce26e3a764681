#include "bootstrap/store_address.hpp"

#include "base/config.hpp"
#include "base/error.hpp"
#include "util/ifaddr.hpp"

namespace shmem::bootstrap {

std::string reachable_store_address(bool required) {
  if (std::string addr = config_raw("SHMEM_BOOTSTRAP_ADDR"); !addr.empty()) return addr;
  const auto all = util::ipv4_interfaces();
  auto names = [&] {
    std::string s;
    for (const auto& a : all) s += (s.empty() ? "" : ", ") + a.name + " " + a.address;
    return s.empty() ? std::string("none") : s;
  };
  if (std::string iface = config_raw("SHMEM_BOOTSTRAP_IFACE"); !iface.empty()) {
    if (auto a = util::ipv4_of_interface(all, iface)) return *a;
    throw Error(Errc::kInvalidValue, "SHMEM_BOOTSTRAP_IFACE=" + iface +
                                         ": no such interface with an IPv4 address (IPv4 interfaces here: " + names() +
                                         ")");
  }
  if (auto a = util::first_external_ipv4(all)) return *a;
  if (required)
    throw Error(Errc::kBootstrap,
                "the job has PEs on other hosts, but this host has no up, non-loopback IPv4 interface for them to "
                "reach the bootstrap store on (IPv4 interfaces here: " + names() +
                    "); set SHMEM_BOOTSTRAP_ADDR or SHMEM_BOOTSTRAP_IFACE");
  return "127.0.0.1";
}

}  // namespace shmem::bootstrap
