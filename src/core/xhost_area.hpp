#pragma once
// The cross-host collective area at the end of every PE's heap, after the user heap (jobs of
// more than one PE): what the host leaders of a collective exchange through (coll/xhost_channel.hpp)
// and the words of the hierarchical barrier (coll/hier.hpp). Sparse like the rest of the
// heap: only the parts a job uses cost memory.
//
//   [ team slot 0 | team slot 1 | ... | team slot kMaxTeams-1 ][ active-set channel ]
//
// A team slot holds counting words and rings (XSlotMap): for each other host of the team, one
// byte ring its leader writes and ours reads. The active-set channel is the same for legacy collectives,
// keyed by world PE instead of the team's host index (active sets have no slot to agree on).
#include <cstddef>
#include <cstdint>

namespace shmem {

// Team slots: the first kXBigSlots (WORLD, SHARED and the first teams a job makes: slots go
// lowest first) get 1 MiB, the others 256 KiB. A ring's size bounds how much a leader has in
// flight to another, which sets the bandwidth of large collectives over a network with a long
// round trip (one ring per round trip), so the teams most jobs use get full-size rings
// (kXMaxRingBytes) up to 4 hosts, while the area stays small for jobs that make many teams (it
// is registered with the transport). Jobs large enough to span many hosts get bigger slots
// (x_area_plan), so that a ring never falls below kXMinRingBytes up to kXMaxHosts hosts.
constexpr int kXBigSlots = 8;
constexpr std::size_t kXBigSlotBytes = 1024 * 1024;
constexpr std::size_t kXSlotBytes = 256 * 1024;

// A ring never exceeds this, as the active-set channel's (x_set_ring_bytes): on the namespace
// hosts of this repository's benchmark (TCP, 4 PEs on 2 CPUs) large team collectives ran up to
// 1.45x faster with 256 KiB rings than with the 1 MiB slot's whole share (1016 KiB at 2 hosts,
// 338 KiB at 4), the data a leader has in flight being cold by the time it is copied; 256 KiB
// in flight still covers 25 GB/s over a 10 us round trip.
constexpr std::size_t kXMaxRingBytes = 256 * 1024;
// Nor falls below this (16 chunks of 64 bytes in flight; the channel needs at least 128).
constexpr std::size_t kXMinRingBytes = 1024;
// The hosts a team may span that every job's area is sized for (x_area_plan); a job that spans
// more is refused at shmem_init, naming its layout (Team's constructor).
constexpr int kXMaxHosts = 1024;

// Dissemination rounds among n members: ceil(log2 n).
constexpr int x_rounds(long long n) noexcept {
  int r = 0;
  while ((1LL << r) < n) ++r;
  return r;
}
// Bytes of one ring when `senders` other hosts share `ring_area` bytes (a multiple of 64, so of
// every element size: chunks of a reduction never split an element); at most kXMaxRingBytes.
constexpr std::size_t x_ring_bytes(int senders, std::size_t ring_area) noexcept {
  const std::size_t share = senders <= 0 ? 0 : (ring_area / static_cast<std::size_t>(senders)) & ~std::size_t{63};
  return share < kXMaxRingBytes ? share : kXMaxRingBytes;
}

// The map of one team slot, from the team's layout (every member computes the same one: it
// depends on the team's number of hosts, the most members one host has, and the slot's size).
// Counting words, every one written by one other PE (remote adds or node-local atomics), each
// array on cache lines of its own; then, from `header` on, for each other host of the team one
// byte ring of `ring` bytes that its leader writes and ours reads.
struct XSlotMap {
  std::size_t node_rounds = 0;    // [x_rounds(max_local)]: barrier among a team's PEs on this host
  std::size_t leader_rounds = 0;  // [x_rounds(hosts)]: barrier among the team's host leaders
  std::size_t seq = 0;            // [hosts]: bytes host h's leader put into our ring
  std::size_t ack = 0;            // [hosts]: bytes of ours host h's leader has taken
  std::size_t push = 0;           // [max_local]: small broadcasts the host's member j wrote into us
  std::size_t header = 0;         // bytes before the rings (a multiple of 4096)
  std::size_t ring = 0;           // bytes of one ring (a multiple of 64)
  // The layout fits the slot: every ring holds at least kXMinRingBytes.
  bool fits() const noexcept { return ring >= kXMinRingBytes; }
};
constexpr std::size_t x_lines(long long words) noexcept {
  return (static_cast<std::size_t>(words) * sizeof(std::uint64_t) + 63) & ~std::size_t{63};
}
constexpr XSlotMap x_slot_map(int hosts, int max_local, std::size_t slot_bytes) noexcept {
  XSlotMap m;
  std::size_t at = 0;
  m.node_rounds = at;
  at += x_lines(x_rounds(max_local));
  m.leader_rounds = at;
  at += x_lines(x_rounds(hosts));
  m.seq = at;
  at += x_lines(hosts);
  m.ack = at;
  at += x_lines(hosts);
  m.push = at;
  at += x_lines(max_local);
  m.header = (at + 4095) & ~std::size_t{4095};
  m.ring = x_ring_bytes(hosts - 1, slot_bytes > m.header ? slot_bytes - m.header : 0);
  return m;
}

// The sizes of the team slots of a job of npes PEs, fixed when its heap is made (before the
// hosts are known): the nominal sizes above, each grown where needed so that any team of the
// job spanning up to kXMaxHosts hosts fits (x_slot_map(...).fits()). A team's header grows with
// its hosts and with the members of its largest host, which together are at most npes + 1,
// and its rings with its hosts: the largest team spans min(npes, kXMaxHosts) hosts with the
// remaining PEs on one of them.
struct XAreaPlan {
  std::size_t big = kXBigSlotBytes;  // slots below kXBigSlots
  std::size_t small = kXSlotBytes;   // the others
  std::size_t slot_bytes(int slot) const noexcept { return slot < kXBigSlots ? big : small; }
  // Offset of slot `slot` in the area (slot == the number of slots: the slots' total size).
  std::size_t slot_start(int slot) const noexcept {
    return slot <= kXBigSlots ? static_cast<std::size_t>(slot) * big
                              : kXBigSlots * big + static_cast<std::size_t>(slot - kXBigSlots) * small;
  }
};
constexpr std::size_t x_slot_need(int npes) noexcept {
  const int hosts = npes < kXMaxHosts ? npes : kXMaxHosts;
  if (hosts < 2) return 0;
  const XSlotMap worst = x_slot_map(hosts, npes - hosts + 1, 0);
  return (worst.header + static_cast<std::size_t>(hosts - 1) * kXMinRingBytes + 4095) & ~std::size_t{4095};
}
constexpr XAreaPlan x_area_plan(int npes) noexcept {
  XAreaPlan p;
  const std::size_t need = x_slot_need(npes);
  if (p.big < need) p.big = need;
  if (p.small < need) p.small = need;
  return p;
}
static_assert(x_area_plan(2).big == kXBigSlotBytes && x_area_plan(2).small == kXSlotBytes);

// One PE's counters for one other leader of a channel, in bytes over the channel's life: what
// it put into that leader's ring, took out of its own ring from that leader, and acknowledged.
struct XPair {
  std::uint64_t sent = 0, taken = 0, acked = 0;
};

// The active-set channel for a job of n PEs: seq[n] and ack[n] words, then a ring per sender.
constexpr std::size_t x_set_header_bytes(int n) noexcept {
  return (2 * static_cast<std::size_t>(n) * sizeof(std::uint64_t) + 4095) & ~std::size_t{4095};
}
// Its ring per sender: 256 KiB up to 256 PEs, then shrinking so that the rings of a job take
// 64 MiB at most (never under 4 KiB: 64 KiB up to 1024 PEs, 4 KiB at 16384).
constexpr std::size_t x_set_ring_bytes(int n) noexcept {
  const std::size_t fair = ((std::size_t{64} << 20) / static_cast<std::size_t>(n < 1 ? 1 : n)) & ~std::size_t{4095};
  return fair > (std::size_t{256} << 10) ? (std::size_t{256} << 10)
         : fair < (std::size_t{4} << 10) ? (std::size_t{4} << 10)
                                         : fair;
}
constexpr std::size_t x_set_bytes(int n) noexcept {
  return x_set_header_bytes(n) + static_cast<std::size_t>(n) * x_set_ring_bytes(n);
}

}  // namespace shmem
