#pragma once
// What the KV-cache blocks hold, so that every float says where it started: float i of the block
// that started as block k of PE p (slot s = p * nblocks + k) holds
//   value(s, i) = (s * block_floats + i) mod 2^24,
// an integer, so exact in a float. Unique while all PEs' caches hold at most 2^24 floats
// together; beyond that values repeat far apart, and the check stays a strong one.
#include <cstddef>
#include <vector>

namespace kv_shuffle {

struct CacheShape {
  int npes;
  int nblocks;
  std::size_t block_floats;
};

float block_value(const CacheShape& shape, std::size_t slot, std::size_t i);

// Fills PE `me`'s cache with its own slots' values.
void fill_cache(float* cache, const CacheShape& shape, int me);

// Checks PE `me`'s cache: origin[global slot] is the slot whose initial data should be there.
// Prints a FAILED line for each of the first few wrong blocks; returns the number of wrong floats.
long check_cache(const float* cache, const CacheShape& shape, int me, const std::vector<std::size_t>& origin,
                 int iteration);

}  // namespace kv_shuffle
