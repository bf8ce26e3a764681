// The host address table's slots and ring schedule (core/addr_table.hpp), and its exchange's
// choice between the table and the store.
#include "core/addr_table.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>
#include <vector>

namespace shmem::addr {
namespace {

TEST(AddrTable, SlotRoundTrip) {
  std::vector<char> s(kSlotBytes, 0);
  EXPECT_FALSE(read_slot(s.data()).has_value());  // empty
  EXPECT_EQ(used_bytes(s.data()), 4u);
  const std::string blob("ucx\0address", 11);
  EXPECT_EQ(write_slot(s.data(), blob), 4 + blob.size());
  EXPECT_EQ(used_bytes(s.data()), 4 + blob.size());
  ASSERT_TRUE(read_slot(s.data()).has_value());
  EXPECT_EQ(*read_slot(s.data()), blob);
}

TEST(AddrTable, ABlobThatFillsTheSlotFitsOneMoreDoesNot) {
  std::vector<char> s(kSlotBytes, 0);
  const std::string full(kSlotBytes - 4, 'x');
  EXPECT_EQ(write_slot(s.data(), full), kSlotBytes);
  EXPECT_EQ(*read_slot(s.data()), full);
  EXPECT_EQ(write_slot(s.data(), full + "y"), 4u);  // marked: readers go to the store
  EXPECT_FALSE(read_slot(s.data()).has_value());
  EXPECT_EQ(used_bytes(s.data()), 4u);
}

TEST(AddrTable, TableBytes) {
  EXPECT_EQ(table_bytes(1), 0u);
  EXPECT_EQ(table_bytes(2), kHeaderBytes + 2 * (kSlotBytes + kEntryBytes) + hosts_capacity(2));
  EXPECT_EQ(table_bytes(16384), kHeaderBytes + 16384 * (kSlotBytes + kEntryBytes) + hosts_capacity(16384));
}

// Leader h forwards ring_block(h, k) to h + 1 in step k, having received it from h - 1 in step
// k - 1 (or owning it at k = 0): over H - 1 steps every leader receives every other host's block
// exactly once, and never its own.
TEST(AddrTable, RingDeliversEveryBlockOnceAndInOrder) {
  for (int n : {1, 2, 3, 5, 8, 1024}) {
    const auto un = static_cast<std::size_t>(n);
    std::vector<std::vector<char>> have(un, std::vector<char>(un, 0));
    for (std::size_t h = 0; h < un; ++h) have[h][h] = 1;
    std::vector<int> sent(un);
    for (int k = 0; k + 1 < n; ++k) {
      for (int h = 0; h < n; ++h) {  // every leader sends what it held before this step
        const int b = ring_block(h, k, n);
        ASSERT_TRUE(have[static_cast<std::size_t>(h)][static_cast<std::size_t>(b)])
            << "n " << n << " leader " << h << " step " << k;
        sent[static_cast<std::size_t>(h)] = b;
      }
      for (int h = 0; h < n; ++h) {
        auto& got =
            have[static_cast<std::size_t>((h + 1) % n)][static_cast<std::size_t>(sent[static_cast<std::size_t>(h)])];
        ASSERT_FALSE(got) << "n " << n << " block " << sent[static_cast<std::size_t>(h)] << " twice at " << (h + 1) % n;
        got = 1;
      }
    }
    for (std::size_t h = 0; h < un; ++h)
      for (std::size_t b = 0; b < un; ++b) ASSERT_TRUE(have[h][b]) << "n " << n << " leader " << h << " lacks " << b;
  }
}

TEST(AddrTable, TheHostTableTextFitsOrIsMarkedTooBig) {
  const std::string text = "H1\nh1\t0\t0-1\nh2\t0\t2-3\n";
  std::vector<char> table(table_bytes(4), 0);
  auto* h = reinterpret_cast<Header*>(table.data());
  put_hosts(table.data(), 4, text);
  EXPECT_EQ(h->hosts_ready, 1u);
  EXPECT_EQ(std::string(entry(table.data(), 4, 4), h->hosts_len), text);
  EXPECT_EQ(entry(table.data(), 4, 4) + hosts_capacity(4), table.data() + table.size());  // it ends the table
  std::vector<char> other(table_bytes(4), 0);
  put_hosts(other.data(), 4, std::string(hosts_capacity(4) + 1, 'x'));
  EXPECT_EQ(reinterpret_cast<Header*>(other.data())->hosts_ready, 2u);
}

// The lines the ring leaves in a leader's table make the host table; a missing or malformed
// line, or lines that do not cover the PEs, make none (the PEs then read the store).
TEST(AddrTable, TheRingsHostLinesMakeTheTable) {
  const boot::HostTable t = {boot::HostEntry{"a", {{0, 1}}, true}, boot::HostEntry{"b", {{2, 3}}, false}};
  std::vector<char> table(table_bytes(4), 0);
  for (int h = 0; h < 2; ++h)
    write_slot(entry(table.data(), 4, h), boot::encode_entry(t[static_cast<std::size_t>(h)]), kEntryBytes);
  const auto back = ring_hosts(table.data(), 4, 2);
  ASSERT_TRUE(back);
  EXPECT_EQ(boot::encode(*back), boot::encode(t));
  EXPECT_FALSE(ring_hosts(table.data(), 4, 3));                       // host 2's line never came
  write_slot(entry(table.data(), 4, 1), "b\t0\t1-3\n", kEntryBytes);  // PE 1 twice
  EXPECT_FALSE(ring_hosts(table.data(), 4, 2));
  EXPECT_EQ(write_slot(entry(table.data(), 4, 1), std::string(kEntryBytes - 3, 'x'), kEntryBytes), 4u);  // too long
  EXPECT_FALSE(read_slot(entry(table.data(), 4, 1), kEntryBytes));
}

class CountingStore final : public transport::Exchange {
 public:
  void publish(const std::string& tag, const std::string& mine) override { published[tag] = mine; }
  std::string fetch(const std::string& tag, int pe) override {
    ++fetches;
    return "store:" + tag + ":" + std::to_string(pe);
  }
  std::map<std::string, std::string> published;
  int fetches = 0;
};

TEST(AddrTable, ExchangeReadsTheTableOnceDoneAndTheStoreOtherwise) {
  CountingStore store;
  std::vector<char> table(table_bytes(3), 0);
  auto* h = reinterpret_cast<Header*>(table.data());
  TableExchange ex(store, table.data(), 1);
  ex.publish("ucx", "mine");
  EXPECT_EQ(store.published["ucx"], "mine");  // the store still has it (fallback, O(1) per PE)
  EXPECT_EQ(*read_slot(slot(table.data(), 1)), "mine");
  EXPECT_EQ(h->published, 1u);
  ex.publish("other", "second");  // only the first tag goes into the table
  EXPECT_EQ(*read_slot(slot(table.data(), 1)), "mine");
  EXPECT_EQ(h->published, 1u);

  write_slot(slot(table.data(), 2), "peer2");
  EXPECT_EQ(ex.fetch("ucx", 2), "store:ucx:2");  // not done yet
  EXPECT_EQ(ex.store_fetches(), 1u);
  h->done = 1;
  EXPECT_EQ(ex.fetch("ucx", 2), "peer2");
  EXPECT_EQ(ex.fetch("other", 2), "store:other:2");                 // another tag
  EXPECT_EQ(ex.fetch("ucx", 0), "store:ucx:0");                     // an empty slot
  write_slot(slot(table.data(), 0), std::string(kSlotBytes, 'z'));  // too big
  EXPECT_EQ(ex.fetch("ucx", 0), "store:ucx:0");
  EXPECT_EQ(ex.store_fetches(), 4u);
  EXPECT_EQ(store.fetches, 4);
}

TEST(AddrTable, WithoutATableEverythingGoesToTheStore) {
  CountingStore store;
  TableExchange ex(store, nullptr, 0);
  ex.publish("ucx", "mine");
  EXPECT_EQ(ex.fetch("ucx", 1), "store:ucx:1");
  EXPECT_EQ(ex.store_fetches(), 1u);
}

}  // namespace
}  // namespace shmem::addr
