/*
 * scale.c - the per-PE side of bench/scale.sh: what one PE costs after shmem_init and how long
 * the smallest collectives take, for any OpenSHMEM library (standard API only; the active-set
 * alltoall, deprecated since OpenSHMEM 1.5, is the form every implementation has).
 *
 * Every PE prints one CSV line on stdout:
 *   scale,PE,NPES,INIT_MS,PSS_KB,FDS,THREADS,BARRIER_US,ALLTOALL_US,HOST
 *   INIT_MS      from this program's first constructor (the dynamic loader has mapped the
 *                libraries; process spawn is not counted) to the return of shmem_init
 *   PSS_KB       Pss of /proc/self/smaps_rollup right after shmem_init
 *   FDS THREADS  open file descriptors (/proc/self/fd) and threads (/proc/self/status) then
 *   BARRIER_US   median over iterations of one shmem_barrier_all, timed on this PE
 *   ALLTOALL_US  median of one shmem_alltoall64 of one 8-byte word to every PE
 * and PE 0 also prints "scale_iters,BARRIER_ITERS,ALLTOALL_ITERS". Right after shmem_init every PE
 * prints "scale_up,PE,INIT_MS", so that a job that never finishes still shows how far it got.
 *
 * Iterations are bounded by time: batches of 1, 2, 4, ... calls until PE 0 has spent
 * SCALE_BUDGET_MS in timed calls and made at least SCALE_MIN_ITERS, at most SCALE_MAX_ITERS
 * (PE 0 puts its decision to every PE between batches, untimed). The alltoall result is
 * checked once at the end ("CHECK FAILED" on stderr and exit status 1 when wrong).
 * Environment: SCALE_BUDGET_MS (1000), SCALE_MIN_ITERS (3), SCALE_MAX_ITERS (10000).
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

static double t_first;

/* Runs before main, after the libraries' own constructors. */
__attribute__((constructor(101))) static void mark_first(void) { t_first = now(); }

/* The value (in the file's unit) of the first line of PATH starting with KEY, or -1. */
static long proc_field(const char* path, const char* key) {
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  char line[256];
  size_t klen = strlen(key);
  long v = -1;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, key, klen) == 0) {
      v = strtol(line + klen, NULL, 10);
      break;
    }
  }
  fclose(f);
  return v;
}

static long count_fds(void) {
  DIR* d = opendir("/proc/self/fd");
  if (!d) return -1;
  long n = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL)
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n - 1; /* the directory's own descriptor */
}

static long sym_stop;
static long psync[2][SHMEM_ALLTOALL_SYNC_SIZE];
static uint64_t *a2a_src, *a2a_dst;
static unsigned call_no;

static void one_barrier(void) { shmem_barrier_all(); }

static void one_alltoall(void) {
  int n = shmem_n_pes();
  shmem_alltoall64(a2a_dst, a2a_src, 1, 0, 0, n, psync[call_no++ & 1]);
}

/* Median time in microseconds of one call of op on this PE. The calls run in batches of 1, 2,
 * 4, ... (at most max_iters in all); between batches, untimed, PE 0 says whether to go on:
 * until at least min_iters calls and SCALE_BUDGET_MS of its own timed calls. */
static double time_op(void (*op)(void), long budget_ms, long min_iters, long max_iters, long* iters_out) {
  int me = shmem_my_pe(), n = shmem_n_pes();
  double* t = malloc((size_t)max_iters * sizeof *t);
  if (!t) {
    fprintf(stderr, "scale: PE %d: cannot allocate %ld timings\n", me, max_iters);
    shmem_global_exit(1);
  }
  op(); /* untimed: first-use costs */
  shmem_barrier_all();
  long done = 0, batch = 1;
  double spent = 0;
  for (;;) {
    for (long i = 0; i < batch; i++) {
      double t0 = now();
      op();
      t[done + i] = now() - t0;
      spent += t[done + i];
    }
    done += batch;
    if (me == 0) {
      long stop = done >= max_iters || (done >= min_iters && spent * 1e3 >= (double)budget_ms);
      for (int pe = 0; pe < n; pe++) shmem_long_p(&sym_stop, stop, pe);
    }
    shmem_barrier_all();
    if (*(volatile long*)&sym_stop) break;
    batch = 2 * batch < max_iters - done ? 2 * batch : max_iters - done;
  }
  qsort(t, (size_t)done, sizeof *t, cmp_double);
  double med = (done % 2) ? t[done / 2] : 0.5 * (t[done / 2 - 1] + t[done / 2]);
  free(t);
  *iters_out = done;
  shmem_barrier_all();
  return med * 1e6;
}

int main(void) {
  shmem_init();
  double init_ms = (now() - t_first) * 1e3;
  printf("scale_up,%d,%.3f\n", shmem_my_pe(), init_ms);
  fflush(stdout);
  long pss = proc_field("/proc/self/smaps_rollup", "Pss:");
  long fds = count_fds();
  long threads = proc_field("/proc/self/status", "Threads:");

  int me = shmem_my_pe(), n = shmem_n_pes();
  long budget = env_long_in("scale", me, "SCALE_BUDGET_MS", 1000, 1, 600000);
  long min_it = env_long_in("scale", me, "SCALE_MIN_ITERS", 3, 1, 1000000);
  long max_it = env_long_in("scale", me, "SCALE_MAX_ITERS", 10000, min_it, 1000000);
  for (int s = 0; s < 2; s++)
    for (int i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; i++) psync[s][i] = SHMEM_SYNC_VALUE;
  a2a_src = shmem_malloc((size_t)n * sizeof *a2a_src);
  a2a_dst = shmem_malloc((size_t)n * sizeof *a2a_dst);
  if (!a2a_src || !a2a_dst) {
    fprintf(stderr, "scale: PE %d: shmem_malloc of 2 x %d words failed\n", me, n);
    shmem_global_exit(1);
  }
  for (int j = 0; j < n; j++) a2a_src[j] = ((uint64_t)me << 32) | (uint64_t)j;
  shmem_barrier_all();

  long bar_it = 0, a2a_it = 0;
  double bar_us = time_op(one_barrier, budget, min_it, max_it, &bar_it);
  double a2a_us = time_op(one_alltoall, budget, min_it, max_it, &a2a_it);

  /* The last alltoall's result: word j came from PE j, meant for this PE. */
  memset(a2a_dst, 0, (size_t)n * sizeof *a2a_dst);
  shmem_barrier_all();
  one_alltoall();
  int bad = 0;
  for (int j = 0; j < n; j++)
    if (a2a_dst[j] != (((uint64_t)j << 32) | (uint64_t)me)) bad++;
  if (bad) fprintf(stderr, "scale: CHECK FAILED: PE %d: %d of %d alltoall words wrong\n", me, bad, n);

  char host[64] = "?";
  gethostname(host, sizeof host - 1);
  printf("scale,%d,%d,%.3f,%ld,%ld,%ld,%.3f,%.3f,%s\n", me, n, init_ms, pss, fds, threads, bar_us, a2a_us, host);
  if (me == 0) printf("scale_iters,%ld,%ld\n", bar_it, a2a_it);
  fflush(stdout);
  shmem_free(a2a_dst);
  shmem_free(a2a_src);
  shmem_finalize();
  return bad ? 1 : 0;
}
