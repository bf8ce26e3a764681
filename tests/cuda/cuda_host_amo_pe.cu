// Host atomics, signals and waits on GPU symmetric memory (a GPU needed; gpu_run.sh reports
// SKIPPED without one): the host cannot load or store GPU memory, so the library runs each
// atomic as a one-thread kernel of the CUDA plugin and reads waited-on words as copies. Every PE
// updates PE 0's words and its ring neighbour's; every result is checked against its closed form.
#include <cuda_runtime_api.h>
#include <shmem.h>
#include <shmemx.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "gpu_probe.cuh"

namespace {

int g_failures = 0;
#define CHECK(cond, ...)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "PE %d: %s:%d: %s: ", shmem_my_pe(), __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                                 \
      std::fprintf(stderr, "\n");                                                        \
      ++g_failures;                                                                      \
    }                                                                                    \
  } while (0)

constexpr int kRounds = 50;

struct Words {  // in the GPU heap, zeroed
  long sum;
  long tickets;
  long cswap;
  std::uint64_t bits;
  std::uint64_t xbits;
  int swap32;
  float fswap;
  std::uint64_t sig_ring;
  std::uint64_t sig_count;
  long payload[8];
};

}  // namespace

int main(int argc, char** argv) {
  if (const int rc = gpu_probe(argc, argv); rc >= 0) return rc;
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  auto* w = static_cast<Words*>(shmemx_cuda_calloc(1, sizeof(Words)));
  CHECK(w != nullptr, "shmemx_cuda_calloc");
  static long ticket_sum;  // symmetric CPU memory
  static long cswap_wins;

  // Arithmetic on PE 0's words from every PE at once.
  long my_tickets = 0;
  for (int i = 0; i < kRounds; ++i) {
    shmem_long_atomic_add(&w->sum, me + 1, 0);
    my_tickets += shmem_long_atomic_fetch_inc(&w->tickets, 0);
  }
  shmem_long_atomic_add(&ticket_sum, my_tickets, 0);
  if (shmem_long_atomic_compare_swap(&w->cswap, 0, me + 1, 0) == 0) shmem_long_atomic_inc(&cswap_wins, 0);
  shmem_uint64_atomic_or(&w->bits, std::uint64_t{1} << (me % 64), 0);
  const std::uint64_t seen = shmem_uint64_atomic_fetch_xor(&w->xbits, std::uint64_t{1} << (me % 64), 0);
  (void)seen;
  shmem_barrier_all();
  if (me == 0) {
    const long total = static_cast<long>(n) * kRounds;
    CHECK(shmem_long_atomic_fetch(&w->sum, 0) == kRounds * static_cast<long>(n) * (n + 1) / 2, "sum %ld",
          shmem_long_atomic_fetch(&w->sum, 0));
    CHECK(shmem_long_atomic_fetch(&w->tickets, 0) == total, "tickets %ld", shmem_long_atomic_fetch(&w->tickets, 0));
    CHECK(ticket_sum == total * (total - 1) / 2, "fetch_inc handed out tickets summing to %ld, not %ld", ticket_sum,
          total * (total - 1) / 2);
    CHECK(cswap_wins == 1, "%ld compare_swaps won", cswap_wins);
    const long winner = shmem_long_atomic_fetch(&w->cswap, 0);
    CHECK(winner >= 1 && winner <= n, "compare_swap left %ld", winner);
    const std::uint64_t all = n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
    CHECK(shmem_uint64_atomic_fetch(&w->bits, 0) == all, "or: %llx",
          static_cast<unsigned long long>(shmem_uint64_atomic_fetch(&w->bits, 0)));
    CHECK(shmem_uint64_atomic_fetch(&w->xbits, 0) == all, "xor: %llx",
          static_cast<unsigned long long>(shmem_uint64_atomic_fetch(&w->xbits, 0)));
  }

  // Swaps and sets on the next PE's 32-bit and float words; the nonblocking fetch.
  shmem_int_atomic_set(&w->swap32, 100 + me, next);
  shmem_float_atomic_set(&w->fswap, 0.5f + static_cast<float>(me), next);
  shmem_barrier_all();
  CHECK(shmem_int_atomic_swap(&w->swap32, -1, me) == 100 + prev, "int swap");
  CHECK(shmem_int_atomic_fetch(&w->swap32, me) == -1, "int swap stored %d", shmem_int_atomic_fetch(&w->swap32, me));
  CHECK(shmem_float_atomic_swap(&w->fswap, 2.25f, me) == 0.5f + static_cast<float>(prev), "float swap");
  long fetched = -7;
  shmem_long_atomic_fetch_add_nbi(&fetched, &w->sum, 0, 0);
  shmem_quiet();
  CHECK(fetched == kRounds * static_cast<long>(n) * (n + 1) / 2, "fetch_add_nbi %ld", fetched);
  shmem_barrier_all();

  // Put-with-signal into the next PE's GPU words; each PE waits on its own signal (GPU memory).
  long payload[8];
  for (int i = 0; i < 8; ++i) payload[i] = 1000L * me + i;
  shmem_long_put_signal(w->payload, payload, 8, &w->sig_ring, 1, SHMEM_SIGNAL_SET, next);
  CHECK(shmem_signal_wait_until(&w->sig_ring, SHMEM_CMP_EQ, 1) == 1, "signal_wait_until");
  long got[8];
  shmem_long_get(got, w->payload, 8, me);
  int bad = 0;
  for (int i = 0; i < 8; ++i) bad += got[i] != 1000L * prev + i;
  CHECK(bad == 0, "%d payload words differ after the signal", bad);
  // Every PE adds to PE 0's counter; PE 0 waits for all of them.
  shmem_signal_add(&w->sig_count, 1, 0);
  if (me == 0) {
    shmem_uint64_wait_until(&w->sig_count, SHMEM_CMP_EQ, static_cast<std::uint64_t>(n));
    CHECK(shmem_signal_fetch(&w->sig_count) == static_cast<std::uint64_t>(n), "signal_add count");
  }
  shmem_barrier_all();
  shmemx_cuda_free(w);
  shmem_finalize();
  if (g_failures == 0 && me == 0) std::printf("cuda_host_amo_pe: %d PEs OK\n", n);
  return g_failures == 0 ? 0 : 1;
}
