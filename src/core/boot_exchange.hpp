#pragma once
// Where the PEs of a job run, found at init without an all-to-all through the store: every PE
// sets its NodeKey under its own key (O(N) bytes in), PE 0 reads them all (O(N)) and publishes
// one HostTable and, per host, that host's entry (HostSeen); each PE reads its host's entry
// (a host's PEs are rank ranges: one range under oshrun or torchrun), and the table reaches it
// through its host's leader, which alone reads it from the store. Pure logic here; core/boot_data_store.cpp runs the
// protocol over the store. Under a PMIx launcher every PE reads all N keys from its local PMIx
// server instead and groups them itself (core/boot_data_pmix.cpp).
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shmem::boot {

// What a PE reports: PEs can share memory only under one kernel (its boot id) and reach each
// other's abstract Unix sockets only within one network namespace; `share` is its share of
// the CPUs (core/cpus.hpp), for the kernel's oversubscription verdict.
struct NodeKey {
  std::string host, kernel, netns, share;
};
std::string encode(const NodeKey& k);
std::optional<NodeKey> decode_key(const std::string& text);

// A host: the PEs with one host name, kernel and network namespace.
struct HostEntry {
  std::string name;
  std::vector<std::pair<int, int>> ranges;  // [first, last] world PEs, ascending
  bool oversubscribed = false;              // the PEs under its kernel outnumber their CPUs
  int lowest() const noexcept { return ranges.front().first; }
  bool contains(int pe) const noexcept;
  int size() const noexcept;
};
using HostTable = std::vector<HostEntry>;  // in the order of their lowest PEs

// PE 0: groups keys[pe] by host, kernel and network namespace, with each kernel's verdict
// (cpus::pes_outnumber_cpus of the shares of every PE under it).
HostTable group_hosts(const std::vector<NodeKey>& keys);
// "H1\n" then a line per host: "name\tverdict\tranges" (ranges "0-15,32").
std::string encode(const HostTable& t);
// nullopt when malformed or when the hosts do not cover PEs 0..npes-1 exactly once.
std::optional<HostTable> decode_table(const std::string& text, int npes);
// What a PE reads of the table before its host's PEs meet (one store key per host): its host's
// entry, that host's index in the table and the number of hosts. The whole table then comes from
// the host's leader (core/runtime.cpp), so the store carries O(N) bytes, not O(N x hosts).
struct HostSeen {
  HostEntry entry;
  int index = 0;
  int count = 1;
  int next_leader = 0;     // the lowest PE of host (index + 1) % count: the leaders' ring
  bool ring_table = true;  // every host's line fits kRingEntryBytes: the ring carries the table
};
// The most a host's line may take for the leaders' ring to carry it (core/addr_table.hpp);
// PE 0 decides for all (HostSeen::ring_table), so every leader takes the same path.
constexpr std::size_t kRingEntryBytes = 252;
// A host's line of the table ("name\tverdict\tranges\n") and back (without its newline).
std::string encode_entry(const HostEntry& h);
std::optional<HostEntry> decode_entry(std::string_view line, int npes);
// The name of k's host among the store keys: a 64-bit hash of its host name, kernel and network
// namespace, in hex (a collision would show as "the host entry ... is malformed").
std::string host_key(const NodeKey& k);
// "S1 index count next_leader ring_table\n" then host h's line as in encode(HostTable).
std::string encode_seen(const HostTable& t, std::size_t h);
std::optional<HostSeen> decode_seen(const std::string& text, int npes);
// host index per PE (O(npes), local).
std::vector<int> host_index(const HostTable& t, int npes);

}  // namespace shmem::boot
