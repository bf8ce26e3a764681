#include "oshrun/hosts.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "oshrun/args.hpp"

namespace oshrun {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Host names go on the agent's command line: a leading '-' would be read as an option, and
// anything outside this set is not a host name ssh accepts either ('@' for user@host).
bool valid_host(std::string_view h) {
  if (h.empty() || h.front() == '-' || h.front() == '.') return false;
  for (char c : h) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '.' || c == '_' || c == '@';
    if (!ok) return false;
  }
  return true;
}

// "host[:slots]"; `where` prefixes the error ("--hosts entry 'x'" or "FILE:3").
HostSlots parse_entry(std::string_view entry, const std::string& where) {
  HostSlots hs;
  std::string_view host = entry;
  auto colon = entry.find(':');
  if (colon != std::string_view::npos) {
    host = entry.substr(0, colon);
    std::string count(entry.substr(colon + 1));
    char* end = nullptr;
    errno = 0;
    long v = count.empty() ? 0 : std::strtol(count.c_str(), &end, 10);
    if (count.empty() || errno != 0 || *end != '\0' || v < 1 || v > kMaxPes)
      throw UsageError(where + ": invalid slot count '" + count + "' (expected host[:n] with n from 1 to " +
                       std::to_string(kMaxPes) + ")");
    hs.slots = static_cast<int>(v);
  }
  if (!valid_host(host))
    throw UsageError(where + ": invalid host name '" + std::string(host) +
                     "' (letters, digits, '-', '.', '_', '@'; not starting with '-' or '.')");
  hs.host = std::string(host);
  return hs;
}

}  // namespace

std::vector<HostSlots> parse_host_list(std::string_view text) {
  std::vector<HostSlots> out;
  if (trim(text).empty()) throw UsageError("--hosts: empty host list (expected H1[:n1],H2[:n2],...)");
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view entry = trim(text.substr(start, comma - start));
    if (entry.empty())
      throw UsageError("--hosts '" + std::string(text) + "': empty entry (expected H1[:n1],H2[:n2],...)");
    out.push_back(parse_entry(entry, "--hosts entry '" + std::string(entry) + "'"));
    start = comma + 1;
  }
  return out;
}

std::vector<HostSlots> read_hostfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("--hostfile " + path + ": cannot read it: " + std::strerror(errno));
  std::vector<HostSlots> out;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::string_view s = line;
    s = trim(s.substr(0, s.find('#')));
    if (s.empty()) continue;
    const std::string where = "--hostfile " + path + ":" + std::to_string(lineno);
    if (s.find_first_of(" \t,") != std::string_view::npos)
      throw UsageError(where + ": '" + std::string(s) + "' is not one host[:slots]");
    out.push_back(parse_entry(s, where));
  }
  if (in.bad()) throw UsageError("--hostfile " + path + ": read error");
  if (out.empty()) throw UsageError("--hostfile " + path + ": no hosts in it");
  return out;
}

std::vector<std::size_t> place_ranks(const std::vector<HostSlots>& hosts, int npes,
                                     std::string_view source) {
  long total = 0;
  for (const auto& h : hosts) total += h.slots;
  if (total > kMaxPes)
    throw UsageError(std::string(source) + " gives " + std::to_string(total) + " slots; at most " +
                     std::to_string(kMaxPes) + " PEs can be started");
  if (npes == 0) npes = static_cast<int>(total);
  if (npes > total)
    throw UsageError("-n " + std::to_string(npes) + " needs " + std::to_string(npes) + " slots but " +
                     std::string(source) + " gives only " + std::to_string(total) +
                     " (PEs fill the hosts in order, each up to its slots)");
  std::vector<std::size_t> placement;
  placement.reserve(static_cast<std::size_t>(npes));
  for (std::size_t i = 0; i < hosts.size() && static_cast<int>(placement.size()) < npes; ++i)
    for (int s = 0; s < hosts[i].slots && static_cast<int>(placement.size()) < npes; ++s)
      placement.push_back(i);
  return placement;
}

bool is_local_host(std::string_view host, const std::string& my_hostname,
                   const std::vector<shmem::util::InterfaceAddress>& addrs) {
  if (host.find('@') != std::string_view::npos) return false;  // user@host: always through the agent
  if (host == "localhost" || host == my_hostname) return true;
  auto short_name = [](std::string_view h) { return h.substr(0, h.find('.')); };
  if (!my_hostname.empty() && short_name(host) == short_name(my_hostname) &&
      (host.find('.') == std::string_view::npos || my_hostname.find('.') == std::string::npos))
    return true;
  for (const auto& a : addrs)
    if (host == a.address) return true;
  return false;
}

std::string this_hostname() {
  char h[256] = {};
  if (::gethostname(h, sizeof h - 1) != 0) return "";
  return h;
}

}  // namespace oshrun
