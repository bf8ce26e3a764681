// A launcher-less job gathering on its store: a misconfigured rank (wrong secret, different
// world size, a rank number outside the job, a rank claimed twice) fails the whole job at once,
// with a reason that names the cause and the rank, for every rank. Once every rank is there, a
// second hello for a connected rank is refused without ending the job.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "bootstrap_store_util.hpp"

namespace shmem::bootstrap {
namespace {

using namespace test;

std::unique_ptr<StoreClient> ranked(const StoreServer& s, const TlsConfig& tls, int rank, int world) {
  return std::make_unique<StoreClient>("127.0.0.1", s.port(), tls, rank, Millis{5000}, world);
}

// The job's failure as a waiting rank hears it.
std::string failure_seen_by(StoreClient& c) {
  try {
    c.get("never-set", Millis{5000});
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::kPeerLost) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "the job did not fail";
  return {};
}

TEST(StoreGather, WorldSizeDiffersFailsTheJobNamingBothRanks) {
  auto server = make_server(psk_tls());
  auto r0 = ranked(*server, psk_tls(), 0, 3);
  expect_error([&] { ranked(*server, psk_tls(), 2, 4); }, Errc::kInvalidValue,
               "WORLD_SIZE differs between ranks: rank 0 has 3, rank 2 has 4");
  EXPECT_NE(failure_seen_by(*r0).find("WORLD_SIZE differs between ranks: rank 0 has 3, rank 2 has 4"), std::string::npos);
  auto watcher = make_client(*server, psk_tls());
  int status = 0;
  EXPECT_NE(watcher->wait_failure(&status).find("WORLD_SIZE differs"), std::string::npos);
  EXPECT_EQ(status, 1);
}

TEST(StoreGather, RankOutsideTheJobFailsIt) {
  auto server = make_server(psk_tls());
  auto r0 = ranked(*server, psk_tls(), 0, 2);
  expect_error([&] { ranked(*server, psk_tls(), 5, 2); }, Errc::kInvalidValue,
               "RANK 5 is outside the job: WORLD_SIZE is 2 (ranks 0..1)");
  EXPECT_NE(failure_seen_by(*r0).find("RANK 5 is outside the job"), std::string::npos);
}

TEST(StoreGather, RankClaimedTwiceWhileGatheringFailsTheJob) {
  auto server = make_server(psk_tls());
  auto r0 = ranked(*server, psk_tls(), 0, 3);
  auto r1 = ranked(*server, psk_tls(), 1, 3);
  expect_error([&] { ranked(*server, psk_tls(), 1, 3); }, Errc::kInvalidValue, "RANK 1 claimed twice");
  EXPECT_NE(failure_seen_by(*r0).find("RANK 1 claimed twice"), std::string::npos);
  EXPECT_NE(failure_seen_by(*r1).find("RANK 1 claimed twice"), std::string::npos);
}

TEST(StoreGather, SecondHelloForAConnectedRankIsRefusedOnceGathered) {
  // Anyone holding the secret could otherwise impersonate PE 1 and end the job in its name.
  auto server = make_server(psk_tls());
  auto r0 = ranked(*server, psk_tls(), 0, 2);
  auto r1 = ranked(*server, psk_tls(), 1, 2);
  expect_error([&] { ranked(*server, psk_tls(), 1, 2); }, Errc::kInvalidValue, "RANK 1 claimed twice");
  expect_error([&] { ranked(*server, psk_tls(), 0, 0); }, Errc::kInvalidValue, "RANK 0 claimed twice");
  r1->set("still", "running");
  EXPECT_EQ(r0->get("still", Millis{2000}), "running");
  EXPECT_FALSE(server->rank_finalized(1));
  // A rank that finalized and left may come back (shmem_init after shmem_finalize).
  r1->goodbye();
  r1.reset();
  std::unique_ptr<StoreClient> again;
  for (int i = 0; i < 200 && !again; ++i) {
    try {
      again = ranked(*server, psk_tls(), 1, 2);
    } catch (const Error&) {  // the server has not seen the old connection close yet
      std::this_thread::sleep_for(Millis{10});
    }
  }
  ASSERT_TRUE(again);
  again->set("again", "yes");
  EXPECT_EQ(r0->get("again", Millis{2000}), "yes");
  again->goodbye();
  r0->goodbye();
}

TEST(StoreGather, WrongSecretWhileGatheringFailsTheJobNamingTheRank) {
  auto server = make_server(psk_tls());
  auto r0 = ranked(*server, psk_tls(), 0, 3);
  expect_error([&] { ranked(*server, psk_tls("another secret"), 2, 3); }, Errc::kAuth,
               "rank 2 failed authentication (wrong SHMEM_JOB_SECRET?)");
  const std::string why = failure_seen_by(*r0);
  EXPECT_NE(why.find("rank 2 failed authentication"), std::string::npos) << why;
  EXPECT_NE(why.find("SHMEM_JOB_SECRET"), std::string::npos) << why;
}

TEST(StoreGather, WrongSecretOnPlainTcpWhileGatheringFailsTheJob) {
  auto server = make_server(plain_tls());
  auto r0 = ranked(*server, plain_tls(), 0, 2);
  expect_error([&] { ranked(*server, plain_tls("another secret"), 1, 2); }, Errc::kAuth, "refused the hello");
  EXPECT_NE(failure_seen_by(*r0).find("rank 1 failed authentication"), std::string::npos);
}

TEST(StoreGather, WrongSecretAfterGatheringIsOnlyRefused) {
  auto server = make_server(psk_tls());
  auto r0 = ranked(*server, psk_tls(), 0, 2);
  auto r1 = ranked(*server, psk_tls(), 1, 2);
  expect_error([&] { ranked(*server, psk_tls("another secret"), 1, 2); }, Errc::kAuth, "failed authentication");
  expect_error([&] { make_client(*server, psk_tls("another secret")); }, Errc::kAuth, "authentication failed");
  r1->set("k", "v");
  EXPECT_EQ(r0->get("k", Millis{2000}), "v");
}

}  // namespace
}  // namespace shmem::bootstrap
