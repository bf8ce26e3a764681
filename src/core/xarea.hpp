#pragma once
// The cross-host collective area at the end of every PE's heap, after the user heap (jobs of
// more than one PE): what the host leaders of a collective exchange through (core/xchan.hpp)
// and the words of the hierarchical barrier (core/coll_hier.hpp). Sparse like the rest of the
// heap: only the parts a job uses cost memory.
//
//   [ team slot 0 | team slot 1 | ... | team slot kMaxTeams-1 ][ active-set channel ]
//
// A team slot holds an XHeader and boxes: for each other host of the team, kXDepth boxes its
// leader writes and ours reads. The active-set channel is the same for legacy collectives,
// keyed by world PE instead of the team's host index (active sets have no slot to agree on).
#include <cstddef>
#include <cstdint>

namespace shmem {

constexpr int kXMaxHosts = 256;       // hosts a team may span (boxes get smaller with more)
constexpr int kXDepth = 2;            // boxes per sender: a sender may be this many chunks ahead
constexpr int kXRounds = 8;           // dissemination rounds: up to 256 PEs per host / hosts
constexpr std::size_t kXSlotBytes = 256 * 1024;
constexpr std::size_t kXSetBoxBytes = 32 * 1024;

// Counting words; every one is written by one other PE (remote adds or node-local atomics).
struct XHeader {
  alignas(64) std::uint64_t node_rounds[kXRounds];    // barrier among a team's PEs on this host
  alignas(64) std::uint64_t leader_rounds[kXRounds];  // barrier among the team's host leaders
  alignas(64) std::uint64_t seq[kXMaxHosts];          // chunks host h's leader put into our boxes
  alignas(64) std::uint64_t ack[kXMaxHosts];          // chunks of ours host h's leader has taken
};
constexpr std::size_t kXHeaderBytes = (sizeof(XHeader) + 4095) & ~std::size_t{4095};
static_assert(kXHeaderBytes < kXSlotBytes / 2);

// Bytes of one box when `senders` other hosts share a slot's box area (a multiple of 64, so of
// every element size: chunks of a reduction never split an element).
constexpr std::size_t x_box_bytes(int senders) noexcept {
  return senders <= 0 ? 0 : ((kXSlotBytes - kXHeaderBytes) / (static_cast<std::size_t>(senders) * kXDepth)) & ~std::size_t{63};
}
static_assert(x_box_bytes(kXMaxHosts - 1) >= 256);

// The active-set channel for a job of n PEs: seq[n] and ack[n] words, then boxes [sender][depth].
constexpr std::size_t x_set_header_bytes(int n) noexcept {
  return (2 * static_cast<std::size_t>(n) * sizeof(std::uint64_t) + 4095) & ~std::size_t{4095};
}
constexpr std::size_t x_set_bytes(int n) noexcept {
  return x_set_header_bytes(n) + static_cast<std::size_t>(n) * kXDepth * kXSetBoxBytes;
}

}  // namespace shmem
