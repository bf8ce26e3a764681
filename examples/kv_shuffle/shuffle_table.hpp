#pragma once
// The shuffle table: where every KV-cache block goes. Global (every PE builds the same one from
// the same seed), one move per (PE, block) slot, and the destinations are a permutation of the
// slots, so no two blocks land in the same place.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kv_shuffle {

struct Move {
  int src_pe, src_block;
  int dst_pe, dst_block;
};

// One move per slot, in source order (slot = pe * nblocks + block); the destinations are a
// Fisher-Yates permutation driven by splitmix64(seed), so the table is the same on every PE.
std::vector<Move> make_shuffle_table(int npes, int nblocks, std::uint64_t seed);

// The moves this PE pushes (src_pe == pe).
std::vector<Move> moves_from(const std::vector<Move>& table, int pe);

// How many blocks land in each share of `pe`'s cache per shuffle; share b holds the blocks
// whose index is b modulo `grid` (kernel block b of `pe` waits for them).
std::vector<std::uint64_t> arrivals_per_share(const std::vector<Move>& table, int pe, int grid);

// inverse[dst slot] = src slot.
std::vector<std::size_t> inverse_slots(const std::vector<Move>& table, int nblocks);

}  // namespace kv_shuffle
