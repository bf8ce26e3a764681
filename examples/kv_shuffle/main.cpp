// kv_shuffle: moves KV-cache blocks between PEs as a global shuffle table says, the way an LLM
// serving system rebalances requests' caches across devices. Every PE owns a symmetric cache of
// `nblocks` blocks; one kernel launch per shuffle pushes this PE's blocks to their destinations
// (put + signal from the device API), waits for its own incoming blocks and ends with a barrier.
// The caches alternate (shuffle t reads cache t-1 and writes cache t), so shuffles compose and
// every float's value names where it started: each PE checks every block after every shuffle.
//   oshrun -n 4 ./kv_shuffle [-b nblocks=64] [-s block_floats=4096] [-i iterations=5] [-g grid=8] [-r seed]
#include <shmemx.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "kv_blocks.hpp"
#include "options.hpp"
#include "shuffle_kernel.hpp"
#include "shuffle_table.hpp"
#include "symmetric.hpp"

namespace {

using namespace kv_shuffle;
using Clock = std::chrono::steady_clock;

void print_summary(const Options& opt, const std::vector<Move>& table, int npes, double seconds, long wrong) {
  const double block_bytes = static_cast<double>(opt.block_floats * sizeof(float));
  const double moved = static_cast<double>(table.size()) * block_bytes;
  const auto remote = std::count_if(table.begin(), table.end(), [](const Move& m) { return m.src_pe != m.dst_pe; });
  const double per_shuffle = seconds / opt.iterations;
  std::printf("kv_shuffle: %d PEs x %d blocks x %zu floats (%.0f bytes per block), grid %d, seed %llu\n", npes,
              opt.nblocks, opt.block_floats, block_bytes, opt.grid, static_cast<unsigned long long>(opt.seed));
  std::printf("kv_shuffle: %d timed shuffles after 1 warm-up: %.3f ms per shuffle, %.2f GB/s "
              "(%.2f MiB moved per shuffle, %.0f%% of the blocks between PEs)\n",
              opt.iterations, per_shuffle * 1e3, moved / per_shuffle / 1e9, moved / (1 << 20),
              100.0 * static_cast<double>(remote) / static_cast<double>(table.size()));
  if (wrong == 0)
    std::printf("kv_shuffle: VERIFIED\n");
  else
    std::printf("kv_shuffle: FAILED (%ld wrong floats over all PEs)\n", wrong);
}

int run(int argc, char** argv) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  Options opt;
  std::string error;
  if (!parse_options(argc, argv, opt, error)) {
    if (me == 0) std::fprintf(stderr, "kv_shuffle: %s\n%s\n", error.c_str(), kUsage);
    return 2;
  }
  const CacheShape shape{npes, opt.nblocks, opt.block_floats};
  const std::vector<Move> table = make_shuffle_table(npes, opt.nblocks, opt.seed);
  const std::vector<Move> mine = moves_from(table, me);
  const std::vector<std::uint64_t> per_share = arrivals_per_share(table, me, opt.grid);
  const std::vector<std::size_t> inverse = inverse_slots(table, opt.nblocks);

  const std::size_t cache_floats = static_cast<std::size_t>(opt.nblocks) * opt.block_floats;
  SymmetricArray<float> cache0(cache_floats), cache1(cache_floats);
  SymmetricArray<std::uint64_t> arrived(static_cast<std::size_t>(opt.grid));  // zero: nothing arrived yet
  if (!cache0 || !cache1 || !arrived) {
    if (me == 0)
      std::fprintf(stderr,
                   "kv_shuffle: cannot allocate two caches of %zu bytes (-b %d -s %zu); raise SHMEM_SYMMETRIC_SIZE\n",
                   cache_floats * sizeof(float), opt.nblocks, opt.block_floats);
    return 2;
  }
  float* const caches[2] = {cache0.get(), cache1.get()};
  fill_cache(caches[0], shape, me);
  std::vector<std::size_t> origin(table.size()), next(table.size());  // origin[slot]: whose data is there
  std::iota(origin.begin(), origin.end(), std::size_t{0});

  Stream stream;
  if (stream.create_rc() != 0) {
    std::fprintf(stderr, "FAILED: PE %d could not create a stream (error %d)\n", shmem_my_pe(), stream.create_rc());
    shmem_global_exit(1);
  }
  long wrong = 0;
  double seconds = 0;
  for (int epoch = 1; epoch <= opt.iterations + 1; ++epoch) {  // epoch 1: the untimed warm-up
    const ShuffleArgs args{mine.data(),      mine.size(),   caches[(epoch - 1) % 2], caches[epoch % 2],
                           opt.block_floats, arrived.get(), per_share.data(),        static_cast<std::uint64_t>(epoch)};
    if (epoch == 2) shmem_barrier_all();  // the timed shuffles start together
    const auto t0 = Clock::now();
    int rc = launch_shuffle(stream.get(), opt.grid, args);
    if (rc == 0) rc = shmemx_stream_synchronize(stream.get());
    if (epoch > 1) seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    if (rc != 0) {
      std::printf("FAILED: PE %d shuffle %d: the kernel reported error %d\n", me, epoch, rc);
      ++wrong;
    }
    for (std::size_t s = 0; s < table.size(); ++s) next[s] = origin[inverse[s]];
    origin.swap(next);
    wrong += check_cache(caches[epoch % 2], shape, me, origin, epoch);
  }

  const long total = sum_over_pes(wrong);
  if (me == 0) print_summary(opt, table, npes, seconds, total);
  return total == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  shmem_init();
  const int rc = run(argc, argv);  // every symmetric object and the stream are gone before finalize
  shmem_finalize();
  return rc;
}
