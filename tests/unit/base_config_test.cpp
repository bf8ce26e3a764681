#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "base/config.hpp"
#include "base/error.hpp"

using shmem::Errc;
using shmem::Error;

TEST(ConfigParse, SizesWithSuffixes) {
  EXPECT_EQ(shmem::parse_size("4096", "X"), 4096u);
  EXPECT_EQ(shmem::parse_size("512K", "X"), 512u << 10);
  EXPECT_EQ(shmem::parse_size("64m", "X"), 64ull << 20);
  EXPECT_EQ(shmem::parse_size("1G", "X"), 1ull << 30);
  EXPECT_EQ(shmem::parse_size("2T", "X"), 2ull << 40);
  EXPECT_EQ(shmem::parse_size(" 3GB ", "X"), 3ull << 30);
  EXPECT_EQ(shmem::parse_size("7MiB", "X"), 7ull << 20);
}

TEST(ConfigParse, RejectsBadSizesNamingTheVariable) {
  for (const char* bad : {"12xb", "", "G", "-1", "1.5G", "1 G B", "99999999999999999999", "16777216T"}) {
    try {
      shmem::parse_size(bad, "SHMEM_SYMMETRIC_SIZE");
      FAIL() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::kInvalidValue);
      EXPECT_NE(std::string(e.what()).find("SHMEM_SYMMETRIC_SIZE"), std::string::npos) << e.what();
    }
  }
}

TEST(ConfigParse, Bools) {
  EXPECT_TRUE(shmem::parse_bool("1", "X"));
  EXPECT_TRUE(shmem::parse_bool("yes", "X"));
  EXPECT_TRUE(shmem::parse_bool("ON", "X"));
  EXPECT_FALSE(shmem::parse_bool("0", "X"));
  EXPECT_FALSE(shmem::parse_bool("false", "X"));
  EXPECT_THROW(shmem::parse_bool("maybe", "X"), Error);
}

TEST(ConfigParse, IntsAndSeconds) {
  EXPECT_EQ(shmem::parse_int("-3", "X"), -3);
  EXPECT_THROW(shmem::parse_int("3x", "X"), Error);
  EXPECT_DOUBLE_EQ(shmem::parse_seconds("2.5", "X"), 2.5);
  EXPECT_DOUBLE_EQ(shmem::parse_seconds("10s", "X"), 10.0);
  EXPECT_THROW(shmem::parse_seconds("-1", "X"), Error);
  EXPECT_THROW(shmem::parse_seconds("soon", "X"), Error);
}

TEST(ConfigEnv, DefaultsComeFromTheTable) {
  unsetenv("SHMEM_SYMMETRIC_SIZE");
  unsetenv("SHMEM_WAIT_TIMEOUT");
  auto c = shmem::Config::from_env();
  EXPECT_EQ(c.symmetric_size, 1ull << 30);
  EXPECT_DOUBLE_EQ(c.wait_timeout, 0.0);
  EXPECT_TRUE(c.bootstrap_tls);
  bool found = false;
  for (const auto& v : shmem::config_vars()) found |= std::string(v.name) == "SHMEM_SYMMETRIC_SIZE";
  EXPECT_TRUE(found);
}

TEST(ConfigEnv, BadEnvironmentValueIsRejected) {
  setenv("SHMEM_SYMMETRIC_SIZE", "12xb", 1);
  try {
    shmem::Config::from_env();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("SHMEM_SYMMETRIC_SIZE='12xb'"), std::string::npos) << e.what();
  }
  unsetenv("SHMEM_SYMMETRIC_SIZE");
}

TEST(ConfigEnv, ChoiceVariablesNameTheirChoices) {
  for (const char* name : {"SHMEM_COLL_RINGS", "SHMEM_COLL_XHOST_ALGO", "SHMEM_PROGRESS_THREAD", "SHMEM_TRANSPORT"}) {
    setenv(name, "sometimes", 1);
    try {
      shmem::Config::from_env();
      ADD_FAILURE() << name << "=sometimes was accepted";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::string(name) + "='sometimes'"), std::string::npos) << what;
      EXPECT_NE(what.find("auto"), std::string::npos) << what;
    }
    unsetenv(name);
  }
  setenv("SHMEM_COLL_RINGS", "on", 1);
  EXPECT_EQ(shmem::Config::from_env().coll_rings, shmem::CollRingsMode::kOn);
  unsetenv("SHMEM_COLL_RINGS");
  EXPECT_EQ(shmem::Config::from_env().coll_rings, shmem::CollRingsMode::kAuto);
}

TEST(ConfigEnv, EnumsParseToTheirEnumerators) {
  setenv("SHMEM_TRANSPORT", "none", 1);
  setenv("SHMEM_PROGRESS_THREAD", "off", 1);
  setenv("SHMEM_COLL_XHOST_ALGO", "ring", 1);
  setenv("SHMEM_ACL_DEVICE", "cuda", 1);
  const shmem::Config c = shmem::Config::from_env();
  EXPECT_EQ(c.transport, shmem::TransportMode::kNone);
  EXPECT_EQ(c.progress_thread, shmem::ProgressThreadMode::kOff);
  EXPECT_EQ(c.coll_xhost_algo, shmem::CollXhostAlgo::kRing);
  EXPECT_EQ(c.acl_device, shmem::AclDeviceMode::kCuda);
  EXPECT_STREQ(shmem::to_string(c.coll_xhost_algo), "ring");
  EXPECT_STREQ(shmem::to_string(shmem::TransportMode::kUcx), "ucx");
  for (const char* n : {"SHMEM_TRANSPORT", "SHMEM_PROGRESS_THREAD", "SHMEM_COLL_XHOST_ALGO", "SHMEM_ACL_DEVICE"})
    unsetenv(n);
  const shmem::Config d = shmem::Config::from_env();
  EXPECT_EQ(d.transport, shmem::TransportMode::kAuto);
  EXPECT_EQ(d.acl_device, shmem::AclDeviceMode::kCpu);
}

TEST(ConfigEnv, BadEnumValueListsEveryAllowedValue) {
  setenv("SHMEM_ACL_DEVICE", "gpu", 1);
  try {
    shmem::Config::from_env();
    ADD_FAILURE() << "SHMEM_ACL_DEVICE=gpu was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "SHMEM_ACL_DEVICE='gpu' is invalid: expected cpu or cuda");
  }
  unsetenv("SHMEM_ACL_DEVICE");
}

TEST(ConfigVars, EnumRowsListTheirValues) {
  for (const auto& v : shmem::config_vars()) {
    if (std::string(v.name) == "SHMEM_TRANSPORT") {
      EXPECT_STREQ(v.kind, "Enum");
      ASSERT_NE(v.allowed, nullptr);
      EXPECT_STREQ(v.allowed, "auto, ucx, none");
      EXPECT_NO_THROW(v.check("ucx", v.name));
      EXPECT_THROW(v.check("tcp", v.name), Error);
    }
    if (std::string(v.name) == "SHMEM_DEBUG") {
      EXPECT_EQ(v.allowed, nullptr);
    }
  }
}

TEST(ConfigEnv, HostTimeoutIsWholeSecondsInRange) {
  unsetenv("SHMEM_HOST_TIMEOUT");
  EXPECT_EQ(shmem::host_timeout_from_env().count(), 60);
  EXPECT_EQ(shmem::Config::from_env().host_timeout, 60);
  setenv("SHMEM_HOST_TIMEOUT", "5", 1);
  EXPECT_EQ(shmem::host_timeout_from_env().count(), 5);
  EXPECT_EQ(shmem::Config::from_env().host_timeout, 5);
  for (const char* bad : {"0", "2.5", "86401", "abc", "-3"}) {
    setenv("SHMEM_HOST_TIMEOUT", bad, 1);
    try {
      shmem::Config::from_env();
      ADD_FAILURE() << "SHMEM_HOST_TIMEOUT=" << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("SHMEM_HOST_TIMEOUT='") + bad + "'"), std::string::npos)
          << e.what();
    }
    EXPECT_THROW(shmem::host_timeout_from_env(), Error) << bad;
  }
  unsetenv("SHMEM_HOST_TIMEOUT");
}
