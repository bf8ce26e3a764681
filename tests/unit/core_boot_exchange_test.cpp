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

}  // namespace
}  // namespace shmem::boot
