// Malformed and hostile input: each bad connection is closed on its own, with one warning,
// and the server keeps serving everybody else.
#include <gtest/gtest.h>

#include <string>

#include "base/log.hpp"
#include "bootstrap_store_util.hpp"

namespace shmem::bootstrap {
namespace {

using namespace test;
using wire::kMagic;
using wire::kVersion;
using wire::Op;

constexpr auto kSet = static_cast<std::uint16_t>(Op::kSet);

// A plain-TCP server (so hand-made frames reach the parser) with a good client connected.
class StoreRobust : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = make_server(plain_tls(), 300ms);
    good_ = make_client(*server_, plain_tls(), 0);
    good_->set("k", "before");
  }
  // The good client, connected before the bad one, still works; so does a new one.
  void expect_all_good() {
    good_->set("k", "after");
    EXPECT_EQ(good_->get("k", 1s), "after");
    expect_server_works(*server_, plain_tls());
    EXPECT_EQ(good_->add("n", 1), 1);
  }
  RawConn hello_raw() {
    RawConn r(server_->port());
    EXPECT_TRUE(r.send_hello(-1, kSecret));
    EXPECT_EQ(r.read_reply_status(), wire::Status::kOk);
    return r;
  }
  std::unique_ptr<StoreServer> server_;
  std::unique_ptr<StoreClient> good_;
};

TEST_F(StoreRobust, GarbageBytes) {
  RawConn r(server_->port());
  ASSERT_TRUE(r.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_TRUE(r.closed_by_server());
  expect_all_good();
}

TEST_F(StoreRobust, GarbageAfterHello) {
  RawConn r = hello_raw();
  std::string junk(100, '\0');
  for (std::size_t i = 0; i < junk.size(); ++i) junk[i] = static_cast<char>(i * 37 + 11);
  ASSERT_TRUE(r.send(junk));
  EXPECT_TRUE(r.closed_by_server());
  expect_all_good();
}

TEST_F(StoreRobust, WrongVersionAndUnknownOp) {
  RawConn a(server_->port());
  ASSERT_TRUE(a.send(header_bytes(kMagic, kVersion + 1, 1, 1, 0)));
  EXPECT_TRUE(a.closed_by_server());
  RawConn b = hello_raw();
  ASSERT_TRUE(b.send(header_bytes(kMagic, kVersion, 0x77, 2, 0)));
  EXPECT_TRUE(b.closed_by_server());
  expect_all_good();
}

TEST_F(StoreRobust, TruncatedFrameThenClose) {
  RawConn r = hello_raw();
  std::string frame = header_bytes(kMagic, kVersion, kSet, 2, 100) + std::string(10, 'x');
  ASSERT_TRUE(r.send(frame));
  r.shutdown_write();  // the peer is gone after 10 of 100 payload bytes
  EXPECT_TRUE(r.closed_by_server());
  RawConn h(server_->port());
  ASSERT_TRUE(h.send(header_bytes(kMagic, kVersion, kSet, 2, 0).substr(0, 7)));
  h.shutdown_write();  // ... or in the middle of a header
  EXPECT_TRUE(h.closed_by_server());
  expect_all_good();
}

TEST_F(StoreRobust, AbsurdLengthField) {
  RawConn r = hello_raw();
  ASSERT_TRUE(r.send(header_bytes(kMagic, kVersion, kSet, 2, 0xfffffff0u)));
  EXPECT_TRUE(r.closed_by_server());  // at once: nothing is allocated or awaited
  expect_all_good();
}

TEST_F(StoreRobust, LargeFrameBeforeHello) {
  // Within the protocol limit, but nobody reserves a megabyte for an unauthenticated peer.
  RawConn r(server_->port());
  ASSERT_TRUE(r.send(header_bytes(kMagic, kVersion, static_cast<std::uint16_t>(Op::kHello), 1, 1u << 20)));
  EXPECT_TRUE(r.closed_by_server());
  expect_all_good();
}

TEST_F(StoreRobust, OversizedFieldInsideAFrame) {
  RawConn r = hello_raw();
  wire::FrameWriter w;
  w.bytes(std::string(wire::kMaxKey + 1, 'k')).bytes("v");
  ASSERT_TRUE(r.send(w.finish(kSet, 2)));
  EXPECT_TRUE(r.closed_by_server());
  RawConn lying = hello_raw();  // a field length that points past the payload
  std::string payload = std::string("\xff\x00\x00\x00", 4) + "abc";
  ASSERT_TRUE(lying.send(header_bytes(kMagic, kVersion, kSet, 3, static_cast<std::uint32_t>(payload.size())) + payload));
  EXPECT_TRUE(lying.closed_by_server());
  expect_all_good();
}

TEST_F(StoreRobust, ClientVanishingMidFrameIsDropped) {
  // No FIN ever comes (host crashed, cable pulled): the io_timeout (300 ms here) drops it.
  RawConn r = hello_raw();
  ASSERT_TRUE(r.send(header_bytes(kMagic, kVersion, kSet, 2, 64) + "only part"));
  EXPECT_TRUE(r.closed_by_server());
  RawConn h = hello_raw();
  ASSERT_TRUE(h.send(header_bytes(kMagic, kVersion, kSet, 2, 64).substr(0, 5)));
  EXPECT_TRUE(h.closed_by_server());
  expect_all_good();
}

TEST_F(StoreRobust, SilentConnectionDroppedBeforeHello) {
  RawConn r(server_->port());
  EXPECT_TRUE(r.closed_by_server());
  expect_all_good();
}

TEST_F(StoreRobust, IdleConnectionIsNotDropped) {
  // Waiting between requests is not bounded by io_timeout: a client that said hello and then
  // stays quiet longer than that is still served.
  auto idle = make_client(*server_, plain_tls(), 1);
  expect_error([&] { good_->get("nothing", 600ms); }, Errc::kTimeout, "nothing");
  idle->set("late", "fine");
  EXPECT_EQ(idle->get("late", 1s), "fine");
}

TEST_F(StoreRobust, RequestBeforeHello) {
  RawConn r(server_->port());
  wire::FrameWriter w;
  w.bytes("k").bytes("evil");
  ASSERT_TRUE(r.send(w.finish(kSet, 1)));
  EXPECT_TRUE(r.closed_by_server());
  EXPECT_EQ(good_->get("k", 1s), "before");
  expect_all_good();
}

TEST_F(StoreRobust, RankedClientSendingGarbageFailsTheJobOnly) {
  // A PE that breaks the protocol is lost like a crashed one; the server itself stays up.
  RawConn r(server_->port());
  ASSERT_TRUE(r.send_hello(7, kSecret));
  ASSERT_EQ(r.read_reply_status(), wire::Status::kOk);
  ASSERT_TRUE(r.send("garbage garbage garbage"));
  EXPECT_TRUE(r.closed_by_server());
  auto watcher = make_client(*server_, plain_tls(), -1);
  EXPECT_EQ(watcher->wait_failure(), "PE 7 lost: connection closed before shmem_finalize");
}

TEST_F(StoreRobust, PlainHelloCarryingTheSecretIsRefused) {
  // The protocol before hello proofs sent the secret itself: refused, so a store never accepts
  // a secret that crossed the network in the clear.
  RawConn r(server_->port());
  ASSERT_TRUE(r.send(hello_frame(-1, kSecret)));
  EXPECT_EQ(r.read_reply_status(), wire::Status::kAuth);
  expect_all_good();
}

TEST_F(StoreRobust, ProofDoesNotReplayOnAnotherConnection) {
  RawConn a(server_->port());
  const std::string nonce_a = a.challenge();
  ASSERT_EQ(nonce_a.size(), kNonceBytes);
  const std::string proof_a = hello_proof(kSecret, nonce_a, -1, 0);
  ASSERT_TRUE(a.send(hello_frame(-1, proof_a, 2)));
  EXPECT_EQ(a.read_reply_status(), wire::Status::kOk);
  // A listener who recorded A's hello replays it on a connection of its own: another nonce.
  RawConn b(server_->port());
  EXPECT_NE(b.challenge(), nonce_a);
  ASSERT_TRUE(b.send(hello_frame(-1, proof_a, 2)));
  EXPECT_EQ(b.read_reply_status(), wire::Status::kAuth);
  // A proof for another rank than the hello names is refused too.
  RawConn c(server_->port());
  const std::string nonce_c = c.challenge();
  ASSERT_TRUE(c.send(hello_frame(3, hello_proof(kSecret, nonce_c, -1, 0), 2)));
  EXPECT_EQ(c.read_reply_status(), wire::Status::kAuth);
  expect_all_good();
}

TEST(StoreRobustTls, GarbageToTlsServer) {
  auto server = make_server(psk_tls(), 300ms);
  auto good = make_client(*server, psk_tls(), 0);
  RawConn r(server->port());
  ASSERT_TRUE(r.send(hello_frame(1, kSecret)));  // a plain-TCP client speaking our protocol
  EXPECT_TRUE(r.closed_by_server());
  RawConn s(server->port());
  ASSERT_TRUE(s.send(std::string("\x16\x03\x01\x00\x05", 5) + "hello"));  // a bogus ClientHello
  EXPECT_TRUE(s.closed_by_server());
  RawConn t(server->port());
  ASSERT_TRUE(t.send(std::string("\x16\x03\x01\x40\x00", 5)));  // a record header, then silence
  EXPECT_TRUE(t.closed_by_server());
  good->set("k", "v");
  EXPECT_EQ(good->get("k", 1s), "v");
  expect_server_works(*server, psk_tls());
}

TEST(StoreRobustLog, OneWarningNamingPeerAndReason) {
  TempDir dir;
  const std::string log_path = dir.file("store.log");
  log::configure(nullptr, log_path.c_str());
  std::string addr1;
  std::string addr2;
  {
    auto server = make_server(plain_tls(), 300ms);
    RawConn r(server->port());
    addr1 = r.local_address();
    ASSERT_TRUE(r.send(header_bytes(0x12345678, kVersion, kSet, 1, 0)));
    EXPECT_TRUE(r.closed_by_server());  // the server logs before it closes
    RawConn w(server->port());
    addr2 = w.local_address();
    ASSERT_TRUE(w.send_hello(-1, "wrong secret"));
    EXPECT_EQ(w.read_reply_status(), wire::Status::kAuth);
    EXPECT_TRUE(w.closed_by_server());
  }
  log::configure(nullptr, "/dev/stderr");
  std::string text = read_file(log_path);
  std::vector<std::string> lines;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t nl = text.find('\n', pos);
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl == std::string::npos ? text.size() : nl + 1;
  }
  int about1 = 0;
  int about2 = 0;
  for (const std::string& l : lines) {
    if (l.find("from " + addr1 + ":") != std::string::npos) {
      ++about1;
      EXPECT_NE(l.find("WARN"), std::string::npos) << l;
      EXPECT_NE(l.find("bad magic"), std::string::npos) << l;
    }
    if (l.find("from " + addr2 + ":") != std::string::npos) {
      ++about2;
      EXPECT_NE(l.find("authentication failed from " + addr2), std::string::npos) << l;
    }
  }
  EXPECT_EQ(about1, 1) << text;
  EXPECT_EQ(about2, 1) << text;
}

}  // namespace
}  // namespace shmem::bootstrap
