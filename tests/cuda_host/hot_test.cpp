// core/hot.hpp's inline test with the CUDA plugin loaded (a one-PE runtime, no launcher, on the
// fake driver): it still decides words of host memory itself, and steps aside (-1) only for a
// word of this PE's GPU heap, which the host cannot load (the fake driver maps it PROT_NONE, so
// a load there would crash the test).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>

#include "core/gpu_heap.hpp"
#include "core/hot.hpp"
#include "core/ops.hpp"
#include "core/runtime.hpp"

namespace core = shmem::core;

namespace {
constexpr int kEq = 0, kNe = 1;  // SHMEM_CMP_EQ, SHMEM_CMP_NE
}  // namespace

class HotTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    unsetenv("SHMEM_PE");
    unsetenv("SHMEM_NPES");
    unsetenv("SHMEM_STORE_ADDR");
    setenv("SHMEM_SYMMETRIC_SIZE", "16M", 1);
    setenv("SHMEM_CUDA_DRIVER", FAKECUDA_PATH, 1);
    setenv("SHMEM_CUDA_HEAP_SIZE", "8M", 1);
    setenv("SHMEM_BOOTSTRAP_PLUGIN_DIR", PLUGIN_DIR, 1);  // libshmem_cuda.so (this test links the core)
    int provided = -1;
    core::init(0, &provided);
  }
  static void TearDownTestSuite() { core::finalize(); }
};

TEST_F(HotTest, DecidesHostWordsAndStepsAsideForGpuWords) {
  auto* host = static_cast<long*>(core::malloc(sizeof(long)));
  ASSERT_NE(host, nullptr);
  *host = 3;
  auto* gpu = static_cast<long*>(core::gpu_alloc(64, sizeof(long), true, "hot_test"));
  ASSERT_NE(gpu, nullptr);
  const shmem::Runtime& r = core::rt("hot_test");
  ASSERT_NE(r.gpu(), nullptr) << "the plugin is loaded and the GPU heap exists";
  ASSERT_TRUE(r.gpu()->contains(gpu));
  ASSERT_FALSE(r.gpu()->contains(host));

  // Host memory (the symmetric heap, and a private word) is decided inline.
  EXPECT_EQ(core::hot::test<long>(host, kEq, 3L), 1);
  EXPECT_EQ(core::hot::test<long>(host, kEq, 4L), 0);
  EXPECT_EQ(core::hot::test<long>(host, kNe, 3L), 0);
  long priv = 9;
  EXPECT_EQ(core::hot::test<long>(&priv, kEq, 9L), 1);
  EXPECT_TRUE(core::hot::already<long>(host, kEq, 3L));

  // A word of the GPU heap goes to the core, which reads a copy through the driver (zeroed).
  EXPECT_EQ(core::hot::test<long>(gpu, kEq, 0L), -1);
  EXPECT_EQ(core::hot::test<long>(gpu, kNe, 0L), -1);
  EXPECT_FALSE(core::hot::already<long>(gpu, kEq, 0L));
  EXPECT_TRUE(core::test(core::WaitKind::kI64, gpu, kEq, 0, "hot_test"));
  EXPECT_FALSE(core::test(core::WaitKind::kI64, gpu, kNe, 0, "hot_test"));

  core::gpu_free(gpu, "hot_test");
  core::free(host);
}
