#pragma once
// The cross-host collective area at the end of every PE's heap, after the user heap (jobs of
// more than one PE): what the host leaders of a collective exchange through (coll/xhost_channel.hpp)
// and the words of the hierarchical barrier (coll/hier.hpp). Sparse like the rest of the
// heap: only the parts a job uses cost memory.
//
//   [ team slot 0 | team slot 1 | ... | team slot kMaxTeams-1 ][ active-set channel ]
//
// A team slot holds an XHeader and rings: for each other host of the team, one byte ring its
// leader writes and ours reads. The active-set channel is the same for legacy collectives,
// keyed by world PE instead of the team's host index (active sets have no slot to agree on).
#include <cstddef>
#include <cstdint>

namespace shmem {

constexpr int kXMaxHosts = 256;       // hosts a team may span (rings get smaller with more)
constexpr int kXRounds = 8;           // dissemination rounds: up to 256 PEs per host / hosts
// Team slots: the first kXBigSlots (WORLD, SHARED and the first teams a job makes: slots go
// lowest first) get 1 MiB, the others 256 KiB. A ring's size bounds how much a leader has in
// flight to another, which sets the bandwidth of large collectives over a network with a long
// round trip (one ring per round trip), so the teams most jobs use get full-size rings
// (kXMaxRingBytes) up to 4 hosts, while the area stays small for jobs that make many teams (it
// is registered with the transport).
constexpr int kXBigSlots = 8;
constexpr std::size_t kXBigSlotBytes = 1024 * 1024;
constexpr std::size_t kXSlotBytes = 256 * 1024;
constexpr std::size_t x_slot_bytes(int slot) noexcept { return slot < kXBigSlots ? kXBigSlotBytes : kXSlotBytes; }
// Offset of slot `slot` in the area (slot == the number of slots: the slots' total size).
constexpr std::size_t x_slot_start(int slot) noexcept {
  return slot <= kXBigSlots ? static_cast<std::size_t>(slot) * kXBigSlotBytes
                            : kXBigSlots * kXBigSlotBytes + static_cast<std::size_t>(slot - kXBigSlots) * kXSlotBytes;
}

// Counting words; every one is written by one other PE (remote adds or node-local atomics).
struct XHeader {
  alignas(64) std::uint64_t node_rounds[kXRounds];    // barrier among a team's PEs on this host
  alignas(64) std::uint64_t leader_rounds[kXRounds];  // barrier among the team's host leaders
  alignas(64) std::uint64_t seq[kXMaxHosts];          // bytes host h's leader put into our ring
  alignas(64) std::uint64_t ack[kXMaxHosts];          // bytes of ours host h's leader has taken
  alignas(64) std::uint64_t push[1 << kXRounds];      // small broadcasts the host's member j wrote into us
};
constexpr std::size_t kXHeaderBytes = (sizeof(XHeader) + 4095) & ~std::size_t{4095};
static_assert(kXHeaderBytes < kXSlotBytes / 2);

// A ring never exceeds this, as the active-set channel's (x_set_ring_bytes): on the namespace
// hosts of this repository's benchmark (TCP, 4 PEs on 2 CPUs) large team collectives ran up to
// 1.45x faster with 256 KiB rings than with the 1 MiB slot's whole share (1016 KiB at 2 hosts,
// 338 KiB at 4), the data a leader has in flight being cold by the time it is copied; 256 KiB
// in flight still covers 25 GB/s over a 10 us round trip.
constexpr std::size_t kXMaxRingBytes = 256 * 1024;
// Bytes of one ring when `senders` other hosts share a slot's ring area (a multiple of 64, so of
// every element size: chunks of a reduction never split an element).
constexpr std::size_t x_ring_bytes(int senders, std::size_t slot_bytes) noexcept {
  const std::size_t share =
      senders <= 0 ? 0 : ((slot_bytes - kXHeaderBytes) / static_cast<std::size_t>(senders)) & ~std::size_t{63};
  return share < kXMaxRingBytes ? share : kXMaxRingBytes;
}
static_assert(x_ring_bytes(kXMaxHosts - 1, kXSlotBytes) >= 512);

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
// 64 MiB at most (never under 64 KiB).
constexpr std::size_t x_set_ring_bytes(int n) noexcept {
  const std::size_t fair = ((std::size_t{64} << 20) / static_cast<std::size_t>(n < 1 ? 1 : n)) & ~std::size_t{4095};
  return fair > (std::size_t{256} << 10) ? (std::size_t{256} << 10) : fair < (std::size_t{64} << 10) ? (std::size_t{64} << 10) : fair;
}
constexpr std::size_t x_set_bytes(int n) noexcept {
  return x_set_header_bytes(n) + static_cast<std::size_t>(n) * x_set_ring_bytes(n);
}

}  // namespace shmem
