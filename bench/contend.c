/*
 * contend.c - small-message latencies for any OpenSHMEM library, made to run under CPU
 * contention (bench/contend.sh starts it in each scenario: idle, busy processes, PEs pinned
 * to one CPU, more PEs than CPUs).
 *
 * Uses only the OpenSHMEM 1.4 API, so the same source builds with this project's oshcc and with
 * Open MPI's OSHMEM. Runs at 2 or more PEs; PE 0 times and prints one CSV line per metric:
 *
 *   metric,npes,value_us,best_us
 *
 *   pingpong      half round trip of shmem_long_p + shmem_long_wait_until between PE 0 and
 *                 PE 1 (the other PEs wait in the barrier that ends the batch)
 *   barrier       shmem_barrier_all
 *   broadcast8    shmem_broadcast64 of one 8-byte word from PE 0, all PEs
 *   reduce8       shmem_long_sum_to_all of one word, all PEs
 *   fcollect8     shmem_fcollect64, one 8-byte word from every PE
 *
 *   metric,npes,value_us,best_us,near_us,near_n,far_us,far_n
 *
 * Each metric gets one untimed warm-up batch and then CONTEND_REPS timed batches, each sized to
 * last at least about CONTEND_REP_MS (calibrated on PE 0 from the fastest of three trial batches,
 * and told to the others); value = median batch,
 * best = fastest batch, both per operation. Right before and right after every batch PEs 0 and
 * 1 probe where the VM's host runs their CPUs (placement_probe.h: near, far or neither);
 * near_us/far_us are the medians over the near/far batches (0 with none), near_n/far_n their
 * numbers.
 * A last row, "probe", gives the probes themselves (one leg, us): median and best of all, and
 * the medians of the near and the far ones. The collectives alternate two pSync arrays, as the
 * specification allows. Results are checked after every batch (the broadcast, sum and gather
 * values, the ping-pong sequence; see op_broadcast for what may legally be seen); a failed check prints "CHECK FAILED" on stderr and the
 * program exits 1.
 *
 * Environment (all optional): CONTEND_REPS (7), CONTEND_REP_MS (10),
 * CONTEND_ONLY (comma-separated subset of the metric names), CONTEND_THREADS=multiple
 * (initialise with shmem_init_thread(SHMEM_THREAD_MULTIPLE) instead of shmem_init: the
 * library's waits may then wait for threads they cannot see; the benchmark stays single-threaded).
 */
#define _POSIX_C_SOURCE 200809L

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "placement_probe.h"

#define MAX_REPS 51
#define MAX2(a, b) ((a) > (b) ? (a) : (b))
#define PSYNC_LEN MAX2(MAX2(SHMEM_BCAST_SYNC_SIZE, SHMEM_COLLECT_SYNC_SIZE), SHMEM_REDUCE_SYNC_SIZE)
#define PWRK_LEN MAX2(SHMEM_REDUCE_MIN_WRKDATA_SIZE, 2)

static int me, npes;
static long *psync[2], *pwrk[2];
static unsigned long call_no;
static long *flag, *control, *src, *dst; /* symmetric heap */
static long seq;                         /* ping-pong sequence, stepped alike on PEs 0 and 1 */
static int failures;
static int reps = 7;
static double rep_seconds = 0.010;

static void fail(const char *metric, const char *what, long got, long want) {
  fprintf(stderr, "PE %d: CHECK FAILED %s: %s: got %ld, expected %ld\n", me, metric, what, got, want);
  failures++;
}

typedef void (*op_fn)(long n);

static void op_pingpong(long n) {
  for (long i = 0; i < n; i++) {
    long s = ++seq;
    if (me == 0) {
      shmem_long_p(flag, s, 1);
      shmem_long_wait_until(flag, SHMEM_CMP_EQ, s);
    } else if (me == 1) {
      shmem_long_wait_until(flag, SHMEM_CMP_EQ, s);
      shmem_long_p(flag, s, 0);
    }
  }
  if (me <= 1 && *flag != seq) fail("pingpong", "flag", *flag, seq);
}

static void op_barrier(long n) {
  for (long i = 0; i < n; i++) shmem_barrier_all();
}

/* The root may run ahead (a pushed broadcast returns at the root before the others have
 * looked), so a later broadcast can overwrite dest before a PE checks it: the root sends
 * increasing values, and a PE checks that it got this call's value or a later one. The
 * reduction and fcollect write one of two dest buffers, by call parity, like the pSync; a PE
 * cannot get two calls ahead of a PE whose contribution it needs. */
static void op_broadcast(long n) {
  for (long i = 0; i < n; i++) {
    if (me == 0) *src = (long)call_no + 1;
    shmem_broadcast64(dst, src, 1, 0, 0, 0, npes, psync[call_no++ & 1]);
    if (me != 0 && *dst < (long)call_no) fail("broadcast8", "dest", *dst, (long)call_no);
  }
}

static void op_reduce(long n) {
  for (long i = 0; i < n; i++) {
    unsigned long k = call_no++ & 1;
    long *out = dst + k * (unsigned long)npes;
    *src = me + 1;
    shmem_long_sum_to_all(out, src, 1, 0, 0, npes, pwrk[k], psync[k]);
    long want = (long)npes * (npes + 1) / 2;
    if (*out != want) fail("reduce8", "sum", *out, want);
  }
}

static void op_fcollect(long n) {
  for (long i = 0; i < n; i++) {
    unsigned long k = call_no & 1;
    long *out = dst + k * (unsigned long)npes;
    long tag = (long)(call_no & 0xff);
    *src = me * 1000 + tag;
    shmem_fcollect64(out, src, 1, 0, 0, npes, psync[call_no++ & 1]);
    for (int pe = 0; pe < npes; pe++)
      if (out[pe] != pe * 1000 + tag) fail("fcollect8", "gathered word", out[pe], pe * 1000 + tag);
  }
}

struct result {
  double med, best; /* over all batches */
  double near, far; /* medians over the near / far batches (0: none) */
  int near_n, far_n;
};

/* PE 0's value of v, on every PE (the others' v is ignored). Collective. */
static long tell_all(long v) {
  if (me == 0) {
    for (int pe = 1; pe < npes; pe++) shmem_long_p(control, v, pe);
    *control = v;
  }
  shmem_barrier_all(); /* completes the puts above */
  return *control;
}

/* Per-operation seconds on PE 0: median and best over reps, and by placement. */
static void measure(op_fn op, struct result *res) {
  shmem_barrier_all();
  op(4);
  /* Calibration: grow n until one batch takes rep_seconds / 10, then time that n three times
   * and size the batches from the fastest. A trial batch that lost its CPU for a time slice
   * reads slow; sized from it alone, the batches came out far shorter than rep_seconds (55 us
   * after a 4 ms trial, seen with OSHMEM next to busy processes), and a batch that short, begun
   * right after the barrier and the probe, times only a moment when both PEs run. */
  long n = 4, iters = 0;
  for (;;) {
    shmem_barrier_all();
    double t0 = now();
    op(n);
    double t = now() - t0;
    if (tell_all(me == 0 && (t >= rep_seconds / 10 || n >= (1L << 22)) ? n : 0) > 0) break;
    n *= 4;
  }
  double fastest = 0;
  for (int k = 0; k < 3; k++) {
    shmem_barrier_all();
    double t0 = now();
    op(n);
    double t = now() - t0;
    if (k == 0 || t < fastest) fastest = t;
  }
  const double want = fastest > 0 ? (double)n * rep_seconds / fastest : (double)n;
  iters = tell_all(want < 1 ? 1 : (long)want);
  double per_op[MAX_REPS], near[MAX_REPS], far[MAX_REPS];
  int n_near = 0, n_far = 0;
  for (int r = 0; r < reps; r++) {
    shmem_barrier_all();
    const double before = probe();
    shmem_barrier_all();
    double t0 = now();
    op(iters);
    per_op[r] = (now() - t0) / (double)iters;
    const double after = probe();
    const int place = probe_placement(before, after);
    if (place == 1) near[n_near++] = per_op[r];
    if (place == 2) far[n_far++] = per_op[r];
  }
  shmem_barrier_all();
  qsort(per_op, (size_t)reps, sizeof per_op[0], cmp_double);
  res->med = per_op[reps / 2];
  res->best = per_op[0];
  res->near = probe_median(near, n_near);
  res->far = probe_median(far, n_far);
  res->near_n = n_near;
  res->far_n = n_far;
}

static int wanted(const char *only, const char *name) {
  if (!only || !*only) return 1;
  size_t len = strlen(name);
  for (const char *p = only; (p = strstr(p, name)); p += len)
    if ((p == only || p[-1] == ',') && (p[len] == ',' || p[len] == '\0')) return 1;
  return 0;
}

int main(void) {
  const char *threads = getenv("CONTEND_THREADS");
  if (threads && strcmp(threads, "multiple") == 0) {
    int provided = 0;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0 || provided != SHMEM_THREAD_MULTIPLE) {
      fprintf(stderr, "contend: CONTEND_THREADS=multiple: the library provides thread level %d, not SHMEM_THREAD_MULTIPLE\n",
              provided);
      return 2;
    }
  } else if (threads && *threads && strcmp(threads, "single") != 0) {
    fprintf(stderr, "contend: CONTEND_THREADS is '%s'; use 'multiple' or 'single'\n", threads);
    return 2;
  } else {
    shmem_init();
  }
  me = shmem_my_pe();
  npes = shmem_n_pes();
  if (npes < 2) {
    if (me == 0) fprintf(stderr, "contend: needs at least 2 PEs\n");
    shmem_finalize();
    return 2;
  }
  reps = (int)env_long_in("contend", me, "CONTEND_REPS", 7, 1, MAX_REPS);
  rep_seconds = (double)env_long_in("contend", me, "CONTEND_REP_MS", 10, 1, 10000) * 1e-3;
  const char *only = getenv("CONTEND_ONLY");

  long *words = shmem_malloc((size_t)(2 * PSYNC_LEN + 2 * PWRK_LEN + 3 + 2 * npes) * sizeof(long));
  if (!words) {
    if (me == 0) fprintf(stderr, "contend: shmem_malloc failed\n");
    shmem_global_exit(1);
  }
  psync[0] = words;
  psync[1] = words + PSYNC_LEN;
  pwrk[0] = words + 2 * PSYNC_LEN;
  pwrk[1] = pwrk[0] + PWRK_LEN;
  flag = pwrk[1] + PWRK_LEN;
  control = flag + 1;
  src = control + 1;
  dst = src + 1;
  for (int i = 0; i < 2 * PSYNC_LEN; i++) words[i] = SHMEM_SYNC_VALUE;
  *flag = *control = *src = 0;
  for (int pe = 0; pe < 2 * npes; pe++) dst[pe] = 0;
  shmem_barrier_all();
  probe_setup("contend", me, npes, control);

  /* legs: one op_pingpong step is a whole round trip, two one-way legs; it is reported per leg,
   * the half round trip (the figure bench/handoff.c measures for the cache line) */
  static const struct {
    const char *name;
    op_fn op;
    double legs;
  } metrics[] = {{"pingpong", op_pingpong, 2},
                 {"barrier", op_barrier, 1},
                 {"broadcast8", op_broadcast, 1},
                 {"reduce8", op_reduce, 1},
                 {"fcollect8", op_fcollect, 1}};
  if (me == 0) {
    char name[SHMEM_MAX_NAME_LEN + 1] = "";
    shmem_info_get_name(name);
    printf("# library: %s, %d PEs, %d reps of ~%.0f ms\n", name, npes, reps, rep_seconds * 1e3);
    printf("metric,npes,value_us,best_us,near_us,near_n,far_us,far_n\n");
    fflush(stdout);
  }
  for (size_t m = 0; m < sizeof metrics / sizeof metrics[0]; m++) {
    if (!wanted(only, metrics[m].name)) continue;
    struct result res;
    measure(metrics[m].op, &res);
    if (me == 0) {
      double us = 1e6 / metrics[m].legs;
      printf("%s,%d,%.4f,%.4f,%.4f,%d,%.4f,%d\n", metrics[m].name, npes, res.med * us, res.best * us, res.near * us,
             res.near_n, res.far * us, res.far_n);
      fflush(stdout);
    }
  }
  probe_report(npes);
  shmem_barrier_all();
  probe_close();
  shmem_free(words);
  int failed = failures;
  shmem_finalize();
  return failed ? 1 : 0;
}
