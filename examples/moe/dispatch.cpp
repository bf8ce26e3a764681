// Dispatch. Every PE's receive buffer holds one region per source PE, in PE order, so the rows
// of source s start at the sum of the counts of sources 0..s-1. After the count alltoall each
// PE knows its own counts and computes those offsets; it tells each source where its region
// starts (put + signal), and each source then pushes its rows there, followed by their Meta
// records and a ready signal. Every signal is set to the iteration number (never reset), and
// every PE signals every PE even with nothing to send, so a PE that receives no tokens still
// learns that it has everything.
//
// Reuse across iterations is safe by construction: a source writes a receive region only after
// the receiver has published this iteration's offsets, which it does only once its previous
// iteration is over.
#include <shmem/device/device.hpp>

#include "kernels.hpp"

namespace moe {

namespace dev = shmem::device;

int enqueue_dispatch(shmemx_stream_t stream, int grid, const MoeLayer& layer) {
  shmemx_alltoallmem_on_stream(SHMEM_TEAM_WORLD, layer.recv_counts, layer.send_counts, sizeof(std::int64_t), stream);
  const MoeLayer l = layer;
  return dev::launch(
      stream, grid,
      [l](const dev::Block& b) {
        const int me = dev::my_pe(), np = dev::n_pes();
        const auto row_bytes = static_cast<std::size_t>(l.hidden) * sizeof(float);

        // 1. Offsets: block b answers the sources s = b, b + grid, ...
        std::int64_t start = 0;
        for (int s = 0; s < np; ++s) {
          const std::int64_t n = l.recv_counts[s];
          if (s % b.grid == b.block_id) {
            l.region_off[s] = start;
            l.region_cnt[s] = n;
            dev::put_signal(l.offsets + me, &start, 1, l.offset_sig + me, l.epoch, SHMEM_SIGNAL_SET, s);
          }
          start += n;
        }

        // 2. Rows: block b serves destinations me+1+b, me+1+b+grid, ... (mod npes), so that the
        //    PEs do not all start with the same destination.
        for (int i = b.block_id; i < np; i += b.grid) {
          const int d = (me + 1 + i) % np;
          dev::signal_wait_until(l.offset_sig + d, SHMEM_CMP_GE, l.epoch);
          const std::int64_t at = l.offsets[d];
          const Meta* pairs = l.send_meta + l.send_first[d];
          const std::int64_t n = l.send_first[d + 1] - l.send_first[d];
          for (std::int64_t j = 0; j < n; ++j)
            dev::putmem_nbi(l.recv_x + (at + j) * l.hidden, l.x + static_cast<std::int64_t>(pairs[j].token) * l.hidden,
                            row_bytes, d);
          dev::fence();  // the rows before the records and their signal
          dev::put_signal_nbi(l.recv_meta + at, pairs, static_cast<std::size_t>(n), l.data_sig + me, l.epoch,
                              SHMEM_SIGNAL_SET, d);
        }

        // 3. Arrivals: block b waits for the sources s = b, b + grid, ...
        for (int s = b.block_id; s < np; s += b.grid) dev::signal_wait_until(l.data_sig + s, SHMEM_CMP_GE, l.epoch);
      },
      {.block_dim = 1, .cooperative = true});
}

}  // namespace moe
