// The fused kernel. Block b takes the tile groups g = b, b + grid, ... (the same on every PE).
// For each group it
//   1. computes its tiles of the partial product, the other owners' tiles first and this PE's
//      own tile last, and pushes each other-owned tile the moment it is done: putmem_signal into
//      the owner's receive slot for this PE, SIGNAL_ADD 1 on the owner's arrived[g];
//   2. then, for the PREVIOUS group (one group of slack, so peers are rarely waited for), waits
//      until its own tile has npes-1 contributions, sums them with its own partial tile in PE
//      order into result, and pushes the reduced tile to every other PE (putmem_signal,
//      SIGNAL_SET epoch on gathered[t]);
// and finally waits for the reduced tiles of its groups that the other PEs own.
// While one block sends or sums, the others keep computing: the reduce-scatter and all-gather
// run under the GEMM.
//
// No deadlock: block b only ever waits for block b of other PEs, and block b on every PE
// computes and pushes group g before it waits for anything of group g. Blocks never wait for
// later blocks of the same launch, so any number of worker threads is enough.
// No reset: arrived[g] grows by npes-1 per call (wait for epoch·(npes-1)), gathered[t] is set
// to the epoch.
#include "fused.hpp"

#include <algorithm>
#include <shmem/device/device.hpp>

#include "gemm.hpp"

namespace dev = shmem::device;

namespace mc2 {
namespace {

// What every block needs (copied into the launch).
struct Plan {
  Tiling tiling;
  const float* a;
  const float* b;
  std::size_t kn;
  float* partial;
  float* result;
  float* recv;
  std::uint64_t* arrived;
  std::uint64_t* gathered;
  std::uint64_t epoch;

  // Where PE `src`'s contribution to `owner`'s tile of group g lands (on the owner).
  float* slot(std::size_t g, int src, int owner) const {
    const int npes = tiling.npes;
    const auto s = static_cast<std::size_t>(src < owner ? src : src - 1);
    return recv + (g * static_cast<std::size_t>(npes - 1) + s) * tiling.tile_rows * tiling.n;
  }
};

void compute_and_push(const Plan& p, std::size_t g, int me) {
  const Tiling& tl = p.tiling;
  for (int q = 1; q <= tl.npes; ++q) {
    const int owner = (me + q) % tl.npes;  // the right neighbour's tile first, this PE's own last
    const std::size_t t = tl.tile(g, owner);
    if (t >= tl.tiles()) continue;
    const std::size_t r0 = tl.first_row(t), r1 = r0 + tl.rows(t);
    gemm_rows(p.a, p.kn, p.b, tl.n, p.partial, tl.n, r0, r1, tl.n, p.kn);
    if (owner != me)
      dev::putmem_signal(p.slot(g, me, owner), p.partial + r0 * tl.n, (r1 - r0) * tl.n * sizeof(float), p.arrived + g,
                         std::uint64_t{1}, SHMEM_SIGNAL_ADD, owner);
  }
}

void reduce_and_gather(const Plan& p, std::size_t g, int me) {
  const Tiling& tl = p.tiling;
  const std::size_t t = tl.tile(g, me);
  if (t >= tl.tiles()) return;
  const auto others = static_cast<std::uint64_t>(tl.npes - 1);
  dev::signal_wait_until(p.arrived + g, SHMEM_CMP_EQ, p.epoch * others);

  const std::size_t offset = tl.first_row(t) * tl.n, len = tl.rows(t) * tl.n;
  float* out = p.result + offset;
  for (int src = 0; src < tl.npes; ++src) {  // PE order: every PE ends with the same bits
    const float* in = src == me ? p.partial + offset : p.slot(g, src, me);
    if (src == 0)
      std::copy_n(in, len, out);
    else
      for (std::size_t i = 0; i < len; ++i) out[i] += in[i];
  }
  for (int q = 1; q < tl.npes; ++q)
    dev::putmem_signal(out, out, len * sizeof(float), p.gathered + t, p.epoch, SHMEM_SIGNAL_SET, (me + q) % tl.npes);
}

void fused_block(const Plan& p, const dev::Block& blk) {
  const int me = dev::my_pe();
  const Tiling& tl = p.tiling;
  const auto first = static_cast<std::size_t>(blk.block_id), step = static_cast<std::size_t>(blk.grid);
  bool pending = false;
  std::size_t previous = 0;
  for (std::size_t g = first; g < tl.groups(); g += step) {
    compute_and_push(p, g, me);
    if (pending) reduce_and_gather(p, previous, me);
    pending = true;
    previous = g;
  }
  if (pending) reduce_and_gather(p, previous, me);

  for (std::size_t g = first; g < tl.groups(); g += step)
    for (int owner = 0; owner < tl.npes; ++owner) {
      const std::size_t t = tl.tile(g, owner);
      if (owner != me && t < tl.tiles()) dev::signal_wait_until(p.gathered + t, SHMEM_CMP_EQ, p.epoch);
    }
}

}  // namespace

FusedMatmulAllreduce::FusedMatmulAllreduce(const Tiling& tiling)
    : tiling_(tiling),
      recv_(tiling.groups() * static_cast<std::size_t>(tiling.npes - 1) * tiling.tile_rows * tiling.n),
      arrived_(tiling.groups()),
      gathered_(tiling.tiles()) {}

int FusedMatmulAllreduce::enqueue(shmemx_stream_t stream, int grid, const float* a, const float* b, std::size_t kn,
                                  float* partial, float* result, std::uint64_t epoch) const {
  const Plan plan{tiling_, a, b, kn, partial, result, recv_.get(), arrived_.get(), gathered_.get(), epoch};
  return dev::launch(stream, grid, [plan](const dev::Block& blk) { fused_block(plan, blk); });
}

}  // namespace mc2
