// Address translation in a one-PE runtime (no launcher): heap and static data are symmetric,
// anything else is not.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/hot.hpp"
#include "core/ops.hpp"
#include "core/runtime.hpp"

namespace {
long g_static_counter = 5;
int g_bss_array[1000];
}  // namespace

class Translate : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    unsetenv("SHMEM_PE");
    unsetenv("SHMEM_NPES");
    unsetenv("SHMEM_STORE_ADDR");
    setenv("SHMEM_SYMMETRIC_SIZE", "64M", 1);
    int provided = -1;
    shmem::core::init(0, &provided);
  }
  static void TearDownTestSuite() { shmem::core::finalize(); }
};

TEST_F(Translate, HeapAndStaticDataAreSymmetric) {
  shmem::Runtime& r = shmem::core::rt("test");
  EXPECT_EQ(r.n_pes(), 1);
  void* p = shmem::core::malloc(4096);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(r.translate(p, 0), p);
  EXPECT_TRUE(r.is_symmetric(p, 4096));
  EXPECT_FALSE(r.is_symmetric(p, 4097 + 64));
  EXPECT_EQ(r.translate(&g_static_counter, 0), reinterpret_cast<char*>(&g_static_counter));
  EXPECT_TRUE(r.is_symmetric(&g_bss_array[10], 40));
  int local = 0;
  EXPECT_EQ(r.translate(&local, 0), nullptr);
  EXPECT_FALSE(r.is_symmetric(&local, 4));
  EXPECT_EQ(shmem::core::hot::ptr(p, 0), p);
  EXPECT_EQ(shmem::core::hot::ptr(p, 1), nullptr);
  shmem::core::free(p);
}

TEST_F(Translate, StaticDataKeepsItsValuesAfterRemap) {
  EXPECT_EQ(g_static_counter, 5);
  g_static_counter += 1;
  shmem::Ctx* ctx = shmem::core::hot::ctx(nullptr, "core_translate_test");
  EXPECT_EQ(shmem::core::amo64(ctx, shmem::core::AmoOp::kFetchAdd, &g_static_counter, 10, 0, 0), 6u);
  EXPECT_EQ(g_static_counter, 16);
}

TEST_F(Translate, HeapExhaustionReturnsNull) {
  EXPECT_EQ(shmem::core::malloc(std::size_t{1} << 40), nullptr);
  EXPECT_EQ(shmem::core::malloc(0), nullptr);
  void* p = shmem::core::malloc(1 << 20);
  EXPECT_NE(p, nullptr);
  shmem::core::free(p);
}

TEST_F(Translate, Realloc) {
  auto* p = static_cast<int*>(shmem::core::malloc(64));
  for (int i = 0; i < 16; ++i) p[i] = i;
  auto* q = static_cast<int*>(shmem::core::realloc(p, 1 << 16));
  ASSERT_NE(q, nullptr);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(q[i], i);
  shmem::core::free(q);
}
