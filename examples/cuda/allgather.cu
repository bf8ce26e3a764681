// allgather on the GPU: every PE contributes `n` ints and ends with all PEs' contributions, in PE
// order, moved by one kernel. Block b of the grid owns slice b of the contribution: it pushes the
// slice into every PE's output with putmem_signal_block (all the block's threads copy, thread 0
// then signals), and then waits until the same slice has arrived from every PE.
//
// Signals are never reset: each iteration sets them to its number (the epoch) and waits for
// exactly that value; the host barrier between iterations keeps one iteration's pushes from
// reaching a PE that still checks the previous one.
//
// The launch is cooperative (every block resident at once): block b waits only for block b of
// the other PEs, and a waiting block must never keep a block that has yet to push from running.
//
//   oshrun -n 4 build/examples/cuda/allgather [-n ints] [-g blocks] [-b threads] [-i iterations]
#include <shmem/device/device.hpp>
#include <vector>

#include "common.cuh"

namespace dev = shmem::device;
using namespace cuda_examples;

namespace {

// Element i of PE p's contribution in iteration it.
__host__ __device__ int value(int p, int it, std::size_t i) { return static_cast<int>(mix(p, it, i) >> 33); }

__global__ void fill(int* src, std::size_t n, int me, int it) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    src[i] = value(me, it, i);
}

int run(int argc, char** argv) {
  Options opt(argc, argv, "[-n ints per PE] [-g blocks] [-b threads per block] [-i iterations]");
  const auto n = static_cast<std::size_t>(opt.get("-n", 1 << 20, 1, 1L << 28));
  const int grid = static_cast<int>(opt.get("-g", 8, 1, 1024));
  const int threads = static_cast<int>(opt.get("-b", 256, 32, 1024));
  const int iterations = static_cast<int>(opt.get("-i", 3, 1, 1000));
  opt.done();

  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  GpuSymmetric<int> src(n);                                            // this PE's contribution
  GpuSymmetric<int> out(n * npes);                                     // slot p: PE p's contribution
  GpuSymmetric<std::uint64_t> flags(static_cast<std::size_t>(npes) * grid);  // (source PE, block)
  use_device_of(src.get());

  std::vector<int> got(n * npes);
  long wrong = 0;
  float ms_total = 0;
  cudaEvent_t start, stop;
  EXAMPLE_CUDA_CHECK(cudaEventCreate(&start));
  EXAMPLE_CUDA_CHECK(cudaEventCreate(&stop));
  for (int it = 1; it <= iterations; ++it) {
    fill<<<64, 256>>>(src.get(), n, me, it);
    EXAMPLE_CUDA_CHECK(cudaGetLastError());
    EXAMPLE_CUDA_CHECK(cudaMemset(out.get(), 0xff, out.bytes()));  // nothing stale can pass
    EXAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
    shmem_barrier_all();  // every PE has checked the previous iteration and refilled its output

    int* const s = src.get();
    int* const o = out.get();
    std::uint64_t* const f = flags.get();
    const auto epoch = static_cast<std::uint64_t>(it);
    EXAMPLE_CUDA_CHECK(cudaEventRecord(start));
    const int rc = dev::launch(
        nullptr, grid,
        [=] __device__(const dev::Block& b) {
          const std::size_t per = (n + b.grid - 1) / b.grid;
          const std::size_t lo = min(n, per * b.block_id), hi = min(n, lo + per);
          const int my = dev::my_pe(), np = dev::n_pes();
          // Start with the right neighbour so that the PEs do not all write to PE 0 first. An
          // empty slice (n < grid) still signals: the receiver waits for every (PE, block).
          for (int k = 1; k <= np; ++k) {
            const int pe = (my + k) % np;
            dev::putmem_signal_block(b, o + my * n + lo, s + lo, (hi - lo) * sizeof(int), f + my * b.grid + b.block_id,
                                     epoch, SHMEM_SIGNAL_SET, pe);
          }
          if (b.thread_id == 0)
            for (int from = 0; from < np; ++from)
              dev::signal_wait_until(f + from * b.grid + b.block_id, SHMEM_CMP_EQ, epoch);
          __syncthreads();
        },
        {.block_dim = threads, .cooperative = true});
    launch_check(rc);
    EXAMPLE_CUDA_CHECK(cudaEventRecord(stop));
    EXAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
    float ms = 0;
    EXAMPLE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    ms_total += ms;

    EXAMPLE_CUDA_CHECK(cudaMemcpy(got.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int p = 0; p < npes; ++p)
      for (std::size_t i = 0; i < n; ++i) {
        const int want = value(p, it, i);
        if (got[p * n + i] != want && bad++ == 0)
          std::fprintf(stderr, "FAILED: PE %d iteration %d: element %zu from PE %d is %d, expected %d\n", me, it, i, p,
                       got[p * n + i], want);
      }
    wrong += bad;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);

  if (me == 0)
    std::printf("allgather: %d PEs x %zu ints, %d blocks of %d threads, %d iterations, kernel %.3f ms per iteration\n",
                npes, n, grid, threads, iterations, ms_total / iterations);
  return verdict(wrong, "allgather");
}

}  // namespace

int main(int argc, char** argv) { return example_main(argc, argv, run); }
