// The PEs of one host share one store connection without a launcher (bootstrap/host_relay.hpp):
// the first to open the job's relay holds it, the others get channels of it as descriptors;
// job watchers use anonymous channels (rank -1, store_server_mux.cpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "bootstrap/host_relay.hpp"
#include "bootstrap/store_relay.hpp"
#include "bootstrap_store_util.hpp"

namespace shmem::bootstrap {
namespace {

using namespace test;

// A job name of this test process alone: ctest runs the unit tests in parallel processes.
std::string job_name(const std::string& what) {
  return "unit-" + std::to_string(::getpid()) + "-" + what + "-" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name();
}

HostRelay::Options relay_options(const StoreServer& s, const TlsConfig& tls, const std::string& job, int rank) {
  HostRelay::Options o;
  o.relay.store_host = "127.0.0.1";
  o.relay.store_port = s.port();
  o.relay.tls = tls;
  o.relay.connect_timeout = Millis{5000};
  o.relay.host = "h1";
  o.job = job;
  o.rank = rank;
  return o;
}

class HostRelayTest : public ::testing::TestWithParam<bool> {
 protected:
  TlsConfig tls() const { return GetParam() ? psk_tls() : plain_tls(); }
};

TEST_P(HostRelayTest, TheFirstHoldsItAndTheOthersJoin) {
  auto server = make_server(tls());
  const std::string job = job_name("share");
  auto owner = HostRelay::open(relay_options(*server, tls(), job, 2));
  ASSERT_TRUE(owner);
  EXPECT_TRUE(owner->owner());
  EXPECT_EQ(owner->owner_pe(), 2);
  auto joiner = HostRelay::open(relay_options(*server, tls(), job, 0));
  ASSERT_TRUE(joiner);
  EXPECT_FALSE(joiner->owner());
  EXPECT_EQ(joiner->owner_pe(), 2);

  StoreClient a(owner->take_store(), "owner's channel", 2, 3);
  StoreClient b(joiner->take_store(), "joiner's channel", 0, 3);
  StoreClient wa(owner->take_watcher(), "owner's watcher channel", -1, 0);
  StoreClient wb(joiner->take_watcher(), "joiner's watcher channel", -1, 0);
  a.set("from/2", "two");
  EXPECT_EQ(b.get("from/2", Millis{5000}), "two");
  EXPECT_TRUE(server->rank_connected(2));
  EXPECT_TRUE(server->rank_connected(0));
  EXPECT_FALSE(server->rank_connected(1));
  // The channels are taken once.
  EXPECT_FALSE(owner->take_store());
  EXPECT_FALSE(joiner->take_watcher());
}

TEST_P(HostRelayTest, AnotherJobHasARelayOfItsOwn) {
  auto server = make_server(tls());
  auto first = HostRelay::open(relay_options(*server, tls(), job_name("one"), 0));
  auto second = HostRelay::open(relay_options(*server, tls(), job_name("two"), 1));
  ASSERT_TRUE(first);
  ASSERT_TRUE(second);
  EXPECT_TRUE(first->owner());
  EXPECT_TRUE(second->owner());
}

TEST_P(HostRelayTest, APeThatTrustsAnotherCaDoesNotJoin) {
  // Its relay would check the store against the owner's CA, not the one this PE was given.
  auto server = make_server(tls());
  const std::string job = job_name("trust");
  auto first = HostRelay::open(relay_options(*server, tls(), job, 0));
  ASSERT_TRUE(first);
  ASSERT_TRUE(first->owner());
  TlsConfig other = tls();
  other.ca_file = "/nonexistent/shmem-unit-other-ca.pem";
  std::unique_ptr<HostRelay> second;
  try {
    second = HostRelay::open(relay_options(*server, other, job, 1));
  } catch (const Error& e) {  // on its own connection, the missing CA file fails it
    EXPECT_NE(std::string(e.what()).find("shmem-unit-other-ca.pem"), std::string::npos) << e.what();
    return;
  }
  ASSERT_TRUE(second);
  EXPECT_TRUE(second->owner());
  EXPECT_EQ(second->owner_pe(), 1);
}

TEST_P(HostRelayTest, AClosedDoorLetsTheNextPeHoldItsOwn) {
  auto server = make_server(tls());
  const std::string job = job_name("door");
  auto owner = HostRelay::open(relay_options(*server, tls(), job, 0));
  ASSERT_TRUE(owner);
  owner->close_door();
  // The door thread closes the socket when it wakes: a PE that comes later holds a relay of its
  // own (the name is free again); one that came before the close joined, or, caught by the
  // close, connects on its own (nullptr). Bounded retries.
  std::unique_ptr<HostRelay> later;
  for (int i = 0; i < 500; ++i) {
    later = HostRelay::open(relay_options(*server, tls(), job, 1));
    if (later && later->owner()) break;
    later.reset();
    std::this_thread::yield();
  }
  ASSERT_TRUE(later);
  EXPECT_EQ(later->owner_pe(), 1);
}

TEST_P(HostRelayTest, EveryPeHearsWhyTheStoreConnectionEnded) {
  auto server = make_server(tls());
  const std::string job = job_name("ended");
  auto owner = HostRelay::open(relay_options(*server, tls(), job, 0));
  auto joiner = HostRelay::open(relay_options(*server, tls(), job, 1));
  ASSERT_TRUE(owner && joiner);
  StoreClient wa(owner->take_watcher(), "owner's watcher channel", -1, 0);
  StoreClient wb(joiner->take_watcher(), "joiner's watcher channel", -1, 0);
  server.reset();  // the store's host ended
  EXPECT_THROW(wb.wait_failure(), Error);
  EXPECT_THROW(wa.wait_failure(), Error);
  const std::string why_owner = owner->why_lost(Millis{5000});
  const std::string why_joiner = joiner->why_lost(Millis{5000});
  EXPECT_NE(why_owner.find("bootstrap store at 127.0.0.1:"), std::string::npos) << why_owner;
  // Without a launcher the store's host is a PE (PE 0), not an agent.
  EXPECT_NE(why_owner.find("(the PE hosting it ended?)"), std::string::npos) << why_owner;
  EXPECT_EQ(why_joiner, why_owner);
}

TEST_P(HostRelayTest, AJobFailureReachesTheWatchersThroughTheRelay) {
  auto server = make_server(tls());
  const std::string job = job_name("fail");
  auto owner = HostRelay::open(relay_options(*server, tls(), job, 0));
  auto joiner = HostRelay::open(relay_options(*server, tls(), job, 1));
  ASSERT_TRUE(owner && joiner);
  StoreClient pe0(owner->take_store(), "owner's channel", 0, 2);
  StoreClient w1(joiner->take_watcher(), "joiner's watcher channel", -1, 0);
  std::string why;
  int status = 0;
  std::thread watcher([&] { why = w1.wait_failure(&status); });
  pe0.global_exit(7);
  watcher.join();
  EXPECT_EQ(status, 7);
  EXPECT_NE(why.find("PE 0 called shmem_global_exit(7)"), std::string::npos) << why;
}

TEST_P(HostRelayTest, ARefusedSecretLeavesEachPeToConnectItself) {
  auto server = make_server(tls());
  // The owner's credentials are refused: it says nothing for the job, and each PE connects on
  // its own, so that the store names the rank whose secret is wrong.
  const TlsConfig wrong = GetParam() ? psk_tls("another secret") : plain_tls("another secret");
  EXPECT_FALSE(HostRelay::open(relay_options(*server, wrong, job_name("refused"), 3)));
  expect_server_works(*server, tls());
}

INSTANTIATE_TEST_SUITE_P(Tls, HostRelayTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "tls" : "plain"; });

TEST(StoreRelayDrain, WaitsUntilEveryEndIsClosed) {
  auto server = make_server(psk_tls());
  StoreRelay::Options o;
  o.store_host = "127.0.0.1";
  o.store_port = server->port();
  o.tls = psk_tls();
  o.connect_timeout = Millis{5000};
  o.host = "h1";
  StoreRelay relay(o);
  EXPECT_TRUE(relay.wait_drained(Millis{0}));
  util::UniqueFd a = relay.add(0), w = relay.add(-1);
  EXPECT_FALSE(relay.wait_drained(Millis{0}));
  {
    StoreClient c(std::move(a), "channel", 0, 1);
    c.set("k", "v");
  }
  EXPECT_FALSE(relay.wait_drained(Millis{0}));  // the watcher's end is still open
  w.reset();
  EXPECT_TRUE(relay.wait_drained(Millis{10000}));
}

}  // namespace
}  // namespace shmem::bootstrap
