#pragma once
// Host lists (--hosts, --hostfile), placing ranks on them, and telling this host from others.
#include <string>
#include <string_view>
#include <vector>

#include "util/ifaddr.hpp"

namespace oshrun {

struct HostSlots {
  std::string host;
  int slots = 1;
};

// "h1:2,h2,h3:4" (a host without ":n" has one slot). Throws UsageError naming the entry.
std::vector<HostSlots> parse_host_list(std::string_view text);

// One "host[:slots]" a line; '#' starts a comment; blank lines are skipped. Throws
// UsageError naming FILE:LINE (or why the file cannot be read).
std::vector<HostSlots> read_hostfile(const std::string& path);

// The rule: ranks fill the hosts in the order listed, each host up to its slots (h1:2,h2:2
// puts ranks 0,1 on h1 and 2,3 on h2). npes == 0 means one PE per slot; npes may be below
// the total (the last slots stay unused) but not above it. Returns the host index of each
// rank. Throws UsageError naming `source` (the option) otherwise.
std::vector<std::size_t> place_ranks(const std::vector<HostSlots>& hosts, int npes,
                                     std::string_view source);

// True when `host` names this machine: "localhost", its hostname (also the part before the
// first '.' of either), or one of its own IPv4 addresses.
bool is_local_host(std::string_view host, const std::string& my_hostname,
                   const std::vector<shmem::util::InterfaceAddress>& addrs);

std::string this_hostname();

}  // namespace oshrun
