/*
 * perf.c - point-to-point micro-benchmark for any OpenSHMEM library.
 *
 * Uses only the standard OpenSHMEM 1.4 API (no extensions, no 1.5/1.6-only names), so the same
 * source builds with this project's oshcc and with Open MPI's OSHMEM. Run at 2 PEs; PE 0 does
 * the timing and prints one CSV line per metric on stdout:
 *
 *   metric,size_bytes,value,unit
 *
 * Each metric gets one untimed warm-up batch, then is measured REPS times (a repetition is a
 * timed batch of `iters` operations, sized so that one batch lasts about PERF_REP_MS, and for
 * the streaming metrics at least one pass over the window); `value` is the median over
 * repetitions.
 * A second line per metric, suffixed `_min` (latencies) or `_max` (bandwidths), gives the best
 * repetition, i.e. the one with the smallest time per operation.
 *
 * Environment (all optional):
 *   PERF_REPS       repetitions per metric (default 11)
 *   PERF_REP_MS     target duration of one repetition in ms (default 20)
 *   PERF_WINDOW_MB  streaming window in MiB (default 256; needs SHMEM_SYMMETRIC_SIZE above it)
 *
 * Results are sanity-checked (values read back after the timed loops); a failed check is
 * reported on stderr as "CHECK FAILED" and makes the program exit with status 1.
 */
#define _POSIX_C_SOURCE 200809L

#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#define MIB ((size_t)1 << 20)
#define MAX_REPS 101

/* Symmetric because they are static data: the targets of the "static" variants. */
static long static_target;
static long static_flag;
static long static_ctr;

/* Benchmark state shared by the operation callbacks. */
static int me, npes;
static long *heap_target, *heap_flag, *heap_ctr, *control;
static char *win;      /* symmetric streaming window (window_bytes) */
static char *lwin;     /* private streaming window (window_bytes) */
static size_t window_bytes;
static size_t stream_cursor; /* chunk index; keeps advancing across repetitions */
static long pingpong_seq;
static long put_value;
static long fadd_count;
static volatile long sink;
static int failures;

static int reps = 11;
static double rep_seconds = 0.020;

static void check(int ok, const char *metric, const char *what, long got, long want) {
  if (ok) return;
  fprintf(stderr, "PE %d: CHECK FAILED %s: %s: got %ld, expected %ld\n", me, metric, what, got,
          want);
  failures++;
}

/* ---- operations: op(n) runs n operations; each PE decides what it does ------------------- */

typedef void (*op_fn)(long n, void *arg);

static void op_put_quiet(long n, void *arg) {
  long *target = arg;
  if (me != 0) return;
  for (long i = 0; i < n; i++) {
    shmem_long_p(target, ++put_value, 1);
    shmem_quiet();
  }
}

static void op_get(long n, void *arg) {
  long *source = arg;
  if (me != 0) return;
  long acc = 0;
  for (long i = 0; i < n; i++) acc += shmem_long_g(source, 1);
  sink = acc;
}

static void op_fadd(long n, void *arg) {
  long *target = arg;
  if (me != 0) return;
  long acc = 0;
  for (long i = 0; i < n; i++) acc += shmem_long_atomic_fetch_add(target, 1, 1);
  fadd_count += n;
  sink = acc;
}

/* PE 0 sends seq to PE 1 and waits for PE 1 to send it back. Both PEs step the same sequence,
 * so the flags only grow and a late value can never be mistaken for a fresh one. One operation
 * is one leg (half a round trip): n operations are n / 2 round trips (rounded up). */
static void op_pingpong(long n, void *arg) {
  long *flag = arg;
  n = (n + 1) / 2;
  if (me == 0) {
    for (long i = 0; i < n; i++) {
      long seq = ++pingpong_seq;
      shmem_long_p(flag, seq, 1);
      shmem_long_wait_until(flag, SHMEM_CMP_EQ, seq);
    }
  } else if (me == 1) {
    for (long i = 0; i < n; i++) {
      long seq = ++pingpong_seq;
      shmem_long_wait_until(flag, SHMEM_CMP_EQ, seq);
      shmem_long_p(flag, seq, 0);
    }
  }
}

static void op_barrier(long n, void *arg) {
  (void)arg;
  for (long i = 0; i < n; i++) shmem_barrier_all();
}

enum bw_kind { BW_PUT, BW_PUT_NBI, BW_GET, BW_MEMCPY };
struct bw_arg {
  enum bw_kind kind;
  int stream;
};

static void op_bw(long n, void *argp) {
  const struct bw_arg *arg = argp;
  if (me != 0) return;
  size_t chunks = window_bytes / MIB;
  for (long i = 0; i < n; i++) {
    size_t off = 0;
    if (arg->stream) {
      off = (stream_cursor % chunks) * MIB;
      stream_cursor++;
    }
    switch (arg->kind) {
      case BW_PUT: shmem_putmem(win + off, lwin + off, MIB, 1); break;
      case BW_PUT_NBI: shmem_putmem_nbi(win + off, lwin + off, MIB, 1); break;
      case BW_GET: shmem_getmem(lwin + off, win + off, MIB, 1); break;
      case BW_MEMCPY: memcpy(win + off, lwin + off, MIB); break;
    }
  }
  /* A put batch is complete only once quiet returns; count that in the batch time. */
  if (arg->kind == BW_PUT || arg->kind == BW_PUT_NBI) shmem_quiet();
}

/* ---- measurement driver ------------------------------------------------------------------ */

/* Times `op` on PE 0 and returns per-operation seconds (median and minimum over repetitions).
 * Every PE runs the same batches; PE 0 picks the batch size and tells the others through
 * `control` so collective operations (ping-pong, barrier) stay in step. */
static void measure(op_fn op, void *arg, long min_iters, double *med, double *best) {
  /* Warm up with one untimed batch, so one-time costs (page faults in a peer's mapping, memory
   * registration, lazy connection set-up) stay out of the figures. For the streaming metrics
   * min_iters covers the whole window, so every later batch revisits memory already seen. */
  shmem_barrier_all();
  op(min_iters, arg);

  /* Calibrate: grow the batch until it takes long enough to time, then scale to rep_seconds. */
  long n = min_iters, iters = 0;
  for (;;) {
    shmem_barrier_all();
    double t0 = now();
    op(n, arg);
    double t = now() - t0;
    if (me == 0) {
      long decided = 0;
      if (t >= rep_seconds / 10 || n >= (1L << 24)) {
        double want = t > 0 ? (double)n * rep_seconds / t : (double)n;
        decided = want < (double)min_iters ? min_iters : (long)want;
      }
      for (int pe = 1; pe < npes; pe++) shmem_long_p(control, decided, pe);
      *control = decided;
    }
    shmem_barrier_all(); /* completes the puts above */
    iters = *control;
    if (iters > 0) break;
    n *= 4;
  }

  double per_op[MAX_REPS];
  for (int r = 0; r < reps; r++) {
    shmem_barrier_all();
    double t0 = now();
    op(iters, arg);
    per_op[r] = (now() - t0) / (double)iters;
  }
  shmem_barrier_all();
  qsort(per_op, (size_t)reps, sizeof per_op[0], cmp_double);
  *med = per_op[reps / 2];
  *best = per_op[0];
}

static void report_latency(const char *metric, size_t bytes, op_fn op, void *arg, long min_iters) {
  double med, best;
  measure(op, arg, min_iters, &med, &best);
  if (me == 0) {
    printf("%s,%zu,%.4f,us\n", metric, bytes, med * 1e6);
    printf("%s_min,%zu,%.4f,us\n", metric, bytes, best * 1e6);
    fflush(stdout);
  }
}

static void report_bandwidth(const char *metric, struct bw_arg arg, long min_iters) {
  double med, best;
  measure(op_bw, &arg, min_iters, &med, &best);
  if (me == 0) {
    printf("%s,%zu,%.3f,GB/s\n", metric, MIB, (double)MIB / med * 1e-9);
    printf("%s_max,%zu,%.3f,GB/s\n", metric, MIB, (double)MIB / best * 1e-9);
    fflush(stdout);
  }
}

static long env_long(const char *name, long dflt, long lo, long hi) {
  return env_long_in("perf", me, name, dflt, lo, hi);
}

int main(void) {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  if (npes < 2) {
    if (me == 0) fprintf(stderr, "perf: needs at least 2 PEs (run with 2)\n");
    shmem_finalize();
    return 2;
  }
  reps = (int)env_long("PERF_REPS", 11, 1, MAX_REPS);
  rep_seconds = (double)env_long("PERF_REP_MS", 20, 1, 10000) * 1e-3;
  window_bytes = (size_t)env_long("PERF_WINDOW_MB", 256, 1, 1L << 20) * MIB;

  heap_target = shmem_malloc(4 * sizeof(long));
  if (!heap_target) {
    if (me == 0) fprintf(stderr, "perf: shmem_malloc of 32 bytes failed\n");
    shmem_global_exit(1);
  }
  heap_flag = heap_target + 1;
  heap_ctr = heap_target + 2;
  control = heap_target + 3;
  *heap_target = *heap_flag = *heap_ctr = *control = 0;

  /* The window is collective; shmem_malloc returns NULL on every PE alike, so halving stays
   * in step. */
  while (!(win = shmem_malloc(window_bytes)) && window_bytes > MIB) window_bytes /= 2;
  lwin = malloc(window_bytes);
  if (!win || !lwin) {
    if (me == 0) fprintf(stderr, "perf: cannot allocate a %zu MiB window\n", window_bytes / MIB);
    shmem_global_exit(1);
  }
  /* Touch every page now so that page faults stay out of the timings. */
  memset(win, me == 1 ? 0x5a : 0, window_bytes);
  memset(lwin, 0xa5, window_bytes);
  shmem_barrier_all();

  if (me == 0) {
    char name[SHMEM_MAX_NAME_LEN + 1] = "";
    int major = 0, minor = 0;
    shmem_info_get_name(name);
    shmem_info_get_version(&major, &minor);
    printf("# library: %s (OpenSHMEM %d.%d), %d PEs, %d reps of ~%.0f ms, window %zu MiB\n",
           name, major, minor, npes, reps, rep_seconds * 1e3, window_bytes / MIB);
    printf("metric,size_bytes,value,unit\n");
    fflush(stdout);
  }

  /* Small operations. */
  report_latency("put_quiet_lat_heap", 8, op_put_quiet, heap_target, 64);
  if (me == 0) check(shmem_long_g(heap_target, 1) == put_value, "put_quiet_lat_heap",
                     "target on PE 1", shmem_long_g(heap_target, 1), put_value);
  report_latency("put_quiet_lat_static", 8, op_put_quiet, &static_target, 64);
  if (me == 0) check(shmem_long_g(&static_target, 1) == put_value, "put_quiet_lat_static",
                     "target on PE 1", shmem_long_g(&static_target, 1), put_value);

  report_latency("get_lat_heap", 8, op_get, heap_target, 64);
  report_latency("get_lat_static", 8, op_get, &static_target, 64);

  fadd_count = 0;
  report_latency("fadd_lat_heap", 8, op_fadd, heap_ctr, 64);
  if (me == 0) check(shmem_long_g(heap_ctr, 1) == fadd_count, "fadd_lat_heap",
                     "counter on PE 1", shmem_long_g(heap_ctr, 1), fadd_count);
  fadd_count = 0;
  report_latency("fadd_lat_static", 8, op_fadd, &static_ctr, 64);
  if (me == 0) check(shmem_long_g(&static_ctr, 1) == fadd_count, "fadd_lat_static",
                     "counter on PE 1", shmem_long_g(&static_ctr, 1), fadd_count);

  pingpong_seq = 0;
  report_latency("pingpong_half_rtt_heap", 8, op_pingpong, heap_flag, 16);
  pingpong_seq = 0;
  report_latency("pingpong_half_rtt_static", 8, op_pingpong, &static_flag, 16);

  report_latency("barrier_all_lat", 0, op_barrier, NULL, 16);

  /* 1 MiB transfers and the memcpy reference. Hot: the same 1 MiB every time. Stream: 1 MiB
   * chunks cycling over the window (from its start), which is larger than the caches.
   * PE 1's window holds 0x5a and PE 0's private window 0xa5, so the gets must bring 0x5a. */
  const long chunks = (long)(window_bytes / MIB);
  report_bandwidth("get_bw_hot", (struct bw_arg){BW_GET, 0}, 4);
  stream_cursor = 0;
  report_bandwidth("get_bw_stream", (struct bw_arg){BW_GET, 1}, chunks);
  if (me == 0) check(lwin[0] == 0x5a && lwin[MIB - 1] == 0x5a, "get_bw", "fetched byte",
                     (unsigned char)lwin[0], 0x5a);
  memset(lwin, 0xa5, window_bytes);

  report_bandwidth("memcpy_bw_hot", (struct bw_arg){BW_MEMCPY, 0}, 4);
  stream_cursor = 0;
  report_bandwidth("memcpy_bw_stream", (struct bw_arg){BW_MEMCPY, 1}, chunks);

  /* The puts then overwrite PE 1's window with 0xa5; read some of it back. */
  report_bandwidth("put_bw_hot", (struct bw_arg){BW_PUT, 0}, 4);
  stream_cursor = 0;
  report_bandwidth("put_bw_stream", (struct bw_arg){BW_PUT, 1}, chunks);
  stream_cursor = 0;
  report_bandwidth("put_nbi_bw_stream", (struct bw_arg){BW_PUT_NBI, 1}, chunks);
  if (me == 0) {
    unsigned char probe[2] = {0, 0};
    shmem_getmem(&probe[0], win, 1, 1);
    shmem_getmem(&probe[1], win + MIB - 1, 1, 1);
    check(probe[0] == 0xa5 && probe[1] == 0xa5, "put_bw", "remote byte", probe[0], 0xa5);
  }

  shmem_barrier_all();
  shmem_free(win);
  shmem_free(heap_target);
  free(lwin);
  int failed = failures;
  shmem_finalize();
  return failed ? 1 : 0;
}
