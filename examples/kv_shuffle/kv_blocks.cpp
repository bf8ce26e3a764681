#include "kv_blocks.hpp"

#include <cstdio>

namespace kv_shuffle {
namespace {

constexpr std::size_t kValues = std::size_t{1} << 24;  // integers a float holds exactly
constexpr int kMaxReports = 4;                         // FAILED lines per PE and iteration

std::size_t total_floats(const CacheShape& s) {
  return static_cast<std::size_t>(s.npes) * static_cast<std::size_t>(s.nblocks) * s.block_floats;
}

// "PE p block k float i" for a value, when values are unique and it is one of them.
void describe(const CacheShape& s, float v, char* out, std::size_t n) {
  const auto code = static_cast<std::size_t>(v);
  if (total_floats(s) > kValues || v < 0 || static_cast<float>(code) != v || code >= total_floats(s)) {
    std::snprintf(out, n, "no single origin");
    return;
  }
  const std::size_t slot = code / s.block_floats;
  std::snprintf(out, n, "PE %zu block %zu float %zu", slot / static_cast<std::size_t>(s.nblocks),
                slot % static_cast<std::size_t>(s.nblocks), code % s.block_floats);
}

}  // namespace

float block_value(const CacheShape& shape, std::size_t slot, std::size_t i) {
  return static_cast<float>((slot * shape.block_floats + i) % kValues);
}

void fill_cache(float* cache, const CacheShape& shape, int me) {
  const std::size_t first = static_cast<std::size_t>(me) * static_cast<std::size_t>(shape.nblocks);
  for (int k = 0; k < shape.nblocks; ++k)
    for (std::size_t i = 0; i < shape.block_floats; ++i)
      cache[static_cast<std::size_t>(k) * shape.block_floats + i] = block_value(shape, first + k, i);
}

long check_cache(const float* cache, const CacheShape& shape, int me, const std::vector<std::size_t>& origin,
                 int iteration) {
  long wrong = 0;
  int reported = 0;
  const std::size_t first = static_cast<std::size_t>(me) * static_cast<std::size_t>(shape.nblocks);
  for (int k = 0; k < shape.nblocks; ++k) {
    const float* block = cache + static_cast<std::size_t>(k) * shape.block_floats;
    const std::size_t from = origin[first + k];
    long bad = 0;
    std::size_t first_bad = 0;
    for (std::size_t i = 0; i < shape.block_floats; ++i)
      if (block[i] != block_value(shape, from, i) && bad++ == 0) first_bad = i;
    wrong += bad;
    if (bad != 0 && reported++ < kMaxReports) {
      char got[96], want[96];
      describe(shape, block[first_bad], got, sizeof got);
      describe(shape, block_value(shape, from, first_bad), want, sizeof want);
      std::printf("FAILED: PE %d iteration %d: block %d has %ld wrong floats; float %zu holds %.0f (%s), expected "
                  "%.0f (%s)\n",
                  me, iteration, k, bad, first_bad, static_cast<double>(block[first_bad]), got,
                  static_cast<double>(block_value(shape, from, first_bad)), want);
    }
  }
  return wrong;
}

}  // namespace kv_shuffle
