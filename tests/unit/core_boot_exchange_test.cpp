// The host table of init (src/core/boot_exchange.hpp): PEs grouped by host name, kernel and
// network namespace into rank ranges, each kernel's oversubscription verdict, and the table's
// text form, up to 1024 hosts x 16 PEs.
#include "core/boot_exchange.hpp"

#include <gtest/gtest.h>

namespace shmem::boot {
namespace {

// One CPU ("0") each, no quota: PEs sharing a kernel outnumber its CPUs when 2 or more.
NodeKey key(const std::string& host, const std::string& kernel, const std::string& netns = "net:[1]") {
  return NodeKey{host, kernel, netns, "0 0 /"};
}

TEST(BootExchange, KeyRoundTrips) {
  const NodeKey k{"h1", "boot-a", "net:[4026531840]", "2 0-3 /user.slice"};
  const auto d = decode_key(encode(k));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->host, k.host);
  EXPECT_EQ(d->kernel, k.kernel);
  EXPECT_EQ(d->netns, k.netns);
  EXPECT_EQ(d->share, k.share);
  EXPECT_FALSE(decode_key("h1\nboot-a"));
}

TEST(BootExchange, ContiguousHostsAreOneRangeEach) {
  std::vector<NodeKey> keys;
  for (int h = 0; h < 1024; ++h)
    for (int i = 0; i < 16; ++i) keys.push_back(key("host" + std::to_string(h), "k" + std::to_string(h)));
  const HostTable t = group_hosts(keys);
  ASSERT_EQ(t.size(), 1024u);
  for (int h = 0; h < 1024; ++h) {
    const HostEntry& e = t[static_cast<std::size_t>(h)];
    ASSERT_EQ(e.ranges.size(), 1u);
    EXPECT_EQ(e.lowest(), 16 * h);
    EXPECT_EQ(e.size(), 16);
    EXPECT_TRUE(e.oversubscribed);  // 16 PEs on the one CPU of each share
  }
  const std::string text = encode(t);
  EXPECT_LT(text.size(), 1024u * 24);  // O(hosts): about 20 bytes a host here, not per PE
  const auto back = decode_table(text, 16384);
  ASSERT_TRUE(back);
  ASSERT_EQ(back->size(), 1024u);
  EXPECT_EQ((*back)[1023].name, "host1023");
  EXPECT_EQ((*back)[1023].ranges, (std::vector<std::pair<int, int>>{{16368, 16383}}));
  const std::vector<int> idx = host_index(*back, 16384);
  EXPECT_EQ(idx[0], 0);
  EXPECT_EQ(idx[16383], 1023);
  EXPECT_EQ(idx[8200], 512);
}

TEST(BootExchange, RoundRobinPlacementAndNamespaces) {
  // PEs dealt round robin over 2 hosts; on the second, two network namespaces of one kernel
  // under one name (PEs that cannot reach each other's sockets), which share its CPUs.
  std::vector<NodeKey> keys = {key("a", "ka"), key("b", "kb", "net:[1]"), key("a", "ka"), key("b", "kb", "net:[2]"),
                               key("a", "ka")};
  const HostTable t = group_hosts(keys);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].name, "a");
  EXPECT_EQ(t[0].ranges, (std::vector<std::pair<int, int>>{{0, 0}, {2, 2}, {4, 4}}));
  EXPECT_EQ(t[1].ranges, (std::vector<std::pair<int, int>>{{1, 1}}));
  EXPECT_EQ(t[2].ranges, (std::vector<std::pair<int, int>>{{3, 3}}));
  EXPECT_TRUE(t[0].oversubscribed);
  EXPECT_TRUE(t[1].oversubscribed);  // with PE 3: one kernel, one CPU
  EXPECT_TRUE(t[2].oversubscribed);
  EXPECT_TRUE(t[0].contains(4));
  EXPECT_FALSE(t[0].contains(3));
  const auto back = decode_table(encode(t), 5);
  ASSERT_TRUE(back);
  EXPECT_EQ(host_index(*back, 5), (std::vector<int>{0, 1, 0, 2, 0}));
}

TEST(BootExchange, OnePePerKernelIsNotOversubscribed) {
  const HostTable t = group_hosts({key("a", "ka"), key("b", "kb")});
  ASSERT_EQ(t.size(), 2u);
  EXPECT_FALSE(t[0].oversubscribed);
  EXPECT_FALSE(t[1].oversubscribed);
}

TEST(BootExchange, MalformedTablesAreRefused) {
  EXPECT_FALSE(decode_table("", 1));
  EXPECT_FALSE(decode_table("H1\na\t0\t0-1\n", 3));             // PE 2 on no host
  EXPECT_FALSE(decode_table("H1\na\t0\t0-1\nb\t0\t1-2\n", 3));  // PE 1 twice
  EXPECT_FALSE(decode_table("H1\na\t2\t0-1\n", 2));             // verdict
  EXPECT_FALSE(decode_table("H1\na\t0\t1-0\n", 2));             // reversed range
  EXPECT_FALSE(decode_table("H1\na\t0\t0,x\n", 2));
  EXPECT_FALSE(decode_table("H1\na\t0\t0-1", 2));  // no end of line
  EXPECT_TRUE(decode_table("H1\na\t0\t0-1\n", 2));
}

// What each PE reads of the table (one key per host): its host's entry, index and the count.
TEST(BootExchange, EachHostsEntryRoundTripsAlone) {
  std::vector<NodeKey> keys = {key("a", "ka"), key("b", "kb"), key("a", "ka"), key("c", "kc")};
  const HostTable t = group_hosts(keys);
  ASSERT_EQ(t.size(), 3u);
  for (std::size_t h = 0; h < t.size(); ++h) {
    const auto seen = decode_seen(encode_seen(t, h), 4);
    ASSERT_TRUE(seen) << h;
    EXPECT_EQ(seen->index, static_cast<int>(h));
    EXPECT_EQ(seen->count, 3);
    EXPECT_EQ(seen->entry.name, t[h].name);
    EXPECT_EQ(seen->entry.ranges, t[h].ranges);
    EXPECT_EQ(seen->entry.oversubscribed, t[h].oversubscribed);
    EXPECT_EQ(seen->next_leader, t[(h + 1) % t.size()].lowest());
    EXPECT_TRUE(seen->ring_table);
  }
  EXPECT_EQ(encode_seen(t, 0), "S1 0 3 1 1\na\t1\t0,2\n");
  EXPECT_EQ(encode_seen(t, 2), "S1 2 3 0 1\nc\t0\t3\n");  // the ring closes at host 0
  // O(its ranges), whatever the number of hosts: host 1023 of 1024 x 16.
  std::vector<NodeKey> big;
  for (int h = 0; h < 1024; ++h)
    for (int i = 0; i < 16; ++i) big.push_back(key("host" + std::to_string(h), "k" + std::to_string(h)));
  const HostTable bt = group_hosts(big);
  const std::string text = encode_seen(bt, 1023);
  EXPECT_LT(text.size(), 48u);
  const auto s = decode_seen(text, 16384);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->entry.ranges, (std::vector<std::pair<int, int>>{{16368, 16383}}));
  EXPECT_EQ(s->index, 1023);
  EXPECT_EQ(s->count, 1024);
  EXPECT_EQ(s->next_leader, 0);
  EXPECT_TRUE(s->ring_table);
}

// A host whose line is too long for the ring (PEs dealt round robin over 2 hosts, 200 of them):
// every host's entry says so, so that every leader reads the table from the store instead.
TEST(BootExchange, LinesTooLongForTheRingAreSaidToAll) {
  std::vector<NodeKey> keys;
  for (int pe = 0; pe < 200; ++pe) keys.push_back(key(pe % 2 ? "b" : "a", pe % 2 ? "kb" : "ka"));
  keys.push_back(key("c", "kc"));
  const HostTable t = group_hosts(keys);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_GT(encode_entry(t[0]).size(), kRingEntryBytes);
  for (std::size_t h = 0; h < t.size(); ++h) {
    const auto seen = decode_seen(encode_seen(t, h), 201);
    ASSERT_TRUE(seen);
    EXPECT_FALSE(seen->ring_table) << h;
  }
}

TEST(BootExchange, MalformedEntriesAreRefused) {
  EXPECT_FALSE(decode_seen("", 2));
  EXPECT_FALSE(decode_seen("S1 0 1 0 1\n", 2));             // no entry
  EXPECT_FALSE(decode_seen("S1 1 1 0 1\na\t0\t0-1\n", 2));  // index past the count
  EXPECT_FALSE(decode_seen("S1 0 0 0 1\na\t0\t0-1\n", 2));  // no hosts
  EXPECT_FALSE(decode_seen("S1 x 1 0 1\na\t0\t0-1\n", 2));
  EXPECT_FALSE(decode_seen("S1 0 1 2 1\na\t0\t0-1\n", 2));  // next leader PE 2 of 2
  EXPECT_FALSE(decode_seen("S1 0 1 0 2\na\t0\t0-1\n", 2));  // ring flag
  EXPECT_FALSE(decode_seen("S1 0 1 0\na\t0\t0-1\n", 2));    // three numbers
  EXPECT_FALSE(decode_seen("S1 0 1 0 1\na\t0\t0-2\n", 2));  // PE 2 of 2
  EXPECT_FALSE(decode_seen("S1 0 1 0 1\na\t0\t0-1", 2));    // no end of line
  EXPECT_FALSE(decode_seen("H1\na\t0\t0-1\n", 2));          // a table, not an entry
  EXPECT_TRUE(decode_seen("S1 0 1 0 1\na\t0\t0-1\n", 2));
}

// The store key of a host: the same for every PE of it, different for another host name, kernel
// or network namespace, and short (a fixed 16 hex digits, whatever the names' lengths).
TEST(BootExchange, HostKeysNameHostsApart) {
  const std::string k = host_key(key("a", "ka", "net:[1]"));
  EXPECT_EQ(k.size(), 16u);
  EXPECT_EQ(host_key(NodeKey{"a", "ka", "net:[1]", "another share"}), k);
  EXPECT_NE(host_key(key("b", "ka", "net:[1]")), k);
  EXPECT_NE(host_key(key("a", "kb", "net:[1]")), k);
  EXPECT_NE(host_key(key("a", "ka", "net:[2]")), k);
  EXPECT_NE(host_key(key("ab", "c")), host_key(key("a", "bc")));
  EXPECT_EQ(host_key(key(std::string(64, 'h'), std::string(36, 'k'))).size(), 16u);
}

}  // namespace
}  // namespace shmem::boot
