/*
 * coll.c - collective micro-benchmark for any OpenSHMEM library.
 *
 * Uses only the standard API, and for the collectives the active-set ("legacy", deprecated
 * since OpenSHMEM 1.5 but still in 1.6) forms that every implementation has:
 *
 *   barrier     shmem_barrier_all()
 *   broadcast   shmem_broadcast64(dest, source, nelems, 0, 0, 0, npes, pSync)  (root = PE 0)
 *   fcollect    shmem_fcollect64 (dest, source, nelems, 0, 0, 0, npes, pSync)
 *   alltoall    shmem_alltoall64 (dest, source, nelems, 0, 0, 0, npes, pSync)
 *   sum_reduce  shmem_double_sum_to_all(dest, source, nreduce, 0, 0, npes, pWrk, pSync)
 *
 * Built with -DCOLL_TEAM_FORMS (bench/coll_team.c does that) it measures the OpenSHMEM 1.5+
 * team forms on SHMEM_TEAM_WORLD instead: shmem_team_sync, shmem_broadcastmem,
 * shmem_fcollectmem, shmem_alltoallmem, shmem_double_sum_reduce.
 *
 * SIZE is the size of the result on each PE, in bytes (the bytes of dest every PE ends up
 * with): broadcast and sum_reduce move SIZE-byte buffers; fcollect gathers SIZE/npes bytes
 * from every PE; alltoall sends SIZE/npes bytes to every PE. Bandwidth = SIZE / latency
 * (GB/s = 1e9 bytes/s), i.e. bytes of result per PE per second. fcollect and alltoall skip
 * sizes that are not a multiple of 8*npes.
 *
 * Output (PE 0, stdout), one CSV line per (collective, size):
 *   coll,bytes,npes,lat_us,best_us,bw_GBs
 * lat_us = median over repetitions of the time per call, best_us = fastest repetition. A
 * repetition is a timed batch of back-to-back calls (sized to last ~COLL_REP_MS); its time is
 * the slowest PE's. Consecutive calls alternate between two pSync (and pWrk) arrays, as the
 * specification requires for back-to-back active-set collectives without a barrier.
 *
 * After the timed repetitions of each (collective, size) dest is poisoned, the call is made
 * once more, and every PE checks its whole result; a wrong result prints "CHECK FAILED" on
 * stderr and the program exits with status 1 (on every PE).
 *
 * Environment (all optional):
 *   COLL_REPS      repetitions per point (default 11)
 *   COLL_REP_MS    target duration of one repetition in ms (default 10)
 *   COLL_SIZES     comma-separated result sizes in bytes (default
 *                  8,16,64,256,1K,4K,16K,64K,256K,1M,4M,16M; K/M suffixes allowed)
 *   COLL_ONLY      comma-separated subset of barrier,broadcast,fcollect,alltoall,sum_reduce
 * SHMEM_SYMMETRIC_SIZE must hold ~5x the largest size (256M is plenty for 16 MiB).
 */
#define _POSIX_C_SOURCE 200809L

#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#if defined(__GNUC__)
/* The active-set collectives are deprecated; measuring them is the point. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

#define MAX_REPS 101
#define MAX_SIZES 64

/* One pSync length that fits every routine used here, whatever the library's constants. */
#define MAX2(a, b) ((a) > (b) ? (a) : (b))
#define PSYNC_LEN                                                                             \
  MAX2(MAX2(MAX2(SHMEM_BCAST_SYNC_SIZE, SHMEM_COLLECT_SYNC_SIZE),                              \
            MAX2(SHMEM_REDUCE_SYNC_SIZE, SHMEM_ALLTOALL_SYNC_SIZE)),                           \
       SHMEM_BARRIER_SYNC_SIZE)

static int me, npes;
static long *psync[2];      /* symmetric heap: two pSync arrays, alternated call by call */
static double *pwrk[2];     /* symmetric heap: two pWrk arrays */
static unsigned long call_no; /* counts every collective call: selects the pSync/pWrk pair */
static char *src, *dst;     /* symmetric, max_bytes each */
static long *control;       /* symmetric: PE 0 tells the others the batch size */
static double *rep_times;   /* symmetric: every PE's repetition times, read by PE 0 */
static size_t max_bytes;
static int failures;

static int reps = 11;
static double rep_seconds = 0.010;

/* ---- the collectives: run(n, bytes) makes n back-to-back calls ----------------------------- */

#ifndef COLL_TEAM_FORMS
#define VARIANT "legacy active-set forms"

static void run_barrier(long n, size_t bytes) {
  (void)bytes;
  for (long i = 0; i < n; i++) shmem_barrier_all();
}

static void run_broadcast(long n, size_t bytes) {
  for (long i = 0; i < n; i++)
    shmem_broadcast64(dst, src, bytes / 8, 0, 0, 0, npes, psync[call_no++ & 1]);
}

static void run_fcollect(long n, size_t bytes) {
  for (long i = 0; i < n; i++)
    shmem_fcollect64(dst, src, bytes / 8 / (size_t)npes, 0, 0, npes, psync[call_no++ & 1]);
}

static void run_alltoall(long n, size_t bytes) {
  for (long i = 0; i < n; i++)
    shmem_alltoall64(dst, src, bytes / 8 / (size_t)npes, 0, 0, npes, psync[call_no++ & 1]);
}

static void run_sum_reduce(long n, size_t bytes) {
  for (long i = 0; i < n; i++) {
    unsigned long k = call_no++ & 1;
    shmem_double_sum_to_all((double *)dst, (const double *)src, (int)(bytes / 8), 0, 0, npes,
                            pwrk[k], psync[k]);
  }
}

#else
#define VARIANT "team forms on SHMEM_TEAM_WORLD"

static void run_barrier(long n, size_t bytes) {
  (void)bytes;
  for (long i = 0; i < n; i++) shmem_team_sync(SHMEM_TEAM_WORLD);
}

static void run_broadcast(long n, size_t bytes) {
  for (long i = 0; i < n; i++)
    if (shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, bytes, 0) != 0) failures++;
}

static void run_fcollect(long n, size_t bytes) {
  for (long i = 0; i < n; i++)
    if (shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, bytes / (size_t)npes) != 0) failures++;
}

static void run_alltoall(long n, size_t bytes) {
  for (long i = 0; i < n; i++)
    if (shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, bytes / (size_t)npes) != 0) failures++;
}

static void run_sum_reduce(long n, size_t bytes) {
  for (long i = 0; i < n; i++)
    if (shmem_double_sum_reduce(SHMEM_TEAM_WORLD, (double *)dst, (const double *)src, bytes / 8) != 0)
      failures++;
}
#endif

/* ---- data patterns and checks ------------------------------------------------------------ */

/* 64-bit words: owner PE in bits 48.., destination PE (alltoall) in 32..47, index below. */
static int64_t word(int from, int to, size_t i) {
  return ((int64_t)from << 48) | ((int64_t)to << 32) | (int64_t)(i + 1);
}

/* Exact in double: small integers. */
static double rval(int pe, size_t i) { return (double)((i % 1024) * (size_t)(pe + 1) + 1); }

enum kind { BARRIER, BROADCAST, FCOLLECT, ALLTOALL, SUM_REDUCE };
struct coll {
  const char *name;
  enum kind kind;
  void (*run)(long n, size_t bytes);
};
static const struct coll colls[] = {
    {"barrier", BARRIER, run_barrier},
    {"broadcast", BROADCAST, run_broadcast},
    {"fcollect", FCOLLECT, run_fcollect},
    {"alltoall", ALLTOALL, run_alltoall},
    {"sum_reduce", SUM_REDUCE, run_sum_reduce},
};

static void fill_source(enum kind k, size_t bytes) {
  size_t words = bytes / 8;
  int64_t *s = (int64_t *)src;
  double *d = (double *)src;
  switch (k) {
    case BARRIER: break;
    case BROADCAST:
      for (size_t i = 0; i < words; i++) s[i] = word(me, 0, i);
      break;
    case FCOLLECT:
      for (size_t i = 0; i < words / (size_t)npes; i++) s[i] = word(me, 0, i);
      break;
    case ALLTOALL: {
      size_t nb = words / (size_t)npes;
      for (int to = 0; to < npes; to++)
        for (size_t i = 0; i < nb; i++) s[(size_t)to * nb + i] = word(me, to, i);
      break;
    }
    case SUM_REDUCE:
      for (size_t i = 0; i < words; i++) d[i] = rval(me, i);
      break;
  }
}

static void report_bad(const char *name, size_t bytes, size_t at, double got, double want) {
  if (failures++ < 5)
    fprintf(stderr, "PE %d: CHECK FAILED %s %zu B: element %zu is %.17g, expected %.17g\n", me,
            name, bytes, at, got, want);
}

static void check_result(const struct coll *c, size_t bytes) {
  size_t words = bytes / 8;
  const int64_t *r = (const int64_t *)dst;
  const double *rd = (const double *)dst;
  size_t nb = words / (size_t)npes;
  switch (c->kind) {
    case BARRIER: break;
    case BROADCAST:
#ifndef COLL_TEAM_FORMS
      if (me == 0) break; /* the active-set broadcast does not write dest on the root */
#endif
      for (size_t i = 0; i < words; i++)
        if (r[i] != word(0, 0, i)) { report_bad(c->name, bytes, i, (double)r[i], (double)word(0, 0, i)); break; }
      break;
    case FCOLLECT:
    case ALLTOALL:
      for (int from = 0; from < npes; from++)
        for (size_t i = 0; i < nb; i++) {
          int64_t want = word(from, c->kind == ALLTOALL ? me : 0, i);
          if (r[(size_t)from * nb + i] != want) {
            report_bad(c->name, bytes, (size_t)from * nb + i, (double)r[(size_t)from * nb + i], (double)want);
            from = npes;
            break;
          }
        }
      break;
    case SUM_REDUCE:
      for (size_t i = 0; i < words; i++) {
        double want = 0;
        for (int pe = 0; pe < npes; pe++) want += rval(pe, i);
        if (rd[i] != want) { report_bad(c->name, bytes, i, rd[i], want); break; }
      }
      break;
  }
}

/* ---- measurement driver ------------------------------------------------------------------ */

/* Times c->run at one size; returns seconds per call (median and best over repetitions, each
 * repetition's time being the slowest PE's). PE 0 picks the batch size for everyone. */
static void measure(const struct coll *c, size_t bytes, double *med, double *best) {
  shmem_barrier_all();
  c->run(2, bytes); /* warm-up: page faults, registrations, lazy set-up */

  long n = 1, iters = 0;
  for (;;) {
    shmem_barrier_all();
    double t0 = now();
    c->run(n, bytes);
    double t = now() - t0;
    if (me == 0) {
      long decided = 0;
      if (t >= rep_seconds / 8 || n >= (1L << 22)) {
        double want = t > 0 ? (double)n * rep_seconds / t : (double)n;
        decided = want < 1 ? 1 : (long)want;
      }
      for (int pe = 1; pe < npes; pe++) shmem_long_p(control, decided, pe);
      *control = decided;
    }
    shmem_barrier_all(); /* completes the puts above */
    iters = *control;
    if (iters > 0) break;
    n *= 4;
  }

  for (int r = 0; r < reps; r++) {
    shmem_barrier_all();
    double t0 = now();
    c->run(iters, bytes);
    rep_times[r] = (now() - t0) / (double)iters;
  }
  shmem_barrier_all();
  if (me == 0) {
    double worst[MAX_REPS], other[MAX_REPS];
    memcpy(worst, rep_times, (size_t)reps * sizeof(double));
    for (int pe = 1; pe < npes; pe++) {
      shmem_getmem(other, rep_times, (size_t)reps * sizeof(double), pe);
      for (int r = 0; r < reps; r++)
        if (other[r] > worst[r]) worst[r] = other[r];
    }
    qsort(worst, (size_t)reps, sizeof worst[0], cmp_double);
    *med = worst[reps / 2];
    *best = worst[0];
  }
  shmem_barrier_all(); /* nobody overwrites rep_times while PE 0 reads it */
}

/* ---- configuration ----------------------------------------------------------------------- */

static long env_long(const char *name, long dflt, long lo, long hi) {
  return env_long_in("coll", me, name, dflt, lo, hi);
}

static int parse_sizes(size_t *out) {
  const char *s = getenv("COLL_SIZES");
  if (!s || !*s) s = "8,16,64,256,1K,4K,16K,64K,256K,1M,4M,16M";
  int n = 0;
  while (*s && n < MAX_SIZES) {
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end == 'K' || *end == 'k') v <<= 10, end++;
    else if (*end == 'M' || *end == 'm') v <<= 20, end++;
    if (end == s || (*end && *end != ',') || v < 8 || v % 8 || v > (1ULL << 30)) {
      if (me == 0) fprintf(stderr, "coll: bad COLL_SIZES entry at '%s' (multiples of 8, <= 1G)\n", s);
      return -1;
    }
    out[n++] = (size_t)v;
    s = *end ? end + 1 : end;
  }
  return n;
}

static int selected(const char *name) {
  const char *only = getenv("COLL_ONLY");
  if (!only || !*only) return 1;
  size_t len = strlen(name);
  for (const char *p = only; *p;) {
    const char *comma = strchr(p, ',');
    size_t l = comma ? (size_t)(comma - p) : strlen(p);
    if (l == len && strncmp(p, name, len) == 0) return 1;
    p += l + (comma ? 1 : 0);
  }
  return 0;
}

int main(void) {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  reps = (int)env_long("COLL_REPS", 11, 1, MAX_REPS);
  rep_seconds = (double)env_long("COLL_REP_MS", 10, 1, 10000) * 1e-3;
  size_t sizes[MAX_SIZES];
  int nsizes = parse_sizes(sizes);
  if (nsizes < 0) {
    shmem_finalize();
    return 2;
  }
  (void)call_no; /* unused by the team forms */
  max_bytes = 8;
  for (int i = 0; i < nsizes; i++)
    if (sizes[i] > max_bytes) max_bytes = sizes[i];

  /* Symmetric heap only (no static data): some libraries reach static symmetric data through
   * a slower path, and pSync is accessed remotely by the collectives. */
  size_t wrk_elems = MAX2(max_bytes / 8 / 2 + 1, (size_t)SHMEM_REDUCE_MIN_WRKDATA_SIZE);
  control = shmem_malloc(sizeof(long));
  rep_times = shmem_malloc(MAX_REPS * sizeof(double));
  src = shmem_malloc(max_bytes);
  dst = shmem_malloc(max_bytes);
  for (int k = 0; k < 2; k++) {
    psync[k] = shmem_malloc(PSYNC_LEN * sizeof(long));
    pwrk[k] = shmem_malloc(wrk_elems * sizeof(double));
  }
  if (!control || !rep_times || !src || !dst || !psync[0] || !psync[1] || !pwrk[0] || !pwrk[1]) {
    if (me == 0)
      fprintf(stderr, "coll: shmem_malloc failed (needs ~%zu MiB; raise SHMEM_SYMMETRIC_SIZE)\n",
              (4 * max_bytes + 2 * wrk_elems * 8) >> 20);
    shmem_global_exit(2);
  }
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < PSYNC_LEN; i++) psync[k][i] = SHMEM_SYNC_VALUE;
  /* Touch every page now so that first-touch faults stay out of the timings. */
  memset(src, 0, max_bytes);
  memset(dst, 0, max_bytes);
  memset(pwrk[0], 0, wrk_elems * sizeof(double));
  memset(pwrk[1], 0, wrk_elems * sizeof(double));
  *control = 0;
  shmem_barrier_all();

  if (me == 0) {
    char name[SHMEM_MAX_NAME_LEN + 1] = "";
    int major = 0, minor = 0;
    shmem_info_get_name(name);
    shmem_info_get_version(&major, &minor);
    printf("# library: %s (OpenSHMEM %d.%d), %s, %d PEs, %d reps of ~%.0f ms\n", name, major,
           minor, VARIANT, npes, reps, rep_seconds * 1e3);
    printf("coll,bytes,npes,lat_us,best_us,bw_GBs\n");
    fflush(stdout);
  }

  for (size_t c = 0; c < sizeof colls / sizeof colls[0]; c++) {
    const struct coll *co = &colls[c];
    if (!selected(co->name)) continue;
    for (int s = 0; s < nsizes; s++) {
      size_t bytes = co->kind == BARRIER ? 0 : sizes[s];
      if ((co->kind == FCOLLECT || co->kind == ALLTOALL) && bytes % (8 * (size_t)npes)) continue;
      fill_source(co->kind, bytes);
      double med = 0, best = 0;
      measure(co, bytes, &med, &best);

      /* Verify: poison dest, one more call, check everything. */
      memset(dst, 0xff, bytes);
      shmem_barrier_all();
      co->run(1, bytes);
      check_result(co, bytes);
      shmem_barrier_all();

      if (me == 0) {
        printf("%s,%zu,%d,%.3f,%.3f,%.4f\n", co->name, bytes, npes, med * 1e6, best * 1e6,
               bytes ? (double)bytes / med * 1e-9 : 0.0);
        fflush(stdout);
      }
      if (co->kind == BARRIER) break; /* one size */
    }
  }

  /* Every PE learns the total failure count, so every PE exits with the same status. */
  if (me == 0) *control = 0;
  shmem_barrier_all();
  if (failures) shmem_long_atomic_add(control, failures, 0);
  shmem_barrier_all();
  long total = shmem_long_g(control, 0);
  shmem_barrier_all();
  if (me == 0 && total) fprintf(stderr, "coll: %ld result check(s) failed\n", total);

  for (int k = 0; k < 2; k++) {
    shmem_free(pwrk[k]);
    shmem_free(psync[k]);
  }
  shmem_free(dst);
  shmem_free(src);
  shmem_free(rep_times);
  shmem_free(control);
  shmem_finalize();
  return total ? 1 : 0;
}
