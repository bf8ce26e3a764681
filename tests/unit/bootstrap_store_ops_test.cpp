// Store operations, blocking semantics, failure tracking and shutdown (over the default
// TLS-PSK transport).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "bootstrap_store_util.hpp"

namespace shmem::bootstrap {
namespace {

using namespace test;
using Clock = std::chrono::steady_clock;

class StoreOps : public ::testing::Test {
 protected:
  void SetUp() override { server_ = make_server(psk_tls()); }
  std::unique_ptr<StoreClient> client(int rank = -1) { return make_client(*server_, psk_tls(), rank); }
  std::unique_ptr<StoreServer> server_;
};

TEST_F(StoreOps, SetGetTryGetRoundTrip) {
  auto c = client();
  EXPECT_EQ(c->try_get("k"), std::nullopt);
  c->set("k", "v1");
  EXPECT_EQ(c->get("k", 1s), "v1");
  EXPECT_EQ(c->try_get("k"), std::optional<std::string>("v1"));
  c->set("k", "v2");  // overwrite
  EXPECT_EQ(c->get("k", 1s), "v2");
  std::string binary("a\0b\xff", 4);
  c->set(binary, binary);
  EXPECT_EQ(c->get(binary, 1s), binary);
  c->set("empty", "");
  EXPECT_EQ(c->try_get("empty"), std::optional<std::string>(""));
  // Another connection sees the same data.
  auto d = client();
  EXPECT_EQ(d->get("k", 1s), "v2");
}

TEST_F(StoreOps, LargeValueAndLimits) {
  auto c = client();
  std::string big(3 << 20, 'x');
  big[12345] = 'y';
  c->set("big", big);
  EXPECT_EQ(c->get("big", 5s), big);
  expect_error([&] { c->set(std::string(wire::kMaxKey + 1, 'k'), "v"); }, Errc::kInvalidValue, "limit");
  EXPECT_NO_THROW(c->set(std::string(wire::kMaxKey, 'k'), "v"));
}

TEST(StoreCap, SetsBeyondTheCapAreRefusedNamingTheVariable) {
  // 1 MiB of keys and values at most: two 400 KiB values fit, a third does not; replacing or
  // removing one frees its room; compare-and-set is capped too.
  ::setenv("SHMEM_STORE_MAX_SIZE", "1M", 1);
  auto server = make_server(psk_tls());
  ::unsetenv("SHMEM_STORE_MAX_SIZE");
  auto c = make_client(*server, psk_tls(), -1);
  const std::string v(400 << 10, 'v');
  c->set("a", v);
  c->set("b", v);
  expect_error([&] { c->set("c", v); }, Errc::kInvalidValue, "SHMEM_STORE_MAX_SIZE");
  EXPECT_EQ(c->try_get("c"), std::nullopt);
  c->set("a", v);  // the same size again: it replaces, not adds
  expect_error([&] { c->compare_and_set("c", "", v); }, Errc::kInvalidValue, "SHMEM_STORE_MAX_SIZE");
  EXPECT_TRUE(c->remove("b"));
  c->set("c", v);
  EXPECT_EQ(c->get("c", 1s), v);
  EXPECT_EQ(c->add("n", 2), 2);
}

TEST_F(StoreOps, AddIsACounter) {
  auto c = client();
  EXPECT_EQ(c->add("n", 5), 5);
  EXPECT_EQ(c->add("n", -2), 3);
  EXPECT_EQ(c->add("n", 0), 3);
  EXPECT_EQ(c->get("n", 1s), "3");  // stored as decimal text
  c->set("m", "40");
  EXPECT_EQ(c->add("m", 2), 42);
  c->set("text", "abc");
  expect_error([&] { c->add("text", 1); }, Errc::kInvalidValue, "not an integer");
  c->set("max", std::to_string(INT64_MAX));
  expect_error([&] { c->add("max", 1); }, Errc::kInvalidValue, "overflow");
  EXPECT_EQ(c->add("n", 1), 4);  // the connection is still fine after error replies
}

TEST_F(StoreOps, CompareAndSet) {
  auto c = client();
  std::string cur = "unset";
  EXPECT_TRUE(c->compare_and_set("lock", "", "owner1", &cur));  // "" = absent
  EXPECT_EQ(cur, "owner1");
  EXPECT_FALSE(c->compare_and_set("lock", "", "owner2", &cur));
  EXPECT_EQ(cur, "owner1");
  EXPECT_FALSE(c->compare_and_set("lock", "other", "owner2", &cur));
  EXPECT_EQ(cur, "owner1");
  EXPECT_TRUE(c->compare_and_set("lock", "owner1", "owner2", &cur));
  EXPECT_EQ(cur, "owner2");
  EXPECT_EQ(c->get("lock", 1s), "owner2");
  EXPECT_TRUE(c->compare_and_set("lock", "owner2", "", &cur));  // desired "" = remove
  EXPECT_EQ(cur, "");
  EXPECT_EQ(c->try_get("lock"), std::nullopt);
  EXPECT_FALSE(c->compare_and_set("absent", "x", "y"));
  EXPECT_EQ(c->try_get("absent"), std::nullopt);
}

TEST_F(StoreOps, Remove) {
  auto c = client();
  EXPECT_FALSE(c->remove("k"));
  c->set("k", "v");
  EXPECT_TRUE(c->remove("k"));
  EXPECT_EQ(c->try_get("k"), std::nullopt);
  EXPECT_FALSE(c->remove("k"));
}

TEST_F(StoreOps, GetWaitsForALaterSet) {
  auto waiter = client();
  auto setter = client();
  auto got = std::async(std::launch::async, [&] { return waiter->get("late", 10s); });
  ASSERT_TRUE(server_->wait_for_blocked(1, 5s));  // the get is parked in the server
  EXPECT_EQ(got.wait_for(0s), std::future_status::timeout);
  setter->set("late", "value");
  EXPECT_EQ(got.get(), "value");
  // The server answers the parked get before it drops it from its count (its own thread): the
  // count must reach 0, bounded.
  const auto deadline = Clock::now() + 5s;
  while (server_->blocked_requests() != 0 && Clock::now() < deadline) std::this_thread::yield();
  EXPECT_EQ(server_->blocked_requests(), 0u);
}

TEST_F(StoreOps, GetTimesOutNamingTheKey) {
  auto c = client();
  auto t0 = Clock::now();
  expect_error([&] { c->get("never/set", 150ms); }, Errc::kTimeout, "never/set");
  auto took = Clock::now() - t0;
  EXPECT_GE(took, 150ms);
  EXPECT_LT(took, 3s);
  c->set("after", "ok");  // the connection survives a timeout
  EXPECT_EQ(c->get("after", 1s), "ok");
}

TEST_F(StoreOps, BarrierWithEightClients) {
  constexpr int kN = 8;
  std::vector<std::unique_ptr<StoreClient>> clients;
  for (int i = 0; i < kN; ++i) clients.push_back(client(i));
  std::atomic<int> arrived{0};
  std::atomic<int> early{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kN; ++i) {
    threads.emplace_back([&, i] {
      for (int round = 0; round < 3; ++round) {
        arrived.fetch_add(1);
        clients[i]->barrier("init/" + std::to_string(round), kN, 10s);
        if (arrived.load() < kN * (round + 1)) early.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(arrived.load(), 3 * kN);
  EXPECT_EQ(early.load(), 0) << "a barrier returned before every participant arrived";
  EXPECT_EQ(clients[0]->get("init/0/count", 1s), "8");
  EXPECT_EQ(clients[0]->get("init/2/go", 1s), "1");
}

TEST_F(StoreOps, BarrierTimesOutReportingArrivals) {
  auto c = client();
  expect_error([&] { c->barrier("lonely", 3, 100ms); }, Errc::kTimeout, "1 of 3");
  expect_error([&] { c->barrier("lonely", 3, 100ms); }, Errc::kTimeout, "2 of 3");
}

TEST_F(StoreOps, ConcurrentIncrementsAreExact) {
  constexpr int kClients = 8;
  constexpr int kAdds = 250;
  std::vector<std::unique_ptr<StoreClient>> clients;
  for (int i = 0; i < kClients; ++i) clients.push_back(client());
  std::vector<std::vector<std::int64_t>> seen(kClients);
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i)
    threads.emplace_back([&, i] {
      for (int k = 0; k < kAdds; ++k) seen[i].push_back(clients[i]->add("counter", 1));
    });
  for (auto& t : threads) t.join();
  std::vector<std::int64_t> all;
  for (auto& v : seen) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), static_cast<std::size_t>(kClients * kAdds));
  for (std::size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], static_cast<std::int64_t>(i + 1));
  EXPECT_EQ(clients[0]->get("counter", 1s), std::to_string(kClients * kAdds));
}

TEST_F(StoreOps, OneClientSharedByThreadsSerializesRequests) {
  auto c = client();
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      for (int k = 0; k < 100; ++k) {
        c->add("shared", 1);
        c->set("t" + std::to_string(i), std::to_string(k));
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(c->get("shared", 1s), "400");
  EXPECT_EQ(c->get("t3", 1s), "99");
}

TEST_F(StoreOps, RankConnectedAndFinalized) {
  EXPECT_FALSE(server_->rank_connected(3));
  auto c = client(3);
  EXPECT_TRUE(server_->rank_connected(3));
  EXPECT_FALSE(server_->rank_finalized(3));
  c->goodbye();
  EXPECT_TRUE(server_->rank_finalized(3));
  EXPECT_FALSE(server_->rank_connected(4));
}

TEST(StoreFailure, RankLostBeforeGoodbyeFailsBlockedGet) {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::pair<int, std::string>> lost;
  StoreServer::Options o;
  o.tls = psk_tls();
  o.on_rank_lost = [&](int rank, const std::string& reason) {
    std::lock_guard<std::mutex> g(mu);
    lost.emplace_back(rank, reason);
    cv.notify_all();
  };
  auto server = std::make_unique<StoreServer>(std::move(o));
  auto pe0 = make_client(*server, psk_tls(), 0);
  auto pe1 = make_client(*server, psk_tls(), 1);
  auto pe2 = make_client(*server, psk_tls(), 2);
  auto blocked = std::async(std::launch::async, [&] {
    try {
      pe1->get("never", 30s);
      return std::string("returned normally");
    } catch (const Error& e) {
      return std::string(errc_name(e.code())) + ": " + e.what();
    }
  });
  ASSERT_TRUE(server->wait_for_blocked(1, 5s));
  pe0.reset();  // PE 0 "dies": its connection closes without goodbye

  std::string err = blocked.get();
  EXPECT_NE(err.find("peer lost: "), std::string::npos) << err;
  EXPECT_NE(err.find("PE 0 lost"), std::string::npos) << err;
  {
    std::unique_lock<std::mutex> lk(mu);
    ASSERT_TRUE(cv.wait_for(lk, 5s, [&] { return !lost.empty(); }));
  }
  // Every later request of the others fails with the same reason.
  expect_error([&] { pe2->set("x", "y"); }, Errc::kPeerLost, "PE 0 lost");
  expect_error([&] { pe2->barrier("b", 3, 1s); }, Errc::kPeerLost, "PE 0 lost");
  // A watcher arriving later learns the reason at once.
  auto watcher = make_client(*server, psk_tls(), -1);
  EXPECT_NE(watcher->wait_failure().find("PE 0 lost"), std::string::npos);
  // Further losses do not fire the callback again.
  pe1.reset();
  pe2.reset();
  server.reset();  // joins every server thread, so all callbacks have run
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].first, 0);
  EXPECT_NE(lost[0].second.find("PE 0 lost: connection closed before shmem_finalize"), std::string::npos);
}

TEST(StoreFailure, RankLostWhileItselfBlockedIsNoticed) {
  // A PE killed in the middle of a blocking request (say, a barrier): the server notices the
  // closed socket although it is not reading from it.
  std::promise<int> lost;
  StoreServer::Options o;
  o.tls = plain_tls();
  o.on_rank_lost = [&](int rank, const std::string&) { lost.set_value(rank); };
  StoreServer server(std::move(o));
  auto watcher = make_client(server, plain_tls(), -1);
  auto failure = std::async(std::launch::async, [&] { return watcher->wait_failure(); });
  {
    RawConn pe5(server.port());
    ASSERT_TRUE(pe5.send_hello(5, kSecret));
    ASSERT_EQ(pe5.read_reply_status(), wire::Status::kOk);
    wire::FrameWriter w;
    w.bytes("never").i64(30000);
    ASSERT_TRUE(pe5.send(w.finish(static_cast<std::uint16_t>(wire::Op::kGet), 2)));
    ASSERT_TRUE(server.wait_for_blocked(2, 5s));  // the watcher and PE 5's get
  }  // PE 5's socket closes here
  auto fut = lost.get_future();
  ASSERT_EQ(fut.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(fut.get(), 5);
  EXPECT_EQ(failure.get(), "PE 5 lost: connection closed before shmem_finalize");
}

TEST(StoreFailure, GoodbyeThenDisconnectDoesNotFail) {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int> lost;
  StoreServer::Options o;
  o.tls = psk_tls();
  o.on_rank_lost = [&](int rank, const std::string&) {
    std::lock_guard<std::mutex> g(mu);
    lost.push_back(rank);
    cv.notify_all();
  };
  auto server = std::make_unique<StoreServer>(std::move(o));
  auto pe1 = make_client(*server, psk_tls(), 1);
  {
    auto pe0 = make_client(*server, psk_tls(), 0);
    pe0->set("from0", "x");
    pe0->goodbye();
  }  // PE 0 finalized, then disconnected
  EXPECT_TRUE(server->rank_finalized(0));
  EXPECT_FALSE(server->rank_finalized(1));
  pe1->set("still", "working");
  EXPECT_EQ(pe1->get("from0", 1s), "x");
  // Control: PE 1 leaves without goodbye. Had PE 0's clean exit counted as a loss, the one
  // on_rank_lost call would (normally) name PE 0, which left first.
  pe1.reset();
  {
    std::unique_lock<std::mutex> lk(mu);
    ASSERT_TRUE(cv.wait_for(lk, 5s, [&] { return !lost.empty(); }));
  }
  server.reset();
  EXPECT_EQ(lost, std::vector<int>{1});
}

TEST(StoreFailure, AnonymousClientDisconnectDoesNotFail) {
  auto server_ptr = make_server(psk_tls());
  StoreServer& server = *server_ptr;
  { auto helper = make_client(server, psk_tls(), -1); }
  auto c = make_client(server, psk_tls(), 0);
  auto watcher = make_client(server, psk_tls(), -1);
  c->set("a", "b");
  EXPECT_EQ(c->get("a", 1s), "b");
  c->goodbye();
}

TEST(StoreFailure, GlobalExitCallsBackAndFailsTheStore) {
  std::promise<std::pair<int, int>> exit_called;
  StoreServer::Options o;
  o.tls = psk_tls();
  o.on_global_exit = [&](int rank, int status) { exit_called.set_value({rank, status}); };
  StoreServer server(std::move(o));
  auto watcher = make_client(server, psk_tls(), -1);
  auto failure = std::async(std::launch::async, [&] { return watcher->wait_failure(); });
  auto pe1 = make_client(server, psk_tls(), 1);
  auto pe2 = make_client(server, psk_tls(), 2);
  auto blocked = std::async(std::launch::async, [&] {
    try {
      pe1->get("never", 30s);
      return std::string();
    } catch (const Error& e) {
      return std::string(e.what());
    }
  });
  ASSERT_TRUE(server.wait_for_blocked(2, 5s));
  pe2->global_exit(7);
  auto fut = exit_called.get_future();
  ASSERT_EQ(fut.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(fut.get(), std::make_pair(2, 7));
  const std::string reason = "PE 2 called shmem_global_exit(7)";
  EXPECT_EQ(failure.get(), reason);
  EXPECT_EQ(blocked.get(), reason);
  expect_error([&] { pe1->add("c", 1); }, Errc::kPeerLost, reason);
}

TEST(StoreFailure, ManualFailWakesWaitersAndFailsLaterRequests) {
  auto server_ptr = make_server(psk_tls());
  StoreServer& server = *server_ptr;
  auto watcher = make_client(server, psk_tls(), -1);
  auto c = make_client(server, psk_tls(), 0);
  auto failure = std::async(std::launch::async, [&] { return watcher->wait_failure(); });
  ASSERT_TRUE(server.wait_for_blocked(1, 5s));
  c->set("before", "1");
  server.fail("launcher saw PE 3 killed by signal 9");
  EXPECT_EQ(failure.get(), "launcher saw PE 3 killed by signal 9");
  expect_error([&] { c->get("before", 1s); }, Errc::kPeerLost, "PE 3 killed by signal 9");
  expect_error([&] { c->try_get("before"); }, Errc::kPeerLost, "PE 3 killed by signal 9");
  server.fail("second reason");  // the first reason sticks
  expect_error([&] { c->set("x", "y"); }, Errc::kPeerLost, "PE 3 killed by signal 9");
  EXPECT_NO_THROW(c->goodbye());  // finalizing still works
}

TEST(StoreShutdown, DestructorIsPromptWhileClientsAreBlocked) {
  auto server = make_server(psk_tls());
  constexpr int kN = 4;
  std::vector<std::unique_ptr<StoreClient>> clients;
  for (int i = 0; i < kN; ++i) clients.push_back(make_client(*server, psk_tls(), i));
  auto watcher = make_client(*server, psk_tls(), -1);
  std::vector<std::future<Errc>> results;
  for (int i = 0; i < kN; ++i)
    results.push_back(std::async(std::launch::async, [&, i] {
      try {
        clients[i]->get("never", 60s);
        return Errc::kOk;
      } catch (const Error& e) {
        return e.code();
      }
    }));
  auto w = std::async(std::launch::async, [&] {
    try {
      watcher->wait_failure();
      return Errc::kOk;
    } catch (const Error& e) {
      return e.code();
    }
  });
  ASSERT_TRUE(server->wait_for_blocked(kN + 1, 5s));
  // A connection that is mid-handshake, and one idle between requests, must not hold it up.
  RawConn half(server->port());
  ASSERT_TRUE(half.send(""));
  auto idle = make_client(*server, psk_tls(), -1);

  auto t0 = Clock::now();
  server.reset();
  EXPECT_LT(Clock::now() - t0, 2s);
  for (auto& r : results) EXPECT_EQ(r.get(), Errc::kStore);
  EXPECT_EQ(w.get(), Errc::kStore);
  expect_error([&] { idle->set("a", "b"); }, Errc::kStore, "bootstrap store");
  expect_error([&] { idle->set("a", "b"); }, Errc::kStore, "lost earlier");
}

TEST(StoreConnect, UnreachableStoreThrowsBootstrapErrorAfterTimeout) {
  std::uint16_t port;
  {
    auto probe = util::tcp_listen("127.0.0.1", 0);
    port = util::local_port(probe.get());
  }  // nothing listens on `port` any more
  auto t0 = Clock::now();
  expect_error([&] { StoreClient c("127.0.0.1", port, psk_tls(), 0, 300ms); }, Errc::kBootstrap,
               "SHMEM_STORE_ADDR=127.0.0.1:" + std::to_string(port));
  EXPECT_GE(Clock::now() - t0, 300ms);
  EXPECT_LT(Clock::now() - t0, 3s);
}

TEST(StoreConnect, ClientRetriesUntilTheServerListens) {
  // Reserve a port, release it, and start the server on it while the client is retrying.
  std::uint16_t port;
  {
    auto probe = util::tcp_listen("127.0.0.1", 0);
    port = util::local_port(probe.get());
  }
  std::unique_ptr<StoreServer> server;
  std::promise<void> client_started;
  auto fut = std::async(std::launch::async, [&] {
    client_started.set_value();
    StoreClient c("127.0.0.1", port, psk_tls(), -1, 10s);
    c.set("k", "v");
    return c.get("k", 1s);
  });
  client_started.get_future().wait();
  StoreServer::Options o;
  o.tls = psk_tls();
  o.port = port;
  server = std::make_unique<StoreServer>(std::move(o));
  EXPECT_EQ(server->port(), port);
  EXPECT_EQ(fut.get(), "v");
}

}  // namespace
}  // namespace shmem::bootstrap
