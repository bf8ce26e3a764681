#pragma once
// The memory map of the internal area at the start of every PE's symmetric heap (before user
// data): the team cells (barriers, published values, broadcast flags), the device sync area,
// the rings of tiny active-set collectives, the pushed small team collectives and the PE's
// word on the wait board. Every PE has the same layout, so a peer's object is at the same
// offset of its heap (Runtime::internal, rings, team_push).
#include <cstddef>
#include <cstdint>

#include "core/wait_board.hpp"

namespace shmem {

constexpr int kMaxTeams = 128;    // team slots per job (WORLD and SHARED included)
constexpr int kScratchWords = 7;  // values a PE publishes per team slot for pulls
constexpr int kSyncRounds = 8;    // dissemination rounds: teams of up to 256 PEs (central above)

// Per team slot, in every member's internal area. The central barrier's words (count, gen,
// sleepers) are used on the team's PE 0; everything else on every member.
struct alignas(64) TeamCell {
  alignas(64) std::uint32_t count;
  alignas(64) std::uint32_t gen;
  std::uint32_t sleepers;
  // Written by this member only: published values, and the sequence number of the last
  // broadcast it completed (read by the next broadcast's root before it writes our dest).
  alignas(64) std::uint64_t scratch[kScratchWords];
  std::uint64_t bcast_ack;
  // Written by a pushed broadcast's root after our dest: that broadcast's sequence number, in
  // slot seq % 2 (so two consecutive broadcasts with different roots cannot overtake each
  // other's flag). On a line of their own: only roots write it.
  alignas(64) std::uint64_t bcast_flag[2];
  // Dissemination barrier (every member): round r's counting flag, raised by member me - 2^r.
  alignas(64) std::uint64_t rounds[kSyncRounds];
};
static_assert(sizeof(TeamCell) == 320, "TeamCell: keep kMaxTeams cells within 40 KiB (device sync area)");

// Runtime-internal symmetric objects at the start of every PE's heap (before user data).
struct InternalArea {
  TeamCell teams[kMaxTeams];
};

// Rings of tiny active-set collectives (coll/ring.hpp), at kRingsOffset of every
// PE's internal area: entries[s] is written only by world PE s, consumed[s] only by this PE.
// Four entries share a cache line, so a root that runs ahead writes several per line transfer.
constexpr int kRingPEs = 64;     // roots with a ring: world PEs below this
constexpr int kRingDepth = 256;  // broadcasts a root may be ahead of a member
constexpr std::size_t kRingBytes = 8;
struct alignas(16) RingEntry {
  std::uint64_t head;  // sequence number (low 32 bits) | tag << 32, written last
  unsigned char data[kRingBytes];
};
struct BcastRings {
  alignas(64) RingEntry entries[kRingPEs][kRingDepth];
  alignas(64) std::uint64_t consumed[kRingPEs];  // the last sequence number taken from each sender
};
constexpr std::size_t kRingsOffset = 64 * 1024;  // after the teams and the device sync area

// Pushed small team collectives (coll/team.cpp), after the rings: for the teams in slots
// below kPushTeams (of up to kPushSenders + 1 PEs), every member has two lines per other member,
// used by alternate calls: the call number and kind, written last, then the data.
constexpr int kPushTeams = 32;
constexpr int kPushSenders = 7;
constexpr std::size_t kPushLineBytes = 56;
struct alignas(64) PushLine {
  std::uint64_t head;
  unsigned char data[kPushLineBytes];
};
struct TeamPushArea {
  PushLine lines[kPushTeams][2][kPushSenders];  // [team slot][call parity][sender, relative]
};
constexpr std::size_t kTeamPushOffset = (kRingsOffset + sizeof(BcastRings) + 63) & ~std::size_t{63};
constexpr std::size_t kInternalBytes = 512 * 1024;
// Where the transport publishes the key to this PE's collective area once it has registered it
// (transport::Setup::lazy_key_off; the area is registered only on the PEs that lead a team or
// an active set across hosts): a length word, then the key.
constexpr std::size_t kLazyKeyOffset = 480 * 1024;
constexpr std::size_t kLazyKeyBytes = 4096;
static_assert(kTeamPushOffset + sizeof(TeamPushArea) <= kLazyKeyOffset);
// The PE's word on the wait board (core/wait_board.hpp), on the internal area's last line.
constexpr std::size_t kWaitSlotOffset = kInternalBytes - sizeof(WaitSlot);
static_assert(kTeamPushOffset + sizeof(TeamPushArea) <= kWaitSlotOffset);
static_assert(sizeof(InternalArea) <= kInternalBytes);

}  // namespace shmem
