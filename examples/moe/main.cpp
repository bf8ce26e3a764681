// moe: the dispatch and combine of a mixture-of-experts layer across PEs. Every PE holds
// `tokens` tokens of `hidden` floats and hosts `experts_per_pe` experts; a deterministic router
// sends each token to `topk` experts with gate weights. Each iteration:
//   dispatch  the count alltoall (on the stream), then a kernel that exchanges receive offsets
//             and pushes every (token, expert) row to the expert's PE with put + signal;
//   experts   a kernel that runs every received row through its expert;
//   combine   a kernel that returns each result to slot (token, j) of its owner, then the owner
//             computes the weighted sums.
// Every PE checks its outputs against a local reference (exact: see README).
//   oshrun -n 4 ./moe [-t tokens=128] [-d hidden=256] [-e experts_per_pe=2] [-k topk=2] [-i iterations=5] [-g grid=8]
#include <shmemx.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "buffers.hpp"
#include "kernels.hpp"
#include "options.hpp"
#include "plan.hpp"
#include "reference.hpp"
#include "router.hpp"
#include "symmetric.hpp"

namespace {

using namespace moe;
using Clock = std::chrono::steady_clock;

struct Totals {
  double dispatch = 0, experts = 0, combine = 0;  // seconds over the timed iterations (PE 0's view)
  long rows = 0;                                  // rows received, all iterations
  long idle = 0;                                  // iterations in which this PE received no row
  long shared = 0;                                // tokens with two experts on one PE
  long wrong = 0;
};

void print_summary(const Options& opt, const MoeShape& shape, const Totals& all, long expected_rows) {
  const double n = opt.iterations;
  const double bytes = static_cast<double>(shape.npes) * shape.tokens * shape.topk * shape.hidden * sizeof(float);
  std::printf("moe: %d PEs x %d tokens x %d floats, %d experts (%d per PE), top-%d, grid %d\n", shape.npes,
              shape.tokens, shape.hidden, shape.experts(), shape.experts_per_pe, shape.topk, opt.grid);
  std::printf("moe: %d timed iterations after 1 warm-up, per iteration: dispatch %.3f ms (%.2f GB/s), "
              "experts %.3f ms, combine %.3f ms (%.2f GB/s); %.2f MiB of rows each way\n",
              opt.iterations, all.dispatch / n * 1e3, bytes * n / all.dispatch / 1e9, all.experts / n * 1e3,
              all.combine / n * 1e3, bytes * n / all.combine / 1e9, bytes / (1 << 20));
  std::printf("moe: %ld rows dispatched in all (expected %ld); %ld tokens had two experts on one PE; "
              "a PE received no token %ld times\n",
              all.rows, expected_rows, all.shared, all.idle);
  if (all.wrong == 0 && all.rows == expected_rows)
    std::printf("moe: VERIFIED (every output bitwise equal to its owner's local reference)\n");
  else
    std::printf("moe: FAILED (%ld wrong floats over all PEs, %ld rows dispatched, expected %ld)\n", all.wrong, all.rows,
                expected_rows);
}

int run(int argc, char** argv) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  Options opt;
  std::string error;
  if (!parse_options(argc, argv, npes, opt, error)) {
    if (me == 0) std::fprintf(stderr, "moe: %s\n%s\n", error.c_str(), kUsage);
    return 2;
  }
  const MoeShape shape{npes, opt.tokens, opt.hidden, opt.experts_per_pe, opt.topk};
  MoeBuffers buf(shape);
  if (!buf.ok()) {
    if (me == 0)
      std::fprintf(stderr, "moe: cannot allocate the symmetric buffers (%zu rows of %d floats to receive); raise "
                           "SHMEM_SYMMETRIC_SIZE or lower -t/-d/-k\n",
                   shape.recv_capacity(), opt.hidden);
    return 2;
  }

  Stream stream;
  if (stream.create_rc() != 0) {
    std::fprintf(stderr, "FAILED: PE %d could not create a stream (error %d)\n", shmem_my_pe(), stream.create_rc());
    shmem_global_exit(1);
  }
  Totals mine;
  // Runs one step and synchronises; a failure is reported and counted, the iteration goes on.
  auto step = [&](const char* name, int epoch, int (*enqueue)(shmemx_stream_t, int, const MoeLayer&),
                  const MoeLayer& layer, double& seconds) {
    const auto t0 = Clock::now();
    int rc = enqueue(stream.get(), opt.grid, layer);
    if (rc == 0) rc = shmemx_stream_synchronize(stream.get());
    if (epoch > 1) seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    if (rc != 0) {
      std::printf("FAILED: PE %d iteration %d: %s reported error %d\n", me, epoch, name, rc);
      ++mine.wrong;
    }
  };
  for (int epoch = 1; epoch <= opt.iterations + 1; ++epoch) {  // epoch 1: the untimed warm-up
    const std::vector<float> x = make_tokens(shape, me, epoch);
    const Routing routing = route_tokens(shape, me, epoch);
    const DispatchPlan plan = plan_dispatch(shape, routing, me);
    const MoeLayer layer = buf.prepare(shape, epoch, x, routing.weight, plan);
    if (epoch == 2) shmem_barrier_all();  // the timed iterations start together
    step("dispatch", epoch, enqueue_dispatch, layer, mine.dispatch);
    step("experts", epoch, enqueue_experts, layer, mine.experts);
    step("combine", epoch, enqueue_combine, layer, mine.combine);
    const long rows = buf.region_off[npes - 1] + buf.region_cnt[npes - 1];
    mine.rows += rows;
    mine.idle += rows == 0;
    mine.shared += tokens_sharing_a_pe(shape, routing);
    mine.wrong += check_outputs(shape, me, epoch, x, routing, buf.out);
  }

  Totals all = mine;  // timings stay PE 0's
  all.rows = sum_over_pes(mine.rows);
  all.idle = sum_over_pes(mine.idle);
  all.shared = sum_over_pes(mine.shared);
  all.wrong = sum_over_pes(mine.wrong);
  const long expected_rows = static_cast<long>(opt.iterations + 1) * npes * opt.tokens * opt.topk;
  if (me == 0) print_summary(opt, shape, all, expected_rows);
  return all.wrong == 0 && all.rows == expected_rows ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  shmem_init();
  const int rc = run(argc, argv);  // every symmetric object and the stream are gone before finalize
  shmem_finalize();
  return rc;
}
