// The layout of the cross-host collective area (src/core/xhost_area.hpp): dissemination rounds,
// the words and rings of a team slot for a team's layout, the slot sizes a job gets, and the
// active-set channel, from 2 PEs up to 1024 hosts x 1024 PEs.
#include "core/xhost_area.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/internal_area.hpp"

namespace shmem {
namespace {

constexpr std::size_t kKiB = 1024, kMiB = 1024 * 1024;

// Every team of a job of npes PEs with `hosts` hosts and at most max_local on one fits the
// slots the job gets, and its words and rings stay inside the slot without overlapping.
void expect_fits(int npes, int hosts, int max_local) {
  SCOPED_TRACE(testing::Message() << npes << " PEs, a team over " << hosts << " hosts, up to " << max_local
                                  << " on one");
  const XAreaPlan plan = x_area_plan(npes);
  for (int slot : {0, kXBigSlots, kMaxTeams - 1}) {
    const XSlotMap m = x_slot_map(hosts, max_local, plan.slot_bytes(slot));
    EXPECT_TRUE(m.fits()) << "ring of " << m.ring << " bytes in slot " << slot;
    EXPECT_EQ(m.ring % 64, 0u);
    EXPECT_LE(m.ring, kXMaxRingBytes);
    // Words in order, each array on lines of its own, all of them before the rings.
    EXPECT_GE(m.leader_rounds, m.node_rounds + 8 * static_cast<std::size_t>(x_rounds(max_local)));
    EXPECT_GE(m.seq, m.leader_rounds + 8 * static_cast<std::size_t>(x_rounds(hosts)));
    EXPECT_GE(m.ack, m.seq + 8 * static_cast<std::size_t>(hosts));
    EXPECT_GE(m.push, m.ack + 8 * static_cast<std::size_t>(hosts));
    EXPECT_LE(m.push + 8 * static_cast<std::size_t>(max_local), m.header);
    for (std::size_t off : {m.node_rounds, m.leader_rounds, m.seq, m.ack, m.push}) EXPECT_EQ(off % 64, 0u);
    EXPECT_EQ(m.header % 4096, 0u);
    EXPECT_LE(m.header + static_cast<std::size_t>(hosts - 1) * m.ring, plan.slot_bytes(slot));
  }
}

TEST(XhostArea, RoundsAreCeilLog2) {
  EXPECT_EQ(x_rounds(1), 0);
  EXPECT_EQ(x_rounds(2), 1);
  EXPECT_EQ(x_rounds(3), 2);
  EXPECT_EQ(x_rounds(256), 8);
  EXPECT_EQ(x_rounds(257), 9);
  EXPECT_EQ(x_rounds(1024), 10);
  EXPECT_EQ(x_rounds(1025), 11);
  EXPECT_EQ(x_rounds(16384), 14);
}

// Small jobs keep the slot sizes, ring sizes and area they had with fixed arrays.
TEST(XhostArea, SmallJobsKeepTheirSizes) {
  for (int n = 2; n <= 240; ++n) {
    const XAreaPlan p = x_area_plan(n);
    EXPECT_EQ(p.big, kXBigSlotBytes) << n;
    EXPECT_EQ(p.small, kXSlotBytes) << n;
  }
  EXPECT_EQ(x_area_plan(4).slot_start(kMaxTeams), kXBigSlots * kXBigSlotBytes + (kMaxTeams - kXBigSlots) * kXSlotBytes);
  // 2 hosts x 2 PEs and 4 hosts: full rings in the big slots, in one 4 KiB page of words.
  const XSlotMap two = x_slot_map(2, 2, kXBigSlotBytes), four = x_slot_map(4, 1, kXBigSlotBytes);
  EXPECT_EQ(two.header, 4096u);
  EXPECT_EQ(two.ring, kXMaxRingBytes);
  EXPECT_EQ(four.ring, kXMaxRingBytes);
  EXPECT_EQ(x_slot_map(2, 2, kXSlotBytes).ring, kXSlotBytes - 4096);
}

// The job of the CI test: 257 PEs on one host and 1 on another (and every other team of it).
TEST(XhostArea, TwoHostsWith257OnOne) {
  expect_fits(258, 2, 257);
  expect_fits(258, 258, 1);
  expect_fits(64, 16, 4);
  const XSlotMap m = x_slot_map(2, 257, x_area_plan(258).slot_bytes(0));
  EXPECT_EQ(x_rounds(257), 9);
  EXPECT_EQ(m.ring, kXMaxRingBytes);
}

// 1024 hosts: with 16 PEs each (16384 PEs), and with 1024 each.
TEST(XhostArea, ThousandHosts) {
  expect_fits(16384, 1024, 16);
  expect_fits(1024 * 1024, 1024, 1024);
  // Every layout of a 16384-PE job up to 1024 hosts: hosts and the largest host's PEs.
  for (int hosts = 2; hosts <= kXMaxHosts; hosts *= 2) expect_fits(16384, hosts, 16384 - hosts + 1);
  expect_fits(16384, 1000, 15385);
  expect_fits(1024, 1024, 1);
  // Rings of a 1024-host team: at least kXMinRingBytes in every slot.
  const XAreaPlan p = x_area_plan(16384);
  EXPECT_GE(x_slot_map(1024, 16, p.slot_bytes(kMaxTeams - 1)).ring, kXMinRingBytes);
  EXPECT_EQ(x_slot_map(1024, 16, p.slot_bytes(0)).node_rounds, 0u);
  EXPECT_EQ(x_slot_map(1024, 16, p.slot_bytes(0)).leader_rounds, 64u);  // 4 node rounds on one line
}

// 16384 PEs in one team: on 2 hosts (16383 + 1) and on 16 hosts of 1024.
TEST(XhostArea, Team16384PEs) {
  expect_fits(16384, 2, 16383);
  expect_fits(16384, 16, 1024);
  const XSlotMap m = x_slot_map(2, 16383, x_area_plan(16384).slot_bytes(0));
  EXPECT_EQ(m.leader_rounds, 128u);  // 14 node rounds, two lines
  EXPECT_GE(m.header, 16383u * 8);   // a push word per member of the big host
}

// Memory stays bounded: the team slots of a 16384-PE job take under 256 MiB of (sparse) heap,
// those of a 1024 x 1024-PE job under 2 GiB, and the active-set channel at most 64 MiB of rings.
TEST(XhostArea, MemoryPerJob) {
  const XAreaPlan p16k = x_area_plan(16384);
  EXPECT_LE(p16k.small, 2 * kMiB);
  EXPECT_LE(p16k.slot_start(kMaxTeams), 256 * kMiB);
  const XAreaPlan p1m = x_area_plan(1024 * 1024);
  EXPECT_LE(p1m.small, 16 * kMiB);
  EXPECT_LE(p1m.slot_start(kMaxTeams), 2048 * kMiB);
  for (int n : {2, 256, 1024, 4096, 16384}) {
    EXPECT_LE(x_set_bytes(n) - x_set_header_bytes(n), 64 * kMiB) << n;
    EXPECT_GE(x_set_ring_bytes(n), 4 * kKiB) << n;
  }
  EXPECT_EQ(x_set_ring_bytes(256), 256 * kKiB);
  EXPECT_EQ(x_set_ring_bytes(1024), 64 * kKiB);
  EXPECT_EQ(x_set_ring_bytes(16384), 4 * kKiB);
}

// Past kXMaxHosts a layout can outgrow its slot: Team's constructor then refuses it, naming it.
TEST(XhostArea, TooManyHostsDoNotFit) {
  const XAreaPlan p = x_area_plan(4096);
  EXPECT_FALSE(x_slot_map(4096, 1, p.slot_bytes(0)).fits());
  EXPECT_TRUE(x_slot_map(1024, 3073, p.slot_bytes(0)).fits());
}

}  // namespace
}  // namespace shmem
