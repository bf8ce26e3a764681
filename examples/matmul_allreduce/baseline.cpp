#include "baseline.hpp"

#include <shmem/device/device.hpp>

#include "gemm.hpp"

namespace dev = shmem::device;

namespace mc2 {

int enqueue_baseline(shmemx_stream_t stream, int grid, const Tiling& tiling, const float* a, const float* b,
                     std::size_t kn, float* partial, float* result) {
  const int rc = dev::launch(stream, grid, [=](const dev::Block& blk) {
    for (auto t = static_cast<std::size_t>(blk.block_id); t < tiling.tiles(); t += static_cast<std::size_t>(blk.grid)) {
      const std::size_t r0 = tiling.first_row(t);
      gemm_rows(a, kn, b, tiling.n, partial, tiling.n, r0, r0 + tiling.rows(t), tiling.n, kn);
    }
  });
  if (rc != 0) return rc;
  shmemx_float_sum_reduce_on_stream(SHMEM_TEAM_WORLD, result, partial, tiling.m * tiling.n, stream);
  return 0;
}

}  // namespace mc2
