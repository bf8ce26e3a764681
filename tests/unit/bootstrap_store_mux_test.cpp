// A host agent's relay (bootstrap/store_relay.hpp): PEs reach the store through one
// authenticated connection, each on a channel that the store serves as a connection of its
// own (store_server_mux.cpp); and a socketpair the store's owner hands over for a PE of its
// own host (StoreServer::adopt).
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>

#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "bootstrap/store_link.hpp"
#include "bootstrap/store_relay.hpp"
#include "bootstrap_store_util.hpp"

namespace shmem::bootstrap {
namespace {

using namespace test;

// The store's on_rank_lost calls, for a test to wait on (bounded by a deadline).
struct Losses {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::pair<int, std::string>> seen;
  void add(int rank, const std::string& why) {
    {
      std::lock_guard<std::mutex> g(mu);
      seen.emplace_back(rank, why);
    }
    cv.notify_all();
  }
  std::optional<std::pair<int, std::string>> first(Millis timeout) {
    std::unique_lock<std::mutex> lk(mu);
    if (!cv.wait_for(lk, timeout, [&] { return !seen.empty(); })) return std::nullopt;
    return seen.front();
  }
};

std::unique_ptr<StoreServer> server_reporting(const TlsConfig& tls, Losses& losses) {
  StoreServer::Options o;
  o.tls = tls;
  o.on_rank_lost = [&losses](int rank, const std::string& why) { losses.add(rank, why); };
  return std::make_unique<StoreServer>(std::move(o));
}

std::unique_ptr<StoreRelay> make_relay(const StoreServer& s, const TlsConfig& tls, const std::string& host = "h2") {
  StoreRelay::Options o;
  o.store_host = "127.0.0.1";
  o.store_port = s.port();
  o.tls = tls;
  o.connect_timeout = Millis{5000};
  o.host = host;
  return std::make_unique<StoreRelay>(o);
}

std::unique_ptr<StoreClient> through(StoreRelay& relay, int rank, int world, int hello_as = -1) {
  return std::make_unique<StoreClient>(relay.add(rank), "the test's relay", hello_as < 0 ? rank : hello_as, world);
}

class StoreLoopMux : public ::testing::TestWithParam<bool> {
 protected:
  TlsConfig tls() const { return GetParam() ? psk_tls() : plain_tls(); }
};

TEST_P(StoreLoopMux, ChannelsSayHelloAndShareOneConnection) {
  auto server = make_server(tls());
  auto relay = make_relay(*server, tls());
  auto a = through(*relay, 0, 2);
  auto b = through(*relay, 1, 2);
  a->set("from/0", "zero");
  EXPECT_EQ(b->get("from/0", Millis{5000}), "zero");
  EXPECT_TRUE(server->rank_connected(0));
  EXPECT_TRUE(server->rank_connected(1));
  // A direct client meets them on the same store.
  auto direct = make_client(*server, tls());
  EXPECT_EQ(direct->add("n", 1), 1);
  EXPECT_EQ(a->add("n", 1), 2);
  a->goodbye();
  b->goodbye();
  EXPECT_TRUE(server->rank_finalized(0));
  EXPECT_TRUE(server->rank_finalized(1));
}

TEST_P(StoreLoopMux, HelloAsAnotherRankThanTheChannelsIsRefused) {
  Losses losses;
  auto server = server_reporting(tls(), losses);
  auto relay = make_relay(*server, tls());
  expect_error([&] { through(*relay, 1, 4, /*hello_as=*/2); }, Errc::kInvalidValue,
               "hello as rank 2 on the channel that host h2's relay");
  EXPECT_FALSE(server->rank_connected(2));
  EXPECT_FALSE(server->rank_connected(1));
  // The relay and its other channels go on.
  auto ok = through(*relay, 3, 4);
  ok->set("k", "v");
  EXPECT_EQ(ok->get("k", Millis{2000}), "v");
  ok->goodbye();
}

TEST_P(StoreLoopMux, AClosedChannelLosesItsRank) {
  Losses losses;
  auto server = server_reporting(tls(), losses);
  auto relay = make_relay(*server, tls());
  auto gone = through(*relay, 0, 2);
  auto stays = through(*relay, 1, 2);
  gone.reset();  // the PE's end closes: the relay closes its channel
  auto lost = losses.first(Millis{5000});
  ASSERT_TRUE(lost);
  EXPECT_EQ(lost->first, 0);
  EXPECT_NE(lost->second.find("PE 0 lost"), std::string::npos) << lost->second;
  expect_error([&] { stays->get("never", Millis{5000}); }, Errc::kPeerLost, "PE 0 lost");
}

TEST_P(StoreLoopMux, AGoodbyeBeforeTheChannelClosesIsNoLoss) {
  Losses losses;
  auto server = server_reporting(tls(), losses);
  auto relay = make_relay(*server, tls());
  auto done = through(*relay, 0, 2);
  auto other = through(*relay, 1, 2);
  done->goodbye();
  done.reset();
  // Were the close a loss, this request (after it, on the same relay) would see the failure.
  other->set("after", "1");
  EXPECT_EQ(other->get("after", Millis{2000}), "1");
  other->goodbye();
  relay.reset();
  server.reset();
  std::lock_guard<std::mutex> g(losses.mu);
  EXPECT_TRUE(losses.seen.empty()) << losses.seen.front().second;
}

TEST_P(StoreLoopMux, AParkedGetOnOneChannelDoesNotBlockAnother) {
  auto server = make_server(tls());
  auto relay = make_relay(*server, tls());
  auto waiter = through(*relay, 0, 2);
  auto other = through(*relay, 1, 2);
  std::string got;
  std::thread t([&] { got = waiter->get("late", Millis{10000}); });
  ASSERT_TRUE(server->wait_for_blocked(1, Millis{5000}));
  // The other channel is served while the first one's get is parked.
  other->set("x", "1");
  EXPECT_EQ(other->try_get("x"), std::optional<std::string>("1"));
  EXPECT_EQ(other->add("c", 5), 5);
  EXPECT_EQ(server->blocked_requests(), 1u);
  other->set("late", "now");
  t.join();
  EXPECT_EQ(got, "now");
}

TEST_P(StoreLoopMux, LosingTheRelayLosesItsRanksNamingTheHost) {
  Losses losses;
  auto server = server_reporting(tls(), losses);
  auto relay = make_relay(*server, tls(), "node7");
  auto a = through(*relay, 0, 3);
  auto b = through(*relay, 1, 3);
  relay.reset();  // the agent's connection closes with both PEs' channels open
  auto lost = losses.first(Millis{5000});
  ASSERT_TRUE(lost);
  EXPECT_NE(lost->second.find("host node7's relay"), std::string::npos) << lost->second;
  auto direct = make_client(*server, tls(), 2);
  expect_error([&] { direct->get("never", Millis{5000}); }, Errc::kPeerLost, "host node7's relay");
  // Reported once: the job failed at the first, the second is its consequence.
  std::lock_guard<std::mutex> g(losses.mu);
  EXPECT_EQ(losses.seen.size(), 1u);
}

TEST_P(StoreLoopMux, LosingTheRelayNamesTheRankOfItsFirstChannel) {
  // A PE's relay (host_relay.hpp) opens its owner's channel first: when that PE dies, its
  // relay's connection closes, and the loss the job fails with names that PE.
  Losses losses;
  auto server = server_reporting(tls(), losses);
  auto relay = make_relay(*server, tls(), "node5");
  auto owner = through(*relay, 5, 8);
  auto c = through(*relay, 2, 8);
  auto d = through(*relay, 7, 8);
  auto e = through(*relay, 3, 8);
  relay.reset();
  auto lost = losses.first(Millis{5000});
  ASSERT_TRUE(lost);
  EXPECT_EQ(lost->first, 5) << lost->second;
}

TEST_P(StoreLoopMux, TheRelaySaysWhenTheStoreEnds) {
  auto server = make_server(tls());
  auto relay = make_relay(*server, tls());
  auto a = through(*relay, 0, 2);
  EXPECT_FALSE(relay->ended().ended);
  server.reset();
  pollfd p{relay->ended_fd(), POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 5000), 1);
  const auto end = relay->ended();
  EXPECT_TRUE(end.ended);
  EXPECT_FALSE(end.silent);
  EXPECT_NE(end.why.find("closed this host's connection (the launcher ended?)"), std::string::npos) << end.why;
}

TEST_P(StoreLoopMux, ChannelOpsOnAPesOwnConnectionAreRefused) {
  auto server = make_server(tls());
  auto pe = make_client(*server, tls(), 0);
  // A PE's connection is not a relay: the store closes it (a violation), and the PE is lost.
  auto link = pe->release();
  wire::FrameWriter w;
  w.i64(1).bytes("h");
  const std::string frame = w.finish(static_cast<std::uint16_t>(wire::Op::kMuxOpen), 1);
  ASSERT_TRUE(link->ch.write(frame.data(), frame.size()).ok());
  char c;
  util::set_io_timeouts(link->fd.get(), Millis{5000}, Millis{5000});
  const auto r = link->ch.read(&c, 1);
  EXPECT_NE(r.status, util::IoResult::kOk);
  EXPECT_NE(r.status, util::IoResult::kTimeout);
}

// An agent's connection spoken by hand: an unranked client's link (an agent says hello as no
// rank), on which the test writes kMuxOpen/Data/Close frames and reads what the store sends.
class RawAgent {
 public:
  struct Frame {
    wire::Op op;  // without kReplyBit
    std::uint32_t chan;
    std::string payload;
  };
  RawAgent(const StoreServer& s, const TlsConfig& tls) : link_(make_client(s, tls)->release()) {
    util::set_io_timeouts(link_->fd.get(), Millis{8000}, Millis{8000});  // a store that sends nothing fails the test
  }
  bool open(std::uint32_t chan, int rank, const std::string& host) {
    wire::FrameWriter w;
    w.i64(rank).bytes(host);
    return send(wire::Op::kMuxOpen, chan, w);
  }
  bool data(std::uint32_t chan, std::string_view bytes) {
    wire::FrameWriter w;
    w.raw(bytes);
    return send(wire::Op::kMuxData, chan, w);
  }
  bool close(std::uint32_t chan) {
    wire::FrameWriter w;
    w.bytes("");
    return send(wire::Op::kMuxClose, chan, w);
  }
  // The store's next frame; nullopt when the connection ended (or nothing came in time).
  std::optional<Frame> next() {
    unsigned char head[wire::kHeaderSize];
    if (!link_->ch.read(head, sizeof head).ok()) return std::nullopt;
    wire::Header h;
    std::string detail;
    if (const char* bad = wire::decode_header(head, true, &h, &detail)) {
      ADD_FAILURE() << bad << ": " << detail;
      return std::nullopt;
    }
    std::string payload(h.length, '\0');
    if (h.length > 0 && !link_->ch.read(payload.data(), payload.size()).ok()) return std::nullopt;
    return Frame{static_cast<wire::Op>(h.op & ~wire::kReplyBit), h.id, std::move(payload)};
  }
  // Whether the store closed the connection (a read ends, not by the timeout).
  bool closed_by_store() {
    char c;
    const auto r = link_->ch.read(&c, 1);
    return r.status != util::IoResult::kOk && r.status != util::IoResult::kTimeout;
  }

 private:
  bool send(wire::Op op, std::uint32_t chan, wire::FrameWriter& w) {
    const std::string frame = w.finish(static_cast<std::uint16_t>(op), chan);
    return link_->ch.write(frame.data(), frame.size()).ok();
  }
  std::unique_ptr<StoreLink> link_;
};

// A PE's hello as it travels in a channel: no proof (the agent authenticated the channel).
std::string channel_hello(int rank, int world) {
  wire::FrameWriter w;
  w.i64(rank).bytes("").i64(world);
  return w.finish(static_cast<std::uint16_t>(wire::Op::kHello), 1);
}

// The store's close of a channel that is not open there, naming it.
void expect_not_open(RawAgent& agent, std::uint32_t chan) {
  auto f = agent.next();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->op, wire::Op::kMuxClose);
  EXPECT_EQ(f->chan, chan);
  wire::PayloadReader in(f->payload);
  EXPECT_EQ(std::string(in.bytes(wire::kMaxKey, "reason")),
            "channel " + std::to_string(chan) + " is not open at the store");
  in.expect_end();
}

// The store's answer to a channel's hello: kMuxData on that channel carrying the hello's reply.
void expect_hello_reply(RawAgent& agent, std::uint32_t chan) {
  auto f = agent.next();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->op, wire::Op::kMuxData);
  EXPECT_EQ(f->chan, chan);
  ASSERT_GE(f->payload.size(), wire::kHeaderSize);
  wire::Header h;
  std::string detail;
  ASSERT_EQ(wire::decode_header(reinterpret_cast<const unsigned char*>(f->payload.data()), true, &h, &detail), nullptr)
      << detail;
  EXPECT_EQ(h.op, static_cast<std::uint16_t>(wire::Op::kHello) | wire::kReplyBit);
}

// Data for a channel that was never opened, or that the agent closed, is answered with that
// channel's kMuxClose naming it; the agent's connection and its other channels go on.
TEST_P(StoreLoopMux, DataOnAChannelThatIsNotOpenIsAnsweredWithItsClose) {
  auto server = make_server(tls());
  RawAgent agent(*server, tls());
  ASSERT_TRUE(agent.data(7, channel_hello(0, 2)));  // channel 7 was never opened
  ASSERT_TRUE(agent.open(8, 0, "h9"));
  ASSERT_TRUE(agent.data(8, channel_hello(0, 2)));
  expect_not_open(agent, 7);
  expect_hello_reply(agent, 8);
  EXPECT_TRUE(server->rank_connected(0));
  // A channel the agent closed (before its PE's hello: no loss) is not open either.
  ASSERT_TRUE(agent.open(9, 1, "h9"));
  ASSERT_TRUE(agent.close(9));
  ASSERT_TRUE(agent.data(9, channel_hello(1, 2)));
  expect_not_open(agent, 9);
  EXPECT_FALSE(server->rank_connected(1));
}

// Opening a channel that is open is a protocol violation: the store closes the agent's
// connection, and the PE on the open channel is lost naming the agent's host.
TEST_P(StoreLoopMux, AChannelOpenedTwiceClosesTheAgentsConnection) {
  Losses losses;
  auto server = server_reporting(tls(), losses);
  RawAgent agent(*server, tls());
  ASSERT_TRUE(agent.open(3, 0, "node5"));
  ASSERT_TRUE(agent.data(3, channel_hello(0, 2)));
  expect_hello_reply(agent, 3);
  ASSERT_TRUE(server->rank_connected(0));
  ASSERT_TRUE(agent.open(3, 1, "node5"));
  EXPECT_TRUE(agent.closed_by_store());
  auto lost = losses.first(Millis{5000});
  ASSERT_TRUE(lost);
  EXPECT_EQ(lost->first, 0);
  EXPECT_NE(lost->second.find("host node5's relay"), std::string::npos) << lost->second;
  EXPECT_FALSE(server->rank_connected(1));
}

// A PE on the launcher's host: the store serves one end of a socketpair as its connection.
std::pair<util::UniqueFd, util::UniqueFd> socket_pair() {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) throw std::runtime_error("socketpair failed");
  return {util::UniqueFd(sv[0]), util::UniqueFd(sv[1])};
}

TEST_P(StoreLoopMux, AnAdoptedSocketpairIsTheConnectionOfItsRank) {
  Losses losses;
  auto server = server_reporting(tls(), losses);
  auto [store_end, pe_end] = socket_pair();
  server->adopt(std::move(store_end), 1);
  auto pe = std::make_unique<StoreClient>(std::move(pe_end), "the test's socketpair", 1, 2);
  pe->set("k", "v");
  EXPECT_EQ(pe->get("k", Millis{2000}), "v");
  EXPECT_TRUE(server->rank_connected(1));
  pe.reset();  // closed before goodbye: that PE is lost
  auto lost = losses.first(Millis{5000});
  ASSERT_TRUE(lost);
  EXPECT_EQ(lost->first, 1);
}

TEST_P(StoreLoopMux, AnAdoptedSocketpairRefusesAnotherRank) {
  auto server = make_server(tls());
  auto ends = socket_pair();  // not a structured binding: clang 14 cannot capture one in a lambda
  server->adopt(std::move(ends.first), 1);
  expect_error([&] { StoreClient(std::move(ends.second), "the test's socketpair", 2, 4); }, Errc::kInvalidValue,
               "hello as rank 2 on the socketpair the launcher made for PE 1");
  EXPECT_FALSE(server->rank_connected(2));
}

INSTANTIATE_TEST_SUITE_P(Tls, StoreLoopMux, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "tls" : "plain"; });

}  // namespace
}  // namespace shmem::bootstrap
