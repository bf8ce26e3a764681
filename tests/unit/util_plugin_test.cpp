// util::load_plugin (src/util/plugin.hpp): the one loader of every plugin. The fake plugins
// (fake_plugin.c, built by tests/unit/CMakeLists.txt) are a CUDA-kind table of version 7, then
// one wrong in each way the loader checks.
#include "util/plugin.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using shmem::Errc;
using shmem::Error;

struct FakeTable {
  shmem_plugin_head head;
  int answer;
};

shmem::util::PluginSpec spec(const char* file) {
  return {file, SHMEM_PLUGIN_KIND_CUDA, 7, sizeof(FakeTable), "the test", "the fake plugins were not built"};
}

// The message of the Error load_plugin throws for `file`, checking its code.
std::string failure(const char* file, Errc expected = Errc::kInternal) {
  try {
    shmem::util::load_plugin(FAKE_PLUGIN_DIR, spec(file));
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), expected) << e.what();
    return e.what();
  }
  ADD_FAILURE() << file << " was accepted";
  return "";
}

TEST(PluginLoader, LoadsAGoodPluginOnce) {
  const auto& head = shmem::util::load_plugin(FAKE_PLUGIN_DIR, spec("libfake_plugin_ok.so"));
  EXPECT_EQ(head.kind, SHMEM_PLUGIN_KIND_CUDA);
  EXPECT_EQ(shmem::util::plugin_table<FakeTable>(head).answer, 42);
  EXPECT_EQ(&shmem::util::load_plugin(FAKE_PLUGIN_DIR, spec("libfake_plugin_ok.so")), &head);
}

TEST(PluginLoader, WrongKindNamesBothKinds) {
  const std::string what = failure("libfake_plugin_kind.so");
  EXPECT_NE(what.find("libfake_plugin_kind.so is a transport plugin (kind 1), expected a cuda plugin (kind 4)"),
            std::string::npos)
      << what;
}

TEST(PluginLoader, WrongVersionNamesFileAndBothVersions) {
  const std::string what = failure("libfake_plugin_version.so");
  EXPECT_NE(what.find("libfake_plugin_version.so has cuda ABI version 6, expected 7"), std::string::npos) << what;
}

TEST(PluginLoader, SmallerTableIsRefused) {
  const std::string what = failure("libfake_plugin_small.so");
  EXPECT_NE(what.find("has a 8-byte table, expected at least " + std::to_string(sizeof(FakeTable))), std::string::npos)
      << what;
}

TEST(PluginLoader, MissingSymbolIsNamed) {
  const std::string what = failure("libfake_plugin_nosym.so");
  EXPECT_NE(what.find("libfake_plugin_nosym.so is not a shmem plugin: it does not export shmem_plugin_table()"),
            std::string::npos)
      << what;
}

TEST(PluginLoader, MissingFileNamesDirectoryAndHint) {
  const std::string what = failure("libfake_plugin_absent.so", Errc::kNotSupported);
  EXPECT_NE(what.find("the test needs the plugin libfake_plugin_absent.so, which is not in " FAKE_PLUGIN_DIR
                      ": the fake plugins were not built; or set SHMEM_BOOTSTRAP_PLUGIN_DIR"),
            std::string::npos)
      << what;
}

TEST(PluginLoader, ErrorCodeFollowsTheSpec) {
  auto s = spec("libfake_plugin_version.so");
  s.load_errc = Errc::kBootstrap;
  try {
    shmem::util::load_plugin(FAKE_PLUGIN_DIR, s);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::kBootstrap);
  }
}

}  // namespace
