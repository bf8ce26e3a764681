#pragma once
// Every PE's transport address without an all-to-all through the store (issue 30). A PE still
// publishes its blob to the store (O(1) bytes each), but a peer's blob is read from a table
// that each host's leader (its lowest PE) holds in its heap segment, after the leaders have
// passed their hosts' blobs round a ring over the transport at init:
// - each PE writes its blob into its slot of its leader's table (mapped: node-local) and counts
//   itself in; the leader waits for its host's PEs;
// - in H - 1 steps the leader of host h puts the slots of host (h - k) mod H to the next host's
//   leader, then adds one to its "received" word; before step k + 1 it waits until its own
//   "received" word shows the previous host's step k;
// - the leader marks its table done; from then on every PE of the host reads peers' blobs there.
// The ring also carries each host's line of the host table (when every line fits an entry), and
// the leader hands the assembled table to its PEs in the text area (put_hosts / wait_hosts).
// So the store carries O(N) bytes (each PE's blob in, one fetch for the probe endpoint and one
// per leader for its ring neighbour) instead of a fetch per pair that talks, and the transport
// carries N blobs per host. A blob larger than a slot, a PE asked for before its host's table
// is done, or hosts not placed as the host table says: the store, as before.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/boot_exchange.hpp"
#include "transport/transport.hpp"

namespace shmem {
class Runtime;
namespace addr {

constexpr std::size_t kSlotBytes = 1024;   // per PE: a 4-byte length, then the blob
constexpr std::size_t kHeaderBytes = 256;  // four cache lines
constexpr std::uint32_t kTooBig = 0xffffffffu;

struct Header {
  alignas(64) std::uint64_t published;  // this host's PEs that wrote their slot (node-local adds)
  alignas(64) std::uint64_t received;   // ring steps the previous host's leader has delivered
  alignas(64) std::uint64_t done;       // 1: every slot is filled
  // The host table, which the leader has from the ring (or the store) and hands its host's PEs
  // in the text area after the host lines: 0 not yet, 1 there (hosts_len bytes), 2 too big for
  // the area (the PEs read the store).
  alignas(64) std::uint64_t hosts_ready;
  std::uint64_t hosts_len;
};
static_assert(sizeof(Header) == kHeaderBytes);

// Per host (hosts <= PEs), the host's line of the host table, which the ring carries too when
// every line fits (boot::HostSeen::ring_table): a 4-byte length, then the line.
constexpr std::size_t kEntryBytes = 4 + boot::kRingEntryBytes;
// Bytes of the table for npes PEs (0 for a single PE): header, slots, host lines, table text.
std::size_t table_bytes(int npes) noexcept;
// Room for the host table's text: a line per host of at most a 64-byte name, the verdict and
// its ranges, and hosts <= PEs.
inline std::size_t hosts_capacity(int npes) noexcept { return 4096 + static_cast<std::size_t>(npes) * 96; }
// Slot `pe` of a table.
inline char* slot(char* table, int pe) noexcept {
  return table + kHeaderBytes + static_cast<std::size_t>(pe) * kSlotBytes;
}
// Host h's line of a table for npes PEs (after the last slot).
inline char* entry(char* table, int npes, int h) noexcept {
  return slot(table, npes) + static_cast<std::size_t>(h) * kEntryBytes;
}
// Writes blob into a slot; a blob that does not fit is marked kTooBig (readers use the store).
// Returns the bytes of the slot that carry it (what the ring forwards).
// (`cap`: the slot's size, kSlotBytes or kEntryBytes.)
std::size_t write_slot(char* s, std::string_view blob, std::size_t cap = kSlotBytes) noexcept;
// The bytes of a slot that carry its content (4 + length; 4 when empty or too big).
std::size_t used_bytes(const char* s, std::size_t cap = kSlotBytes) noexcept;
// The blob in a slot; nullopt when empty or too big.
std::optional<std::string> read_slot(const char* s, std::size_t cap = kSlotBytes);
// The host whose slots the leader of host h forwards in ring step k (0 <= k < nhosts - 1).
inline int ring_block(int h, int k, int nhosts) noexcept { return ((h - k) % nhosts + nhosts) % nhosts; }

// The transport's exchange: publish also fills this PE's slot of its leader's table (the first
// tag published only: the transport's address), fetch reads the table once it is done.
class TableExchange final : public transport::Exchange {
 public:
  // table: this host's leader's table as mapped here; nullptr: the store alone.
  TableExchange(transport::Exchange& store, char* table, int me) noexcept : store_(store), table_(table), me_(me) {}
  void publish(const std::string& tag, const std::string& mine) override;
  std::string fetch(const std::string& tag, int pe) override;
  // Fetches served by the store (for the log at finalize and the tests).
  std::uint64_t store_fetches() const noexcept;

 private:
  transport::Exchange& store_;
  char* table_;
  int me_;
  std::string tag_;               // the tag the table holds (set once by the first publish, before any fetch)
  std::atomic<std::uint64_t> from_store_{0};
};

// The leader: hands its host's PEs the host table's text (marks it too big when it is).
void put_hosts(char* table, int npes, const std::string& text) noexcept;
// Another PE of the host: waits for the leader's put_hosts; nullopt when the text was too big.
std::optional<std::string> wait_hosts(Runtime& rt, char* table, int npes);

// The host leaders' ring (the leader of each host calls it, after its transport exists; other
// PEs do not). table: this leader's table; table_off: its offset in the heap segment, the same
// on every PE. With `hosts` (the whole host table, where the leader has it) the ring carries
// the addresses; without, also each host's line (`mine` is this leader's host), and
// ring_hosts() then reads the table from them. Waits end the job with a message past
// SHMEM_WAIT_TIMEOUT.
struct Ring {
  int my_host = 0, nhosts = 1, next_leader = 0;
  const boot::HostEntry* mine = nullptr;
  const boot::HostTable* hosts = nullptr;
};
void share(Runtime& rt, transport::RemoteTransport& remote, const Ring& ring, char* table, int npes,
           std::uint64_t table_off);
// After a share() without `hosts`: the host table from the lines; nullopt when they do not make
// one (a line malformed or missing, PEs not covered exactly once).
std::optional<boot::HostTable> ring_hosts(char* table, int npes, int nhosts);

}  // namespace addr
}  // namespace shmem
