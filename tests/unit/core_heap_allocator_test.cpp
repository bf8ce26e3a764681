#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/heap_allocator.hpp"

using shmem::HeapAllocator;

TEST(HeapAllocator, AllocatesAlignedDisjointRanges) {
  HeapAllocator a(1 << 20);
  auto x = a.allocate(10);
  auto y = a.allocate(100);
  ASSERT_TRUE(x && y);
  EXPECT_EQ(*x % 64, 0u);
  EXPECT_EQ(*y % 64, 0u);
  EXPECT_GE(*y, *x + 64);
  EXPECT_EQ(a.size_of(*x), 64u);
  auto z = a.allocate(1000, 4096);
  ASSERT_TRUE(z);
  EXPECT_EQ(*z % 4096, 0u);
}

TEST(HeapAllocator, ZeroTooLargeAndBadAlignmentFail) {
  HeapAllocator a(4096);
  EXPECT_FALSE(a.allocate(0));
  EXPECT_FALSE(a.allocate(8192));
  EXPECT_FALSE(a.allocate(64, 3));
  EXPECT_TRUE(a.allocate(4096));
  EXPECT_FALSE(a.allocate(1));
}

TEST(HeapAllocator, FreeCoalescesSoTheWholeHeapIsReusable) {
  HeapAllocator a(64 * 100);
  std::vector<std::size_t> offs;
  for (int i = 0; i < 100; ++i) offs.push_back(*a.allocate(64));
  EXPECT_FALSE(a.allocate(64));
  for (int i = 0; i < 100; i += 2) EXPECT_TRUE(a.release(offs[i]));
  for (int i = 1; i < 100; i += 2) EXPECT_TRUE(a.release(offs[i]));
  EXPECT_EQ(a.bytes_in_use(), 0u);
  EXPECT_EQ(a.largest_free(), 64u * 100);
  EXPECT_TRUE(a.allocate(64 * 100));
}

TEST(HeapAllocator, ReleaseOfUnknownOffsetIsRefused) {
  HeapAllocator a(1 << 16);
  auto x = a.allocate(128);
  EXPECT_FALSE(a.release(*x + 64));
  EXPECT_TRUE(a.release(*x));
  EXPECT_FALSE(a.release(*x));
}

TEST(HeapAllocator, ResizeInPlaceGrowsAndShrinks) {
  HeapAllocator a(1 << 16);
  auto x = a.allocate(64);
  auto grown = a.resize_in_place(*x, 640);
  ASSERT_TRUE(grown);
  EXPECT_EQ(*grown, *x);
  EXPECT_EQ(a.size_of(*x), 640u);
  auto y = a.allocate(64);
  EXPECT_FALSE(a.resize_in_place(*x, 1 << 15) && a.size_of(*y) == 0);
  EXPECT_TRUE(a.resize_in_place(*x, 64));
  EXPECT_EQ(a.size_of(*x), 64u);
}

TEST(HeapAllocator, FindContaining) {
  HeapAllocator a(1 << 16);
  auto x = a.allocate(256);
  auto r = a.find_containing(*x + 10, 100);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, *x);
  EXPECT_FALSE(a.find_containing(*x + 200, 100));
}

// Thousands of mixed alloc/free cycles: two allocators fed the same sequence agree on every
// offset (that is what makes the heap symmetric), and everything is reusable afterwards.
TEST(HeapAllocator, DeterministicUnderThousandsOfMixedCycles) {
  HeapAllocator a(1 << 24), b(1 << 24);
  std::mt19937 rng(42);
  std::vector<std::size_t> live;
  for (int i = 0; i < 5000; ++i) {
    if (live.empty() || rng() % 3 != 0) {
      std::size_t sz = 1 + rng() % 5000, al = std::size_t{1} << (rng() % 13);
      auto x = a.allocate(sz, al);
      auto y = b.allocate(sz, al);
      ASSERT_EQ(x, y);
      if (x) {
        EXPECT_EQ(*x % al, 0u);
        live.push_back(*x);
      }
    } else {
      std::size_t k = rng() % live.size();
      ASSERT_TRUE(a.release(live[k]));
      ASSERT_TRUE(b.release(live[k]));
      live.erase(live.begin() + static_cast<long>(k));
    }
  }
  for (auto o : live) ASSERT_TRUE(a.release(o));
  EXPECT_EQ(a.bytes_in_use(), 0u);
  EXPECT_EQ(a.largest_free(), a.capacity());
}
