#include "shuffle_kernel.hpp"

#include <shmem/device/device.hpp>

namespace kv_shuffle {

namespace dev = shmem::device;

// Push: the PE that holds a block sends it. Block b of the grid takes this PE's moves b,
// b + grid, ... and writes each into the destination PE's cache with put + signal; the signal
// adds 1 to the counter of the destination's share (dst_block % grid), after the data. Then
// block b waits until its own share has received every block of this shuffle: the counters
// only grow, so "epoch * per_share" is the target and nothing is ever reset. The closing
// barrier keeps the next shuffle (which writes into this shuffle's source cache) from starting
// on any PE before every PE has sent everything.
int launch_shuffle(shmemx_stream_t stream, int grid, const ShuffleArgs& args) {
  const ShuffleArgs a = args;
  return dev::launch(
      stream, grid,
      [a](const dev::Block& b) {
        const std::size_t bytes = a.block_floats * sizeof(float);
        const auto first = static_cast<std::size_t>(b.block_id), step = static_cast<std::size_t>(b.grid);
        for (std::size_t j = first; j < a.nmoves; j += step) {
          const Move& m = a.moves[j];
          dev::putmem_signal_nbi(a.dst + static_cast<std::size_t>(m.dst_block) * a.block_floats,
                                 a.src + static_cast<std::size_t>(m.src_block) * a.block_floats, bytes,
                                 a.arrived + m.dst_block % b.grid, std::uint64_t{1}, SHMEM_SIGNAL_ADD, m.dst_pe);
        }
        dev::signal_wait_until(a.arrived + b.block_id, SHMEM_CMP_GE, a.epoch * a.per_share[b.block_id]);
        dev::barrier_all_grid(b);  // quiet, then every block of every PE
      },
      {.block_dim = 1, .cooperative = true});
}

}  // namespace kv_shuffle
