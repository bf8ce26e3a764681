/*
 * pe_busy.c SECONDS - a job that keeps working for about SECONDS: rounds of a put to the right
 * neighbour, a barrier and a check, until PE 0 says stop (at most 1,000,000 rounds). For tests
 * that do something to the job's store while the job runs (torchrun_hostile.sh).
 * Prints "pe_busy: VERIFIED (N rounds)" on PE 0.
 */
#include <time.h>

#include "check.h"

static long token;
static long go = 1;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? atof(argv[1]) : 1.0;
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const double start = now_s();
  long rounds = 0, wrong = 0;
  while (go && rounds < 1000000) {
    ++rounds;
    shmem_long_p(&token, rounds * 1000 + me, (me + 1) % n);
    shmem_barrier_all();
    if (token != rounds * 1000 + (me + n - 1) % n) ++wrong;
    if (me == 0 && now_s() - start >= seconds)
      for (int pe = 0; pe < n; ++pe) shmem_long_p(&go, 0, pe);
    shmem_barrier_all();
  }
  if (wrong) fprintf(stderr, "PE %d: FAIL: %ld of %ld rounds saw a wrong token\n", me, wrong, rounds);
  if (me == 0 && !wrong) printf("pe_busy: VERIFIED (%ld rounds)\n", rounds);
  shmem_finalize();
  return wrong ? 1 : 0;
}
