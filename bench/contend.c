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
 * last about CONTEND_REP_MS (calibrated on PE 0 and told to the others); value = median batch,
 * best = fastest batch, both per operation. Right before and right after every batch PEs 0 and
 * 1 time a plain cache-line ping-pong between them (shared memory of their own, no library
 * calls; the best of 5 bounded tries of 100 round trips): on a VM the host runs the two
 * virtual CPUs near or far apart by periods of seconds, and every latency follows. A batch
 * whose two probes both read below CONTEND_SPLIT_NS (150) per leg is near, both above far;
 * near_us/far_us are the medians over the near/far batches (0 with none), near_n/far_n their
 * numbers. Without the probe's memory (or with CONTEND_PROBE=0) every batch counts as neither.
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

#include <fcntl.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench_util.h"

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

/* The placement probe: two cache lines in memory PEs 0 and 1 map themselves, line k written only by
 * PE k with increasing values. */
static volatile long *probe_line[2];
static long probe_seq;
static double probe_split_us = 0.150;
static double probes[2 * 5 * MAX_REPS]; /* every probe that finished, for the "probe" row */
static int n_probes;

/* Waits until *w >= v or the clock passes `deadline`; 1 if it got there. */
static int probe_wait(volatile long *w, long v, double deadline) {
  for (unsigned spins = 0;; spins++) {
    if (__atomic_load_n(w, __ATOMIC_ACQUIRE) >= v) return 1;
    if ((spins & 255) == 255 && now() > deadline) return 0;
  }
}

/* PE 0: one leg of the cache-line ping-pong between PEs 0 and 1 (us), the best of 5 tries of 100
 * round trips, each given up after 200 us (a PE that lost its CPU); -1 if none finished or there
 * is no probe. PE 1 answers; the others return at once. Both sides step probe_seq alike, so a
 * try that one side gave up leaves nothing the next one could mistake for its own. */
static double probe(void) {
  if (!probe_line[0] || me > 1) return -1;
  double best = -1;
  for (int k = 0; k < 5; k++) {
    const long base = probe_seq;
    probe_seq += 101;
    const double t0 = now(), deadline = t0 + 200e-6;
    int ok = 1;
    for (long i = base + 1; ok && i <= base + 100; i++) {
      if (me == 0) {
        __atomic_store_n(probe_line[0], i, __ATOMIC_RELEASE);
        ok = probe_wait(probe_line[1], i, deadline);
      } else {
        ok = probe_wait(probe_line[0], i, deadline);
        if (ok) __atomic_store_n(probe_line[1], i, __ATOMIC_RELEASE);
      }
    }
    const double leg = (now() - t0) / 200 * 1e6;
    if (ok && (best < 0 || leg < best)) best = leg;
  }
  if (best > 0 && n_probes < (int)(sizeof probes / sizeof probes[0])) probes[n_probes++] = best;
  return best;
}

/* Maps the probe's memory on PEs 0 and 1 (a POSIX shared-memory object that PE 0 creates and
 * removes again as soon as PE 1 has it mapped, so nothing is left behind); all PEs agree on
 * whether it is there. */
static void probe_setup(void) {
  const char *env = getenv("CONTEND_PROBE");
  int want = !(env && strcmp(env, "0") == 0);
  probe_split_us = (double)env_long_in("contend", me, "CONTEND_SPLIT_NS", 150, 1, 100000) * 1e-3;
  char name[64];
  long *mem = NULL;
  if (me == 0) *control = want ? (long)getpid() : 0;
  shmem_barrier_all();
  const long pid = shmem_long_g(control, 0);
  snprintf(name, sizeof name, "/shmem-contend-probe-%ld", pid);
  if (pid && me == 0) {
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd >= 0 && ftruncate(fd, 4096) == 0) mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0) close(fd);
  }
  shmem_barrier_all();
  if (pid && me == 1) {
    int fd = shm_open(name, O_RDWR, 0600);
    if (fd >= 0) mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0) close(fd);
  }
  if (mem == MAP_FAILED) mem = NULL;
  if (me == 1) shmem_long_p(control, mem ? 1 : 0, 0); /* PE 1 tells PE 0 whether it has it */
  shmem_barrier_all();
  if (me == 0) {
    if (pid) shm_unlink(name);
    const long both = pid && mem && *control == 1;
    for (int pe = 1; pe < npes; pe++) shmem_long_p(control, both, pe);
    *control = both;
  }
  shmem_barrier_all();
  if (*control == 1 && mem) {
    probe_line[0] = (volatile long *)mem;
    probe_line[1] = (volatile long *)(mem + 8); /* the next cache line */
  } else if (mem) {
    munmap(mem, 4096);
  }
  shmem_barrier_all();
  *control = 0;
  shmem_barrier_all();
}

/* A batch's placement from its two probes: 1 near, 2 far, 0 neither. */
static int placement(double before, double after) {
  if (before <= 0 || after <= 0) return 0;
  if (before < probe_split_us && after < probe_split_us) return 1;
  if (before >= probe_split_us && after >= probe_split_us) return 2;
  return 0;
}

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

static double median_of(double *x, int n) {
  if (n == 0) return 0;
  qsort(x, (size_t)n, sizeof x[0], cmp_double);
  return x[n / 2];
}

/* Per-operation seconds on PE 0: median and best over reps, and by placement. */
static void measure(op_fn op, struct result *res) {
  shmem_barrier_all();
  op(4);
  long n = 4, iters = 0;
  for (;;) {
    shmem_barrier_all();
    double t0 = now();
    op(n);
    double t = now() - t0;
    if (me == 0) {
      long decided = 0;
      if (t >= rep_seconds / 10 || n >= (1L << 22)) {
        double want = t > 0 ? (double)n * rep_seconds / t : (double)n;
        decided = want < 1 ? 1 : (long)want;
      }
      for (int pe = 1; pe < npes; pe++) shmem_long_p(control, decided, pe);
      *control = decided;
    }
    shmem_barrier_all();
    iters = *control;
    if (iters > 0) break;
    n *= 4;
  }
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
    const int place = placement(before, after);
    if (place == 1) near[n_near++] = per_op[r];
    if (place == 2) far[n_far++] = per_op[r];
  }
  shmem_barrier_all();
  qsort(per_op, (size_t)reps, sizeof per_op[0], cmp_double);
  res->med = per_op[reps / 2];
  res->best = per_op[0];
  res->near = median_of(near, n_near);
  res->far = median_of(far, n_far);
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
  probe_setup();

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
  if (me == 0 && n_probes > 0) {
    double near[sizeof probes / sizeof probes[0]], far[sizeof probes / sizeof probes[0]];
    int nn = 0, nf = 0;
    for (int i = 0; i < n_probes; i++) {
      if (probes[i] < probe_split_us) near[nn++] = probes[i];
      else far[nf++] = probes[i];
    }
    const double med = median_of(probes, n_probes); /* sorts probes: probes[0] is the best */
    printf("probe,%d,%.4f,%.4f,%.4f,%d,%.4f,%d\n", npes, med, probes[0], median_of(near, nn), nn, median_of(far, nf), nf);
    fflush(stdout);
  }
  shmem_barrier_all();
  if (probe_line[0]) munmap((void *)probe_line[0], 4096);
  shmem_free(words);
  int failed = failures;
  shmem_finalize();
  return failed ? 1 : 0;
}
