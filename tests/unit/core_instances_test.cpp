// Several runtimes ("instances") in one process, created, used and finalised repeatedly.
#include <gtest/gtest.h>

#include <cstdlib>

#include "base/error.hpp"
#include "core/hot.hpp"
#include "core/init_ops.hpp"
#include "core/ops.hpp"
#include "core/runtime.hpp"

namespace core = shmem::core;

namespace {
core::InitSpec singleton(std::uint64_t id, std::uint64_t heap) {
  core::InitSpec s;
  s.mode = core::BootstrapMode::kTcp;
  s.pe = 0;
  s.npes = 1;
  s.store_url = "tcp://127.0.0.1:1";  // one PE: the store is never contacted
  s.heap_size = heap;
  s.instance_id = id;
  return s;
}
}  // namespace

TEST(Instances, CreateUseSwitchFinalizeRepeatedly) {
  unsetenv("SHMEM_PE");
  unsetenv("SHMEM_NPES");
  for (int round = 0; round < 20; ++round) {
    core::init_with(singleton(3, 8 << 20));
    core::init_with(singleton(7, 16 << 20));
    EXPECT_EQ(core::instance_current(), 7u);
    auto* a = static_cast<long*>(core::malloc(64));
    ASSERT_NE(a, nullptr);
    *a = 7;
    ASSERT_EQ(core::instance_set(3), 0);
    EXPECT_EQ(core::instance_current(), 3u);
    auto* b = static_cast<long*>(core::malloc(64));
    ASSERT_NE(b, nullptr);
    EXPECT_NE(a, b);  // separate heaps
    EXPECT_EQ(core::hot::ptr(a, 0), nullptr) << "instance 7's memory is not symmetric in instance 3";
    EXPECT_EQ(core::instance_set(99), 1);
    EXPECT_EQ(core::instance_finalize(3), 0);
    EXPECT_EQ(core::instance_current(), 7u) << "falls back to the remaining instance";
    EXPECT_EQ(*a, 7);
    EXPECT_EQ(core::instance_finalize(7), 0);
    EXPECT_EQ(core::init_status(), 0);
    EXPECT_EQ(core::instance_finalize(7), 1);
  }
}

TEST(Instances, SecondInitOfALiveInstanceIsAnError) {
  core::init_with(singleton(4, 4 << 20));
  EXPECT_THROW(core::init_with(singleton(4, 4 << 20)), shmem::Error);
  EXPECT_EQ(core::instance_finalize(4), 0);
}

TEST(Instances, TlsSettingsOnlyBeforeInit) {
  EXPECT_THROW(core::set_store_tls(true, "tlsBogus: x"), shmem::Error);
  core::set_store_tls(true, "");
  core::init_with(singleton(1, 4 << 20));
  try {
    core::set_store_tls(false, "");
    FAIL() << "accepted after init";
  } catch (const shmem::Error& e) {
    EXPECT_NE(std::string(e.what()).find("before initialisation"), std::string::npos);
  }
  EXPECT_EQ(core::instance_finalize(1), 0);
}

TEST(Instances, UniqueIdRoundTripsItsAddress) {
  unsigned char uid[core::kUniqueIdBytes];
  core::uniqueid_create(uid);
  core::InitSpec s = singleton(2, 4 << 20);
  s.mode = core::BootstrapMode::kUniqueId;
  s.unique_id = uid;
  core::init_with(s);  // PE 0 of 1 adopts the store it started
  EXPECT_EQ(core::init_status(), 2);
  EXPECT_EQ(core::instance_finalize(2), 0);
  unsigned char bad[core::kUniqueIdBytes] = {};
  s.unique_id = bad;
  EXPECT_THROW(core::init_with(s), shmem::Error);
}

TEST(Instances, BadTcpUrlNamesTheArgument) {
  core::InitSpec s = singleton(6, 4 << 20);
  s.store_url = "udp://x";
  try {
    core::init_with(s);
    FAIL();
  } catch (const shmem::Error& e) {
    EXPECT_NE(std::string(e.what()).find("tcp://host:port"), std::string::npos);
  }
}
