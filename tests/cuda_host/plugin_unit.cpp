// The CUDA plugin's pieces in one process, on the fake driver: loading the driver (and the
// errors when it is missing or not a driver), choosing the device, the heap's layout when two
// heaps of one process map each other (as two PEs do), peer access, and that every handle is
// released. Plus the pure arithmetic of core/gpu_heap.hpp.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "core/gpu_heap.hpp"
#include "cuda/context.hpp"
#include "cuda/driver.hpp"
#include "cuda/heap.hpp"
#include "fakecuda.h"

using shmem::cuda::Context;
using shmem::cuda::Driver;
using shmem::cuda::Heap;

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

void expect_released() {
  FakeCudaLive live{};
  fakecuda_live(&live);
  EXPECT_EQ(live.allocations, 0);
  EXPECT_EQ(live.reservations, 0);
  EXPECT_EQ(live.mappings, 0);
  EXPECT_EQ(live.host_allocations, 0);
  EXPECT_EQ(live.streams, 0);
  EXPECT_EQ(live.retained, 0);
}

std::unique_ptr<Context> open(int device, int local_rank, shmem_cuda_device_info* info, std::string* error) {
  return Context::open(FAKECUDA_PATH, device, local_rank, info, error);
}

}  // namespace

TEST(CudaLayout, RoundsUpToTheGranularity) {
  EXPECT_EQ(shmem::core::gpu_round_up(1, 2 * kMiB), 2 * kMiB);
  EXPECT_EQ(shmem::core::gpu_round_up(2 * kMiB, 2 * kMiB), 2 * kMiB);
  EXPECT_EQ(shmem::core::gpu_round_up(2 * kMiB + 1, 2 * kMiB), 4 * kMiB);
  EXPECT_EQ(shmem::core::gpu_round_up(0, 2 * kMiB), 0u);
  EXPECT_EQ(shmem::core::gpu_round_up(1000, 3), 1002u);
}

// The load failures come first: once a driver is loaded, the process keeps it.
TEST(CudaDriver, MissingLibraryIsNamed) {
  std::string error;
  EXPECT_EQ(Driver::load("libshmem-no-such-driver.so.1", &error), nullptr);
  EXPECT_NE(error.find("no CUDA driver (libshmem-no-such-driver.so.1: cannot open shared object file"),
            std::string::npos)
      << error;
}

TEST(CudaDriver, LibraryThatIsNotADriverIsNamed) {
  std::string error;
  EXPECT_EQ(Driver::load("libm.so.6", &error), nullptr);
  EXPECT_NE(error.find("libm.so.6 has no cuGetProcAddress_v2"), std::string::npos) << error;
}

TEST(CudaDriver, FakeDriverResolvesEveryEntryPoint) {
  std::string error;
  const Driver* d = Driver::load(FAKECUDA_PATH, &error);
  ASSERT_NE(d, nullptr) << error;
  EXPECT_NE(d->cuMemCreate, nullptr);
  EXPECT_EQ(d->describe("cuMemCreate", CUDA_ERROR_OUT_OF_MEMORY).find("cuMemCreate: CUDA_ERROR_OUT_OF_MEMORY"), 0u);
  EXPECT_EQ(Driver::load(FAKECUDA_PATH, &error), d);  // once per process
  EXPECT_EQ(Driver::load("libm.so.6", &error), nullptr);
  EXPECT_NE(error.find("is loaded already"), std::string::npos) << error;
}

TEST(CudaContext, ChoosesTheDeviceByLocalRank) {
  setenv("FAKECUDA_DEVICES", "3", 1);
  shmem_cuda_device_info info{};
  std::string error;
  {
    auto c = open(-1, 4, &info, &error);
    ASSERT_TRUE(c) << error;
    EXPECT_EQ(info.ordinal, 1);  // 4 % 3
    EXPECT_EQ(info.count, 3);
    EXPECT_EQ(info.granularity, 2 * kMiB);
    EXPECT_EQ(info.uuid[15], 1);
    EXPECT_STREQ(info.name, "Fake GPU 1");
  }
  {
    auto c = open(2, 0, &info, &error);
    ASSERT_TRUE(c) << error;
    EXPECT_EQ(info.ordinal, 2);  // SHMEM_CUDA_DEVICE wins
  }
  EXPECT_FALSE(open(5, 0, &info, &error));
  EXPECT_NE(error.find("SHMEM_CUDA_DEVICE=5 but this process sees 3 CUDA device(s)"), std::string::npos) << error;
  setenv("FAKECUDA_DEVICES", "0", 1);
  EXPECT_FALSE(open(-1, 0, &info, &error));
  EXPECT_NE(error.find("cuInit: CUDA_ERROR_NO_DEVICE"), std::string::npos) << error;
  unsetenv("FAKECUDA_DEVICES");
  expect_released();
}

// Two heaps of this process map each other as two PEs do: local PE i at base + i * bytes, and
// slot i of one range is the same memory as slot i of the other.
TEST(CudaHeap, TwoHeapsMapEachOtherInOrder) {
  shmem_cuda_device_info info{};
  std::string error;
  {
    auto c = open(-1, 0, &info, &error);
    ASSERT_TRUE(c) << error;
    const std::size_t bytes = 4 * kMiB;
    int fd0 = -1, fd1 = -1;
    auto h0 = Heap::create(*c, bytes, &fd0, &error);
    auto h1 = Heap::create(*c, bytes, &fd1, &error);
    ASSERT_TRUE(h0 && h1) << error;
    unsigned char same[2][16];
    std::memcpy(same[0], info.uuid, 16);
    std::memcpy(same[1], info.uuid, 16);
    const int fds[2] = {fd0, fd1};
    void* base0 = nullptr;
    void* base1 = nullptr;
    ASSERT_TRUE(h0->map(2, 0, fds, same, &base0, &error)) << error;
    ASSERT_TRUE(h1->map(2, 1, fds, same, &base1, &error)) << error;
    ::close(fd0);
    ::close(fd1);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(base0) % (2 * kMiB), 0u);
    auto* b0 = static_cast<char*>(base0);
    auto* b1 = static_cast<char*>(base1);
    for (int slot = 0; slot < 2; ++slot) {
      char* a = static_cast<char*>(fakecuda_host_view(b0 + slot * bytes + 100, 8));
      char* b = static_cast<char*>(fakecuda_host_view(b1 + slot * bytes + 100, 8));
      ASSERT_TRUE(a && b);
      std::memcpy(a, slot ? "slot-one" : "slot-0!!", 8);
      EXPECT_EQ(std::memcmp(b, a, 8), 0) << "slot " << slot;
    }
    EXPECT_EQ(fakecuda_host_view(b0 + 2 * bytes - 4, 8), nullptr);  // crosses the end of the range
  }
  expect_released();
}

TEST(CudaHeap, TooLargeIsRefusedBeforeAllocating) {
  setenv("FAKECUDA_MEMORY", "67108864", 1);  // 64 MiB
  shmem_cuda_device_info info{};
  std::string error;
  {
    auto c = open(-1, 0, &info, &error);
    ASSERT_TRUE(c) << error;
    int fd = -1;
    EXPECT_FALSE(Heap::create(*c, 128 * kMiB, &fd, &error));
    EXPECT_NE(error.find("larger than CUDA device 0's memory (67108864 bytes): lower SHMEM_CUDA_HEAP_SIZE"),
              std::string::npos)
        << error;
    EXPECT_FALSE(Heap::create(*c, 3 * kMiB, &fd, &error));  // not a multiple of the granularity
    EXPECT_NE(error.find("cuMemCreate: CUDA_ERROR_INVALID_VALUE"), std::string::npos) << error;
  }
  unsetenv("FAKECUDA_MEMORY");
  expect_released();
}

TEST(CudaHeap, PeerWithoutAccessIsNamed) {
  setenv("FAKECUDA_DEVICES", "2", 1);
  setenv("FAKECUDA_NO_PEER", "1", 1);
  shmem_cuda_device_info info0{}, info1{};
  std::string error;
  {
    auto c0 = open(0, 0, &info0, &error);
    auto c1 = open(1, 1, &info1, &error);
    ASSERT_TRUE(c0 && c1) << error;
    int fd0 = -1, fd1 = -1;
    auto h0 = Heap::create(*c0, 2 * kMiB, &fd0, &error);
    auto h1 = Heap::create(*c1, 2 * kMiB, &fd1, &error);
    ASSERT_TRUE(h0 && h1) << error;
    unsigned char uuids[2][16];
    std::memcpy(uuids[0], info0.uuid, 16);
    std::memcpy(uuids[1], info1.uuid, 16);
    const int fds[2] = {fd0, fd1};
    void* base = nullptr;
    EXPECT_FALSE(h0->map(2, 0, fds, uuids, &base, &error));
    EXPECT_NE(error.find("CUDA device 0 cannot access the memory of device 1 (local PE 1's GPU)"), std::string::npos)
        << error;
    setenv("FAKECUDA_NO_PEER", "0", 1);
    EXPECT_TRUE(h0->map(2, 0, fds, uuids, &base, &error)) << error;
    ::close(fd0);
    ::close(fd1);
  }
  unsetenv("FAKECUDA_DEVICES");
  unsetenv("FAKECUDA_NO_PEER");
  expect_released();
}
