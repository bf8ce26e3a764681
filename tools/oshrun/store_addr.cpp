#include "oshrun/store_addr.hpp"

#include "base/config.hpp"
#include "base/error.hpp"
#include "util/ifaddr.hpp"

namespace oshrun {

std::string store_bind_address(bool multi_host) {
  if (!multi_host) return "127.0.0.1";
  std::string addr = shmem::config_raw("SHMEM_BOOTSTRAP_ADDR");
  if (!addr.empty()) return addr;
  auto all = shmem::util::ipv4_interfaces();
  auto names = [&] {
    std::string s;
    for (const auto& a : all) s += (s.empty() ? "" : ", ") + a.name + " " + a.address;
    return s.empty() ? std::string("none") : s;
  };
  std::string iface = shmem::config_raw("SHMEM_BOOTSTRAP_IFACE");
  if (!iface.empty()) {
    if (auto a = shmem::util::ipv4_of_interface(all, iface)) return *a;
    throw shmem::Error(shmem::Errc::kInvalidValue,
                       "SHMEM_BOOTSTRAP_IFACE=" + iface + ": no such interface with an IPv4 address "
                       "(IPv4 interfaces here: " + names() + ")");
  }
  if (auto a = shmem::util::first_external_ipv4(all)) return *a;
  throw shmem::Error(shmem::Errc::kBootstrap,
                     "the job has PEs on other hosts, but this host has no up, non-loopback IPv4 "
                     "interface for them to reach the bootstrap store on (IPv4 interfaces here: " +
                         names() + "); set SHMEM_BOOTSTRAP_ADDR or SHMEM_BOOTSTRAP_IFACE");
}

}  // namespace oshrun
