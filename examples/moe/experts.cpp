// The experts: this PE's received rows (all regions, contiguous) split evenly over the blocks;
// each row goes through the expert its Meta names. A record that names another PE's expert or a
// token slot out of range is reported as the launch's error (shmemx_block_error) and skipped.
#include <cstdio>
#include <shmem/device/device.hpp>

#include "expert.hpp"
#include "kernels.hpp"

namespace moe {

namespace dev = shmem::device;

int enqueue_experts(shmemx_stream_t stream, int grid, const MoeLayer& layer) {
  const MoeLayer l = layer;
  return dev::launch(stream, grid, [l](const dev::Block& b) {
    const int me = dev::my_pe(), np = dev::n_pes();
    const std::int64_t rows = l.region_off[np - 1] + l.region_cnt[np - 1];
    const std::int64_t per = (rows + b.grid - 1) / b.grid;
    const std::int64_t lo = std::min(rows, per * b.block_id), hi = std::min(rows, lo + per);
    const auto d = static_cast<std::size_t>(l.hidden);
    for (std::int64_t r = lo; r < hi; ++r) {
      const Meta m = l.recv_meta[r];
      if (m.expert / l.experts_per_pe != me || m.expert < 0 || m.token < 0 || m.token >= l.tokens || m.slot < 0 ||
          m.slot >= l.topk) {
        char msg[160];
        std::snprintf(msg, sizeof msg, "row %lld: expert %d, token %d, slot %d is not a pair for PE %d",
                      static_cast<long long>(r), m.expert, m.token, m.slot, me);
        shmemx_block_error(&b, SHMEMX_ERR_INVALID_VALUE, msg);
        continue;
      }
      apply_expert(m.expert, l.recv_x + static_cast<std::size_t>(r) * d, l.y + static_cast<std::size_t>(r) * d, d);
    }
  });
}

}  // namespace moe
