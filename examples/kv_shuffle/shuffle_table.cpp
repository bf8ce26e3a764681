#include "shuffle_table.hpp"

#include <utility>

namespace kv_shuffle {
namespace {

// splitmix64: a tiny generator whose output is fixed by its definition (unlike std::shuffle
// with a standard engine, whose use of the engine is left to the library).
struct SplitMix64 {
  std::uint64_t x;
  std::uint64_t next() {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

}  // namespace

std::vector<Move> make_shuffle_table(int npes, int nblocks, std::uint64_t seed) {
  const std::size_t slots = static_cast<std::size_t>(npes) * static_cast<std::size_t>(nblocks);
  std::vector<std::size_t> dst(slots);
  for (std::size_t s = 0; s < slots; ++s) dst[s] = s;
  SplitMix64 rng{seed};
  for (std::size_t s = slots; s > 1; --s) std::swap(dst[s - 1], dst[rng.next() % s]);

  std::vector<Move> table(slots);
  for (std::size_t s = 0; s < slots; ++s)
    table[s] = Move{static_cast<int>(s / nblocks), static_cast<int>(s % nblocks), static_cast<int>(dst[s] / nblocks),
                    static_cast<int>(dst[s] % nblocks)};
  return table;
}

std::vector<Move> moves_from(const std::vector<Move>& table, int pe) {
  std::vector<Move> mine;
  for (const Move& m : table)
    if (m.src_pe == pe) mine.push_back(m);
  return mine;
}

std::vector<std::uint64_t> arrivals_per_share(const std::vector<Move>& table, int pe, int grid) {
  std::vector<std::uint64_t> count(static_cast<std::size_t>(grid), 0);
  for (const Move& m : table)
    if (m.dst_pe == pe) ++count[static_cast<std::size_t>(m.dst_block % grid)];
  return count;
}

std::vector<std::size_t> inverse_slots(const std::vector<Move>& table, int nblocks) {
  std::vector<std::size_t> inv(table.size());
  const auto n = static_cast<std::size_t>(nblocks);
  for (const Move& m : table)
    inv[static_cast<std::size_t>(m.dst_pe) * n + static_cast<std::size_t>(m.dst_block)] =
        static_cast<std::size_t>(m.src_pe) * n + static_cast<std::size_t>(m.src_block);
  return inv;
}

}  // namespace kv_shuffle
