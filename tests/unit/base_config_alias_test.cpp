// SMA_SYMMETRIC_SIZE and SHMEM_SYMMETRIC_HEAP_SIZE (other implementations' names) are accepted as
// aliases of SHMEM_SYMMETRIC_SIZE, and SOS's / OSHMEM's SMA_DEBUG, SMA_INFO, SMA_VERSION of the
// spec's SHMEM_DEBUG, SHMEM_INFO, SHMEM_VERSION; the table's own name wins when both are set.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "base/config.hpp"
#include "base/error.hpp"

namespace {
void clear() {
  for (const char* n : {"SHMEM_SYMMETRIC_SIZE", "SMA_SYMMETRIC_SIZE", "SHMEM_SYMMETRIC_HEAP_SIZE", "SHMEM_DEBUG",
                        "SMA_DEBUG", "SHMEM_INFO", "SMA_INFO", "SHMEM_VERSION", "SMA_VERSION"})
    unsetenv(n);
}
}  // namespace

TEST(ConfigAlias, SmaSymmetricSize) {
  clear();
  setenv("SMA_SYMMETRIC_SIZE", "64M", 1);
  EXPECT_EQ(shmem::Config::from_env().symmetric_size, 64ull << 20);
  clear();
}

TEST(ConfigAlias, SymmetricHeapSize) {
  clear();
  setenv("SHMEM_SYMMETRIC_HEAP_SIZE", "3G", 1);
  EXPECT_EQ(shmem::Config::from_env().symmetric_size, 3ull << 30);
  EXPECT_EQ(std::string(shmem::config_alias_value("SHMEM_SYMMETRIC_SIZE")), "3G");
  clear();
}

TEST(ConfigAlias, OwnNameWins) {
  clear();
  setenv("SMA_SYMMETRIC_SIZE", "64M", 1);
  setenv("SHMEM_SYMMETRIC_SIZE", "2M", 1);
  EXPECT_EQ(shmem::Config::from_env().symmetric_size, 2ull << 20);
  clear();
  EXPECT_EQ(shmem::config_alias_value("SHMEM_SYMMETRIC_SIZE"), nullptr);
  EXPECT_EQ(shmem::Config::from_env().symmetric_size, 1ull << 30);  // the table's default
}

TEST(ConfigAlias, BadAliasValueIsRejected) {
  clear();
  setenv("SMA_SYMMETRIC_SIZE", "lots", 1);
  EXPECT_THROW(shmem::Config::from_env(), shmem::Error);
  clear();
}

TEST(ConfigAlias, EveryAliasNamesATableVariable) {
  for (const auto& a : shmem::config_aliases()) {
    bool found = false;
    for (const auto& v : shmem::config_vars()) found |= std::string(v.name) == a.canonical;
    EXPECT_TRUE(found) << a.alias << " -> " << a.canonical;
  }
}

TEST(ConfigAlias, SmaDebugInfoVersion) {
  clear();
  setenv("SMA_DEBUG", "1", 1);
  setenv("SMA_INFO", "yes", 1);
  setenv("SMA_VERSION", "on", 1);
  const shmem::Config c = shmem::Config::from_env();
  EXPECT_TRUE(c.debug);
  EXPECT_TRUE(c.info);
  EXPECT_TRUE(c.version);
  setenv("SHMEM_DEBUG", "0", 1);  // the spec's name wins
  EXPECT_FALSE(shmem::Config::from_env().debug);
  clear();
  const shmem::Config d = shmem::Config::from_env();
  EXPECT_FALSE(d.debug || d.info || d.version);
}

TEST(ConfigAlias, BadValueNamesTheAliasAsSet) {
  clear();
  setenv("SMA_DEBUG", "maybe", 1);
  try {
    shmem::Config::from_env();
    ADD_FAILURE() << "SMA_DEBUG=maybe was accepted";
  } catch (const shmem::Error& e) {
    EXPECT_NE(std::string(e.what()).find("SMA_DEBUG (read as SHMEM_DEBUG)='maybe' is invalid"), std::string::npos)
        << e.what();
  }
  clear();
}

TEST(ConfigAlias, AliasesAreNotUnknownVariables) {
  clear();
  setenv("SHMEM_SYMMETRIC_HEAP_SIZE", "1G", 1);
  setenv("SHMEM_DEBUGG", "1", 1);
  const std::vector<std::string> msgs = shmem::unknown_variable_messages();
  unsetenv("SHMEM_DEBUGG");
  clear();
  bool typo = false;
  for (const std::string& m : msgs) {
    typo = typo || m.find("SHMEM_DEBUGG is not a shmem variable") != std::string::npos;
    EXPECT_EQ(m.find("SHMEM_SYMMETRIC_HEAP_SIZE"), std::string::npos) << m;
  }
  EXPECT_TRUE(typo) << "the misspelt SHMEM_DEBUGG was not reported";
}

// Variables our tools read (oshcc's SHMEM_CC, ...) are shmem variables too, just not the library's.
TEST(ConfigUnknown, ToolVariablesAreKnown) {
  setenv("SHMEM_CC", "gcc", 1);
  setenv("SHMEM_CXX", "g++", 1);
  setenv("SHMEM_PY_OSHRUN", "/usr/bin/oshrun", 1);
  const std::vector<std::string> msgs = shmem::unknown_variable_messages();
  for (const char* n : {"SHMEM_CC", "SHMEM_CXX", "SHMEM_PY_OSHRUN"}) unsetenv(n);
  for (const std::string& m : msgs) {
    EXPECT_EQ(m.find("SHMEM_CC "), std::string::npos) << m;
    EXPECT_EQ(m.find("SHMEM_CXX "), std::string::npos) << m;
    EXPECT_EQ(m.find("SHMEM_PY_OSHRUN "), std::string::npos) << m;
  }
}
