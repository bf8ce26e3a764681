#pragma once
// Row tiles of C and who owns them. Tile t is rows [t·tile_rows, min(M, (t+1)·tile_rows)) of C,
// all N columns. Tiles come in groups of npes consecutive tiles: tile t is in group t / npes and
// owned (reduced, then sent to everyone) by PE t % npes, so each PE owns one tile per group (the
// last group may be short).
#include <algorithm>
#include <cstddef>

namespace mc2 {

struct Tiling {
  std::size_t m = 0, n = 0, tile_rows = 1;
  int npes = 1;

  std::size_t tiles() const { return (m + tile_rows - 1) / tile_rows; }
  std::size_t groups() const { return (tiles() + static_cast<std::size_t>(npes) - 1) / static_cast<std::size_t>(npes); }
  std::size_t first_row(std::size_t t) const { return t * tile_rows; }
  std::size_t rows(std::size_t t) const { return std::min(m, first_row(t) + tile_rows) - first_row(t); }
  // The tile of group g that PE `owner` owns; >= tiles() when the last group has none for it.
  std::size_t tile(std::size_t g, int owner) const { return g * static_cast<std::size_t>(npes) + static_cast<std::size_t>(owner); }
};

}  // namespace mc2
