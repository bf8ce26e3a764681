// allgather: every PE contributes `n` ints and ends with everyone's, twice over:
//   1. a device kernel of `grid` blocks: block b puts its slice of this PE's contribution to
//      every PE with put + signal, then waits until the same slice has arrived from every PE;
//   2. the host-side stream form, shmemx_fcollectmem_on_stream.
// Both results are checked against the expected values; PE 0 prints VERIFIED.
//   oshrun -n 4 ./allgather [n=4096] [grid=8] [iterations=3]
#include <shmemx.h>

#include <cstdio>
#include <cstdlib>
#include <shmem/device/device.hpp>
#include <vector>

namespace dev = shmem::device;

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 4096;
  const int grid = argc > 2 ? std::atoi(argv[2]) : 8;
  const int iterations = argc > 3 ? std::atoi(argv[3]) : 3;
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();

  // Symmetric: the source (also used by fcollect), both outputs, one signal per (PE, block).
  auto* src = static_cast<int*>(shmem_malloc(n * sizeof(int)));
  auto* out = static_cast<int*>(shmem_calloc(n * npes, sizeof(int)));
  auto* out2 = static_cast<int*>(shmem_calloc(n * npes, sizeof(int)));
  auto* flags = static_cast<std::uint64_t*>(shmem_calloc(static_cast<std::size_t>(npes) * grid, sizeof(std::uint64_t)));
  shmemx_stream_t stream;
  shmemx_stream_create(&stream);

  long wrong = 0;
  for (int it = 1; it <= iterations; ++it) {
    for (std::size_t i = 0; i < n; ++i) src[i] = static_cast<int>(me * 1000000 + it * 10000 + static_cast<int>(i % 10000));
    shmem_barrier_all();  // nobody still reads last iteration's buffers

    // 1. The kernel. The signal value is the iteration number ("epoch"), so flags need no reset.
    const std::uint64_t epoch = static_cast<std::uint64_t>(it);
    dev::launch(stream, grid, [=](const dev::Block& b) {
      const std::size_t per = (n + b.grid - 1) / b.grid;
      const std::size_t lo = std::min(n, per * b.block_id), hi = std::min(n, lo + per);
      const int my = dev::my_pe(), np = dev::n_pes();
      for (int k = 0; k < np; ++k) {  // start with the right neighbour to spread the traffic
        const int pe = (my + 1 + k) % np;
        dev::putmem_signal(out + my * n + lo, src + lo, (hi - lo) * sizeof(int), flags + my * b.grid + b.block_id,
                           epoch, SHMEM_SIGNAL_SET, pe);
      }
      for (int from = 0; from < np; ++from)
        dev::signal_wait_until(flags + from * b.grid + b.block_id, SHMEM_CMP_EQ, epoch);
    });

    // 2. The stream form, ordered after the kernel on the same stream.
    shmemx_fcollectmem_on_stream(SHMEM_TEAM_WORLD, out2, src, n * sizeof(int), stream);
    if (const int rc = shmemx_stream_synchronize(stream)) {
      std::fprintf(stderr, "PE %d: the stream reported error %d\n", me, rc);
      ++wrong;
    }

    for (int p = 0; p < npes; ++p)
      for (std::size_t i = 0; i < n; ++i) {
        const int want = p * 1000000 + it * 10000 + static_cast<int>(i % 10000);
        wrong += out[p * n + i] != want;
        wrong += out2[p * n + i] != want;
      }
  }

  shmemx_stream_destroy(stream);
  auto* total = static_cast<long*>(shmem_calloc(1, sizeof(long)));
  shmem_long_atomic_add(total, wrong, 0);
  shmem_barrier_all();
  const bool ok = wrong == 0 && (me != 0 || *total == 0);
  if (me == 0)
    std::printf("allgather: %d PEs x %zu ints, %d blocks, %d iterations: %s\n", npes, n, grid, iterations,
                *total == 0 ? "VERIFIED" : "FAILED");
  shmem_free(total);
  shmem_free(flags);
  shmem_free(out2);
  shmem_free(out);
  shmem_free(src);
  shmem_finalize();
  return ok ? 0 : 1;
}
