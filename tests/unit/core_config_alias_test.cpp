// SMA_SYMMETRIC_SIZE and SHMEM_SYMMETRIC_HEAP_SIZE (other implementations' names) are accepted as
// aliases of SHMEM_SYMMETRIC_SIZE; the table's own name wins when both are set.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "base/config.hpp"
#include "base/error.hpp"

namespace {
void clear() {
  unsetenv("SHMEM_SYMMETRIC_SIZE");
  unsetenv("SMA_SYMMETRIC_SIZE");
  unsetenv("SHMEM_SYMMETRIC_HEAP_SIZE");
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
