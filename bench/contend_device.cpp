// contend_device.cpp - the ping-pong of bench/contend.c through the device API: PEs 0 and 1
// each run a one-thread kernel (shmem::device::launch) that passes a word back and forth with
// shmem::device::p and shmem::device::wait_until, so what is timed is the kernel-side wait
// (include/shmem/device/backoff.hpp) rather than the host's. bench/contend.sh runs it next to
// contend.c in every scenario (this library only: the device API is ours).
//
// Prints one CSV line in contend.c's format,
// `dev_pingpong,npes,value_us,best_us,near_us,near_n,far_us,far_n`: the half round trip, median
// and best over CONTEND_REPS batches (one kernel launch each, sized on PE 0 to last about
// CONTEND_REP_MS), and the medians over the batches that ran with the CPUs of PEs 0 and 1 near
// and far apart (placement_probe.h, probed before and after every batch, as contend.c does). Each batch also pays for one launch and synchronize (tens of
// microseconds; the first launch of a process starts the pool's thread, milliseconds), so the
// warm-up batch is a few hundred round trips and the calibration grows a batch until it lasts
// half of CONTEND_REP_MS: the launch is then well under 1 % of a batch. The other PEs wait in
// the barrier that ends a batch. The word is checked after every batch; a failed check prints
// "CHECK FAILED" and the program exits 1.
#include <shmem.h>
#include <shmemx.h>

#include <algorithm>
#include <cstdio>
#include <shmem/device/device.hpp>
#include <vector>

#include "bench_util.h"
#include "placement_probe.h"

namespace dev = shmem::device;

namespace {

int me, npes;
long* flag;     // the ping-pong word (symmetric)
long* control;  // PE 0 tells the others the batch size (symmetric)
long seq;       // the last value sent, alike on PEs 0 and 1
int failures;

// n round trips in one kernel on PEs 0 and 1.
void batch(long n) {
  const long base = seq;
  seq += n;
  if (me > 1) return;
  long* const f = flag;
  const int pe = me;
  const int rc = dev::launch(nullptr, 1, [=](const dev::Block&) {
    for (long i = 1; i <= n; ++i) {
      const long s = base + i;
      if (pe == 0) {
        dev::p(f, s, 1);
        dev::wait_until(f, SHMEM_CMP_EQ, s);
      } else {
        dev::wait_until(f, SHMEM_CMP_EQ, s);
        dev::p(f, s, 0);
      }
    }
  });
  if (rc != 0 || shmemx_stream_synchronize(nullptr) != 0) {
    std::fprintf(stderr, "PE %d: CHECK FAILED dev_pingpong: launch %d\n", me, rc);
    ++failures;
  } else if (*flag != seq) {
    std::fprintf(stderr, "PE %d: CHECK FAILED dev_pingpong: flag: got %ld, expected %ld\n", me, *flag, seq);
    ++failures;
  }
}

}  // namespace

int main() {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  if (npes < 2) {
    if (me == 0) std::fprintf(stderr, "contend_device: needs at least 2 PEs\n");
    shmem_finalize();
    return 2;
  }
  const int reps = static_cast<int>(env_long_in("contend_device", me, "CONTEND_REPS", 7, 1, 51));
  const double rep_seconds =
      static_cast<double>(env_long_in("contend_device", me, "CONTEND_REP_MS", 10, 1, 10000)) * 1e-3;
  flag = static_cast<long*>(shmem_calloc(2, sizeof(long)));
  if (flag == nullptr) {
    if (me == 0) std::fprintf(stderr, "contend_device: shmem_calloc failed\n");
    shmem_global_exit(1);
  }
  control = flag + 1;
  shmem_barrier_all();
  probe_setup("contend_device", me, npes, control);
  batch(256);  // warm-up: the pool's thread, the first launch
  long n = 256, iters = 0;
  while (iters == 0) {
    shmem_barrier_all();
    const double t0 = now();
    batch(n);
    const double t = now() - t0;
    if (me == 0) {
      long decided = 0;
      if (t >= rep_seconds / 2 || n >= (1L << 24)) {
        const double want = t > 0 ? static_cast<double>(n) * rep_seconds / t : static_cast<double>(n);
        decided = want < 1 ? 1 : static_cast<long>(want);
      }
      for (int pe = 1; pe < npes; ++pe) shmem_long_p(control, decided, pe);
      *control = decided;
    }
    shmem_barrier_all();
    iters = *control;
    n *= 4;
  }
  std::vector<double> per_leg, near, far;
  for (int r = 0; r < reps; ++r) {
    shmem_barrier_all();
    const double before = probe();
    shmem_barrier_all();
    const double t0 = now();
    batch(iters);
    per_leg.push_back((now() - t0) / static_cast<double>(iters) / 2);
    const int place = probe_placement(before, probe());
    if (place == 1) near.push_back(per_leg.back());
    if (place == 2) far.push_back(per_leg.back());
  }
  shmem_barrier_all();
  std::sort(per_leg.begin(), per_leg.end());
  if (me == 0) {
    const int nn = static_cast<int>(near.size()), nf = static_cast<int>(far.size());
    std::printf("dev_pingpong,%d,%.4f,%.4f,%.4f,%d,%.4f,%d\n", npes, per_leg[per_leg.size() / 2] * 1e6,
                per_leg[0] * 1e6, probe_median(near.data(), nn) * 1e6, nn, probe_median(far.data(), nf) * 1e6, nf);
    std::fflush(stdout);
  }
  probe_close();
  shmem_free(flag);
  const int failed = failures;
  shmem_finalize();
  return failed ? 1 : 0;
}
