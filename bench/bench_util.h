/* Helpers shared by the C benchmarks (perf.c, coll.c): a monotonic clock, a qsort comparator for
 * doubles and a checked integer setting from the environment. Standard C11 and POSIX only, so
 * the benchmarks still build against any OpenSHMEM. */
#ifndef SHMEM_BENCH_UTIL_H
#define SHMEM_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* NAME as a long in lo..hi, or dflt when unset; a bad value is reported (by PE 0, as `prog`)
 * and ignored. */
static inline long env_long_in(const char *prog, int me, const char *name, long dflt, long lo, long hi) {
  const char *s = getenv(name);
  if (!s || !*s) return dflt;
  char *end;
  long v = strtol(s, &end, 10);
  if (*end || v < lo || v > hi) {
    if (me == 0) fprintf(stderr, "%s: ignoring %s=%s (want %ld..%ld)\n", prog, name, s, lo, hi);
    return dflt;
  }
  return v;
}

#endif
