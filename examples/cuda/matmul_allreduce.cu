// matmul_allreduce on the GPU: the fused "MC2" operator (matmul + collective communication) in ONE
// kernel. C = A·B with A M×K and B K×N, K split across the PEs: PE p holds A[:, Kp] and B[Kp, :]
// and computes the partial product C_p = A[:, Kp]·B[Kp, :]; every PE must end with C = Σ_p C_p.
// (examples/matmul_allreduce/README.md explains the operator; this is its CUDA form.)
//
// C is cut into 64×64 tiles; tile t is owned (reduced) by PE t % npes, and block b of every PE
// handles the same tiles t = b, b + grid, ... in three phases:
//   1. reduce-scatter under the GEMM: compute the tile of C_p (shared-memory tiled SGEMM) and push
//      it, as soon as it is finished, into the owner's receive slot for this PE
//      (putmem_signal_block, SHMEM_SIGNAL_ADD on the owner's arrival counter of the tile);
//   2. for the tiles this PE owns: wait for all npes contributions, sum them in PE order (so every
//      PE gets the same bits) and push the reduced tile to every PE (all-gather, SIGNAL_SET);
//   3. wait until every tile of the block has arrived from its owner.
// Blocks run these phases independently, so while some blocks still multiply others send, reduce
// or receive.
//
// Why it cannot deadlock. Phase 1 waits for nothing, so every block that runs pushes all its
// partial tiles. Phase 2 of block b waits only for phase 1 of block b on each PE; phase 3 of block
// b waits only for phase 2 of block b on the owners. No wait is on a block of the same PE, and no
// wait is on a later phase, so the waits form no cycle — provided that every block runs. The
// launch is cooperative, so every block of a PE's grid is resident at once (a spinning block can
// never keep one that has yet to push from being scheduled). Across processes sharing one GPU the
// kernels must run concurrently: under MPS (docs/cuda.md) with room for every PE's grid, or
// time-sliced without it (correct, but each wait then costs a time slice).
//
// Signals are never reset: a tile's arrival counter grows by npes per iteration, and the reduced
// tile's flag is set to the iteration number; the host barrier between iterations keeps one
// iteration's pushes away from a PE that still checks the previous one.
//
//   oshrun -n 4 build/examples/cuda/matmul_allreduce [-M m] [-N n] [-K k] [-g blocks] [-i iterations]
#include <algorithm>
#include <chrono>
#include <shmem/device/device.hpp>
#include <vector>

#include "common.cuh"

namespace dev = shmem::device;
using namespace cuda_examples;

namespace {

constexpr int kTile = 64;                 // C tiles are kTile × kTile, stored contiguously
constexpr int kTileElems = kTile * kTile;
constexpr int kDepth = 16;                // K step of the shared-memory GEMM
constexpr int kThreads = 256;             // 16 × 16 threads, each computing 4 × 4 elements

// A and B are small integers from a hash of their global indices, so every product and partial
// sum is an integer: exact in float while |sum| <= 6K < 2^24 (K <= 2^20), in any order.
__host__ __device__ float a_value(long i, long k) { return static_cast<float>(static_cast<int>(mix(1, i, k) % 5) - 2); }
__host__ __device__ float b_value(long k, long j) { return static_cast<float>(static_cast<int>(mix(2, k, j) % 7) - 3); }

struct Problem {
  int m, n, k;           // global sizes
  int k0, kp;            // this PE's share of K: columns k0 .. k0 + kp - 1
  int tiles_m, tiles_n;  // C in tiles
  __host__ __device__ int tiles() const { return tiles_m * tiles_n; }
};

__global__ void fill_inputs(Problem pb, float* a, float* b) {  // A[:, Kp] (M × kp) and B[Kp, :] (kp × N)
  const long stride = static_cast<long>(gridDim.x) * blockDim.x;
  for (long x = blockIdx.x * blockDim.x + threadIdx.x; x < static_cast<long>(pb.m) * pb.kp; x += stride)
    a[x] = a_value(x / pb.kp, pb.k0 + x % pb.kp);
  for (long x = blockIdx.x * blockDim.x + threadIdx.x; x < static_cast<long>(pb.kp) * pb.n; x += stride)
    b[x] = b_value(pb.k0 + x / pb.n, x % pb.n);
}

// Symmetric and local arrays the kernel uses (passed by value).
struct Buffers {
  float* a;                  // local, M × kp
  float* b;                  // local, kp × N
  float* recv;               // symmetric: per owned tile, npes slots of kTileElems (slot = source PE)
  std::uint64_t* arrived;    // symmetric: per owned tile, contributions received (SIGNAL_ADD)
  float* c;                  // symmetric: the result, tile-major (tile t at c + t * kTileElems)
  std::uint64_t* gathered;   // symmetric: per tile, the iteration whose reduced tile has arrived
};

// This thread's 4 × 4 elements of tile t of C_p = A[:, Kp]·B[Kp, :], written into `stage` (row-major
// kTile × kTile). Rows and columns past M, N come out as 0.
__device__ void gemm_tile(const Problem& pb, const Buffers& buf, int t, float* stage) {
  __shared__ float as[kDepth][kTile];  // as[k][row]
  __shared__ float bs[kDepth][kTile];  // bs[k][col]
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row0 = (t / pb.tiles_n) * kTile, col0 = (t % pb.tiles_n) * kTile;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < pb.kp; k0 += kDepth) {
    for (int x = threadIdx.x; x < kDepth * kTile; x += kThreads) {
      const int r = x / kDepth, ka = x % kDepth;  // consecutive threads read consecutive k of A's row
      const int row = row0 + r, k = k0 + ka;
      as[ka][r] = row < pb.m && k < pb.kp ? buf.a[static_cast<long>(row) * pb.kp + k] : 0.0f;
      const int kb = x / kTile, c = x % kTile;  // and consecutive columns of B's row
      const int col = col0 + c, kk = k0 + kb;
      bs[kb][c] = col < pb.n && kk < pb.kp ? buf.b[static_cast<long>(kk) * pb.n + col] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < kDepth; ++k)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] += as[k][ty + 16 * i] * bs[k][tx + 16 * j];
    __syncthreads();  // before the next step overwrites as and bs
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) stage[(ty + 16 * i) * kTile + tx + 16 * j] = acc[i][j];
  __syncthreads();  // every thread's share is in `stage` before the block pushes it
}

__device__ void fused_block(const Problem& pb, const Buffers& buf, std::uint64_t epoch, const dev::Block& b) {
  __shared__ alignas(16) float stage[kTileElems];
  const int me = dev::my_pe(), np = dev::n_pes();
  const std::size_t tile_bytes = kTileElems * sizeof(float);

  // 1. GEMM, each finished partial tile pushed to its owner's slot for this PE.
  for (int t = b.block_id; t < pb.tiles(); t += b.grid) {
    gemm_tile(pb, buf, t, stage);
    const int owner = t % np, j = t / np;  // j: the tile's index among its owner's tiles
    dev::putmem_signal_block(b, buf.recv + (static_cast<std::size_t>(j) * np + me) * kTileElems, stage, tile_bytes,
                             buf.arrived + j, std::uint64_t{1}, SHMEM_SIGNAL_ADD, owner);
  }
  // 2. Reduce the tiles this PE owns, in PE order, and push each to every PE.
  for (int t = b.block_id; t < pb.tiles(); t += b.grid) {
    if (t % np != me) continue;
    const int j = t / np;
    if (b.thread_id == 0) dev::signal_wait_until(buf.arrived + j, SHMEM_CMP_GE, epoch * np);
    __syncthreads();  // thread 0's acquire covers the block's reads below
    const float* slots = buf.recv + static_cast<std::size_t>(j) * np * kTileElems;
    for (int e = b.thread_id; e < kTileElems; e += b.block_dim) {
      float sum = 0.0f;
      for (int p = 0; p < np; ++p) sum += slots[static_cast<std::size_t>(p) * kTileElems + e];
      stage[e] = sum;
    }
    __syncthreads();
    for (int k = 1; k <= np; ++k)
      dev::putmem_signal_block(b, buf.c + static_cast<std::size_t>(t) * kTileElems, stage, tile_bytes,
                               buf.gathered + t, epoch, SHMEM_SIGNAL_SET, (me + k) % np);
  }
  // 3. Every tile of this block, from its owner.
  if (b.thread_id == 0)
    for (int t = b.block_id; t < pb.tiles(); t += b.grid)
      dev::signal_wait_until(buf.gathered + t, SHMEM_CMP_EQ, epoch);
  __syncthreads();
}

// C computed exactly on the host from the global indices (the values are integers: int64 sums are
// exact), once, as doubles.
std::vector<double> reference(const Problem& pb) {
  std::vector<signed char> bmat(static_cast<std::size_t>(pb.k) * pb.n);
  for (long k = 0; k < pb.k; ++k)
    for (long j = 0; j < pb.n; ++j) bmat[k * pb.n + j] = static_cast<signed char>(b_value(k, j));
  std::vector<double> ref(static_cast<std::size_t>(pb.m) * pb.n);
  std::vector<long> row(pb.n);
  for (long i = 0; i < pb.m; ++i) {
    std::fill(row.begin(), row.end(), 0L);
    for (long k = 0; k < pb.k; ++k) {
      const long a = static_cast<long>(a_value(i, k));
      for (long j = 0; j < pb.n; ++j) row[j] += a * bmat[k * pb.n + j];
    }
    for (long j = 0; j < pb.n; ++j) ref[i * pb.n + j] = static_cast<double>(row[j]);
  }
  return ref;
}

// This PE's C (tile-major) against the reference, exactly: with K <= 2^20 every float partial sum
// is an integer below 6K < 2^24, so no rounding happens in any order of summation (a tolerance
// would only hide errors).
long check(const Problem& pb, const std::vector<float>& c, const std::vector<double>& ref, int me, int it) {
  long bad = 0;
  for (long i = 0; i < pb.m; ++i)
    for (long j = 0; j < pb.n; ++j) {
      const long t = (i / kTile) * pb.tiles_n + j / kTile;
      const float got = c[t * kTileElems + (i % kTile) * kTile + j % kTile];
      const double want = ref[i * pb.n + j];
      if (!(got == want) && bad++ == 0)  // NaN (never written) fails too
        std::fprintf(stderr, "FAILED: PE %d iteration %d: C[%ld,%ld] = %g, expected %g\n", me, it, i, j, got, want);
    }
  return bad;
}

int run(int argc, char** argv) {
  Options opt(argc, argv, "[-M rows] [-N columns] [-K depth] [-g blocks] [-i iterations]");
  Problem pb{};
  pb.m = static_cast<int>(opt.get("-M", 512, 1, 8192));
  pb.n = static_cast<int>(opt.get("-N", 512, 1, 8192));
  pb.k = static_cast<int>(opt.get("-K", 1024, 1, 1 << 20));
  const int grid_wanted = static_cast<int>(opt.get("-g", 16, 1, 1024));
  const int iterations = static_cast<int>(opt.get("-i", 3, 1, 1000));
  opt.done();

  shmem_init();
  const int me = shmem_my_pe(), np = shmem_n_pes();
  // K need not divide: the first k % np PEs take one more column (a PE may take none).
  pb.kp = pb.k / np + (me < pb.k % np ? 1 : 0);
  pb.k0 = me * (pb.k / np) + (me < pb.k % np ? me : pb.k % np);
  pb.tiles_m = (pb.m + kTile - 1) / kTile;
  pb.tiles_n = (pb.n + kTile - 1) / kTile;
  const int owned_max = (pb.tiles() + np - 1) / np;  // the most tiles one PE owns
  const int grid = std::min(grid_wanted, pb.tiles());

  GpuSymmetric<float> recv(static_cast<std::size_t>(owned_max) * np * kTileElems);
  GpuSymmetric<std::uint64_t> arrived(owned_max);
  GpuSymmetric<float> c(static_cast<std::size_t>(pb.tiles()) * kTileElems);
  GpuSymmetric<std::uint64_t> gathered(pb.tiles());
  use_device_of(c.get());
  DeviceArray<float> a(static_cast<std::size_t>(pb.m) * pb.kp), b(static_cast<std::size_t>(pb.kp) * pb.n);
  fill_inputs<<<128, 256>>>(pb, a.get(), b.get());
  EXAMPLE_CUDA_CHECK(cudaGetLastError());
  const Buffers buf{a.get(), b.get(), recv.get(), arrived.get(), c.get(), gathered.get()};

  const std::vector<double> ref = reference(pb);
  std::vector<float> host_c(static_cast<std::size_t>(pb.tiles()) * kTileElems);
  long wrong = 0;
  double ms_total = 0;
  for (int it = 1; it <= iterations; ++it) {
    // NaN in the result and in every receive slot (the inputs are the same in every iteration): a
    // contribution or a reduced tile that does not arrive cannot pass.
    EXAMPLE_CUDA_CHECK(cudaMemset(c.get(), 0xff, c.bytes()));
    EXAMPLE_CUDA_CHECK(cudaMemset(recv.get(), 0xff, recv.bytes()));
    EXAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
    shmem_barrier_all();
    const auto epoch = static_cast<std::uint64_t>(it);
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = dev::launch(
        nullptr, grid, [=] __device__(const dev::Block& blk) { fused_block(pb, buf, epoch, blk); },
        {.block_dim = kThreads, .cooperative = true});
    launch_check(rc);
    EXAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
    ms_total += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    EXAMPLE_CUDA_CHECK(cudaMemcpy(host_c.data(), c.get(), c.bytes(), cudaMemcpyDeviceToHost));
    wrong += check(pb, host_c, ref, me, it);
  }
  if (me == 0)
    std::printf("matmul_allreduce: C[%d x %d] = A[%d x %d] . B[%d x %d], K split over %d PEs, %d tiles of %dx%d, "
                "%d blocks, %.3f ms per fused kernel (%d iterations)\n",
                pb.m, pb.n, pb.m, pb.k, pb.k, pb.n, np, pb.tiles(), kTile, kTile, grid, ms_total / iterations,
                iterations);
  return verdict(wrong, "matmul_allreduce");
}

}  // namespace

int main(int argc, char** argv) { return example_main(argc, argv, run); }
