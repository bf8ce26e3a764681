// Combine. Block b returns the results of the sources s = me+1+b, me+1+b+grid, ... (mod npes):
// each row of region s goes to slot (token, slot) of PE s's combine buffer, then one signal
// (set to the iteration number, also when the region is empty) says PE s has all of this PE's
// results. Then every block waits for every PE's signal and sums its share of this PE's tokens:
// out = sum over j of weight[j] * result[j], j in slot order.
//
// Reuse is safe: an expert PE returns results of iteration t+1 only after the owner's rows of
// t+1 have arrived, which the owner sends only after its combine of iteration t has finished.
// And since every PE hears from every PE in each step, no PE finishes an iteration before every
// other PE has finished its dispatch of that iteration: the next count alltoall never overwrites
// counts a PE is still reading.
#include <cstdio>
#include <shmem/device/device.hpp>

#include "kernels.hpp"

namespace moe {

namespace dev = shmem::device;

int enqueue_combine(shmemx_stream_t stream, int grid, const MoeLayer& layer) {
  const MoeLayer l = layer;
  return dev::launch(
      stream, grid,
      [l](const dev::Block& b) {
        const int me = dev::my_pe(), np = dev::n_pes();
        const auto d = static_cast<std::size_t>(l.hidden);
        const auto k = static_cast<std::size_t>(l.topk);

        // 1. Results home.
        for (int i = b.block_id; i < np; i += b.grid) {
          const int s = (me + 1 + i) % np;
          for (std::int64_t r = l.region_off[s], end = r + l.region_cnt[s]; r < end; ++r) {
            const Meta m = l.recv_meta[r];
            if (m.src_pe != s) {
              char msg[128];
              std::snprintf(msg, sizeof msg, "row %lld of PE %d's region names PE %d as its owner",
                            static_cast<long long>(r), s, m.src_pe);
              shmemx_block_error(&b, SHMEMX_ERR_INVALID_VALUE, msg);
              continue;
            }
            const std::size_t slot = static_cast<std::size_t>(m.token) * k + static_cast<std::size_t>(m.slot);
            dev::putmem_nbi(l.combined + slot * d, l.y + static_cast<std::size_t>(r) * d, d * sizeof(float), s);
          }
          dev::fence();  // the results before the signal
          dev::signal_op(l.combine_sig + me, l.epoch, SHMEM_SIGNAL_SET, s);
        }

        // 2. This PE's results: every PE signals, with or without rows for this PE.
        for (int p = 0; p < np; ++p) dev::signal_wait_until(l.combine_sig + p, SHMEM_CMP_GE, l.epoch);

        // 3. Weighted sums of this block's share of the tokens.
        const std::size_t per = (static_cast<std::size_t>(l.tokens) + static_cast<std::size_t>(b.grid) - 1) /
                                static_cast<std::size_t>(b.grid);
        const std::size_t lo = std::min(static_cast<std::size_t>(l.tokens), per * static_cast<std::size_t>(b.block_id));
        const std::size_t hi = std::min(static_cast<std::size_t>(l.tokens), lo + per);
        for (std::size_t t = lo; t < hi; ++t)
          for (std::size_t i = 0; i < d; ++i) {
            float acc = 0.0f;
            for (std::size_t j = 0; j < k; ++j) acc += l.weight[t * k + j] * l.combined[(t * k + j) * d + i];
            l.out[t * d + i] = acc;
          }
      },
      {.block_dim = 1, .cooperative = true});
}

}  // namespace moe
