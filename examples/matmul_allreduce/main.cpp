// matmul_allreduce: C = A·B with K split across the PEs, so C = Σ_p A_p·B_p must be summed over
// the PEs and end on every PE. Done two ways and timed:
//   fused (MC2): one kernel computes the partial product tile by tile and sends each tile on as
//                soon as it is done (reduce-scatter + all-gather under the GEMM), fused.cpp;
//   baseline:    the whole partial product, then shmemx_float_sum_reduce_on_stream, baseline.cpp.
// Every PE checks both results against a double-precision reference; PE 0 prints the median
// time, GFLOP/s and max error of each, then VERIFIED, or FAILED (exit status 1 on every PE).
//   oshrun -n 2 ./matmul_allreduce [-M 1024] [-K 2048] [-N 8192] [-i 5] [-g 4] [-t 32] [-c 0] [-k auto]
#include <shmem.h>
#include <shmemx.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "baseline.hpp"
#include "check.hpp"
#include "fused.hpp"
#include "gemm.hpp"
#include "options.hpp"
#include "problem.hpp"
#include "symmetric.hpp"
#include "tiling.hpp"

namespace {

using namespace mc2;

constexpr int kVersions = 2;
constexpr const char* kNames[kVersions] = {"fused (MC2)", "baseline"};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

// What one PE saw of one version over all iterations.
struct Outcome {
  double max_error = 0;
  unsigned long wrong = 0;  // wrong elements, plus one per stream error
};

int run(const Options& o, int me, int npes) {
  const Shape& s = o.shape;
  const KSlice slice = k_slice(s.k, me, npes);
  const std::vector<float> a = make_a(s, slice), b = make_b(s, slice);
  const Tiling tiling{s.m, s.n, std::min(o.tile_rows, s.m), npes};
  const Checker checker(s, rows_to_check(s, o.check_rows));
  const std::size_t mn = s.m * s.n;
  const auto iters = static_cast<std::size_t>(o.iterations);

  // Symmetric memory (collective, same order on every PE).
  SymmetricArray<float> partial(mn), result_fused(mn), result_base(mn);
  const FusedMatmulAllreduce fused(tiling);
  SymmetricArray<double> times(kVersions * iters), slowest(kVersions * iters);  // [version][iteration]
  SymmetricArray<double> err(kVersions), max_err(kVersions);
  SymmetricArray<unsigned long> wrong(kVersions), all_wrong(kVersions);
  if (!(partial && result_fused && result_base && fused.valid() && times && slowest && err && max_err && wrong &&
        all_wrong)) {
    if (me == 0)
      std::fprintf(stderr, "FAILED: the symmetric heap cannot hold M x N = %zu x %zu floats four times over; "
                   "raise SHMEM_SYMMETRIC_SIZE or lower -M/-N\n", s.m, s.n);
    return 1;
  }
  Stream stream;
  if (stream.create_rc() != 0)
    std::fprintf(stderr, "FAILED: PE %d could not create a stream (error %d)\n", me, stream.create_rc());
  wrong.get()[0] = stream.create_rc() != 0 ? 1 : 0;  // every PE stops if any PE has no stream
  shmem_ulong_sum_reduce(SHMEM_TEAM_WORLD, all_wrong.get(), wrong.get(), 1);
  if (all_wrong.get()[0] != 0) return 1;

  Outcome seen[kVersions];
  float* results[kVersions] = {result_fused.get(), result_base.get()};
  for (int it = 0; it <= o.iterations; ++it) {  // iteration 0 warms up, untimed
    for (float* r : results) std::fill_n(r, mn, std::numeric_limits<float>::quiet_NaN());  // nothing stale passes
    for (int v = 0; v < kVersions; ++v) {
      shmem_barrier_all();  // peers have finished the previous step with these buffers
      const auto t0 = std::chrono::steady_clock::now();
      int rc = v == 0 ? fused.enqueue(stream.get(), o.grid, a.data(), b.data(), slice.kn, partial.get(), results[v],
                                      static_cast<std::uint64_t>(it + 1))
                      : enqueue_baseline(stream.get(), o.grid, tiling, a.data(), b.data(), slice.kn, partial.get(),
                                         results[v]);
      const int sync_rc = shmemx_stream_synchronize(stream.get());
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (rc == 0) rc = sync_rc;
      if (it > 0) times.get()[static_cast<std::size_t>(v) * iters + static_cast<std::size_t>(it - 1)] = ms;
      if (rc != 0) {
        std::fprintf(stderr, "FAILED: PE %d, %s, iteration %d: the stream reported error %d\n", me, kNames[v], it, rc);
        ++seen[v].wrong;
      }
      const Checker::Result r = checker.check(results[v]);
      seen[v].max_error = std::max(seen[v].max_error, r.max_abs_error);
      if (r.wrong != 0 && seen[v].wrong == 0)
        std::fprintf(stderr, "FAILED: PE %d, %s, iteration %d: %zu wrong elements, first %s\n", me, kNames[v], it,
                     r.wrong, r.first_wrong.c_str());
      seen[v].wrong += r.wrong;
    }
  }

  // Combine over the PEs: each iteration's slowest PE, the largest error, all wrong elements.
  for (int v = 0; v < kVersions; ++v) {
    err.get()[v] = seen[v].max_error;
    wrong.get()[v] = seen[v].wrong;
  }
  shmem_barrier_all();
  shmem_double_max_reduce(SHMEM_TEAM_WORLD, slowest.get(), times.get(), kVersions * iters);
  shmem_double_max_reduce(SHMEM_TEAM_WORLD, max_err.get(), err.get(), kVersions);
  shmem_ulong_sum_reduce(SHMEM_TEAM_WORLD, all_wrong.get(), wrong.get(), kVersions);
  const bool ok = all_wrong.get()[0] == 0 && all_wrong.get()[1] == 0;

  if (me == 0) {
    const std::size_t base = s.k / static_cast<std::size_t>(npes);
    std::printf("matmul_allreduce: C[%zu x %zu] = A[%zu x %zu] . B[%zu x %zu], K split over %d PEs (%zu%s each)\n",
                s.m, s.n, s.m, s.k, s.k, s.n, npes, base, s.k % static_cast<std::size_t>(npes) ? " or one more" : "");
    std::printf("  %zu tiles of %zu rows, %d blocks per kernel, GEMM kernel %s, %d timed iterations after 1 warm-up\n",
                tiling.tiles(), tiling.tile_rows, o.grid, gemm_variant(), o.iterations);
    const double flop = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
    double med[kVersions];
    for (int v = 0; v < kVersions; ++v) {
      const double* t = slowest.get() + static_cast<std::size_t>(v) * iters;
      med[v] = median(std::vector<double>(t, t + iters));
      std::printf("  %-12s %10.3f ms  %9.2f GFLOP/s  max abs error vs reference %g\n", kNames[v], med[v],
                  flop / (med[v] * 1e6), max_err.get()[v]);
    }
    std::printf("  fused / baseline speed-up %.2fx (median time of the slowest PE per iteration)\n", med[1] / med[0]);
    std::printf("  checked %zu of %zu rows of C on every PE, every iteration, against a double reference, %s\n",
                checker.rows().size(), s.m, checker.tolerance() == 0 ? "exactly" : "within the float rounding bound");
    if (ok)
      std::printf("VERIFIED\n");
    else
      std::printf("FAILED: %lu wrong elements in the fused result, %lu in the baseline's (all PEs, all iterations)\n",
                  all_wrong.get()[0], all_wrong.get()[1]);
    std::fflush(stdout);  // before any PE exits: the launcher ends the job when one exits with 1
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const ParsedOptions parsed = parse_options(argc, argv);
  int status = 0;
  if (parsed.help) {
    if (me == 0) std::printf("%s", usage(argv[0]).c_str());
  } else if (!parsed.error.empty()) {
    if (me == 0) std::fprintf(stderr, "matmul_allreduce: %s\n%s", parsed.error.c_str(), usage(argv[0]).c_str());
    status = 2;
  } else if (const GemmSelect sel = gemm_select(parsed.options.gemm); sel != GemmSelect::kOk) {
    if (me == 0)
      std::fprintf(stderr, "matmul_allreduce: -k %s: %s\n", parsed.options.gemm.c_str(),
                   sel == GemmSelect::kUnsupported ? "this kernel variant is not supported by this CPU"
                                                   : "expects auto, avx512, avx2 or generic (avx* on x86-64 only)");
    status = 2;
  } else {
    status = run(parsed.options, me, npes);
  }
  shmem_finalize();
  return status;
}
