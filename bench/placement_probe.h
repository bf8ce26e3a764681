/* placement_probe.h - where a VM's host runs the CPUs of PEs 0 and 1 just now, for
 * bench/contend.c and bench/contend_device.cpp. On a VM the host runs its virtual CPUs near or
 * far apart (a cache-line hand-off of 0.05-0.07 or 0.25-0.30 us on this project's machine),
 * changing every few seconds, often within one run, and every latency follows. So the
 * benchmarks time a plain cache-line ping-pong between PEs 0 and 1 right before and right
 * after every batch, in shared memory of their own (no library calls), and sort the batches:
 * a batch whose two probes both read below CONTEND_SPLIT_NS (150) per leg is near, both above
 * far, else neither. CONTEND_PROBE=0 turns the probes off (every batch is then neither).
 * Standard C11 and POSIX plus the OpenSHMEM 1.4 API (for the setup), so it builds with any
 * OpenSHMEM, and as C++. */
#ifndef SHMEM_BENCH_PLACEMENT_PROBE_H
#define SHMEM_BENCH_PLACEMENT_PROBE_H

#include <fcntl.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench_util.h"

#define PROBE_KEEP 512 /* probes kept for probe_report() */

/* Two cache lines that PEs 0 and 1 map themselves, line k written only by PE k with increasing
 * values; the split; every probe that finished. */
static struct {
  volatile long *line[2];
  long seq;
  double split_us;
  double kept[PROBE_KEEP];
  int n_kept;
  int me;
} probe_st = {{NULL, NULL}, 0, 0.150, {0}, 0, 0};

static inline double probe_median(double *x, int n) {
  if (n == 0) return 0;
  qsort(x, (size_t)n, sizeof x[0], cmp_double);
  return x[n / 2];
}

/* Waits until *w >= v or the clock passes `deadline`; 1 if it got there. */
static inline int probe_wait(volatile long *w, long v, double deadline) {
  for (unsigned spins = 0;; spins++) {
    if (__atomic_load_n(w, __ATOMIC_ACQUIRE) >= v) return 1;
    if ((spins & 255) == 255 && now() > deadline) return 0;
  }
}

/* PE 0: one leg of the cache-line ping-pong between PEs 0 and 1 (us), the best of 5 tries of 100
 * round trips, each given up after 200 us (a PE that lost its CPU); -1 if none finished or there
 * is no probe. PE 1 answers; the others return at once. Both sides step the sequence alike, so
 * a try that one side gave up leaves nothing the next one could mistake for its own. */
static inline double probe(void) {
  const int me = probe_st.me;
  if (!probe_st.line[0] || me > 1) return -1;
  double best = -1;
  for (int k = 0; k < 5; k++) {
    const long base = probe_st.seq;
    probe_st.seq += 101;
    const double t0 = now(), deadline = t0 + 200e-6;
    int ok = 1;
    for (long i = base + 1; ok && i <= base + 100; i++) {
      if (me == 0) {
        __atomic_store_n(probe_st.line[0], i, __ATOMIC_RELEASE);
        ok = probe_wait(probe_st.line[1], i, deadline);
      } else {
        ok = probe_wait(probe_st.line[0], i, deadline);
        if (ok) __atomic_store_n(probe_st.line[1], i, __ATOMIC_RELEASE);
      }
    }
    const double leg = (now() - t0) / 200 * 1e6;
    if (ok && (best < 0 || leg < best)) best = leg;
  }
  if (best > 0 && probe_st.n_kept < PROBE_KEEP) probe_st.kept[probe_st.n_kept++] = best;
  return best;
}

/* Collective: maps the probe's memory on PEs 0 and 1 (a POSIX shared-memory object that PE 0
 * creates and removes again as soon as PE 1 has it mapped, so nothing is left behind); all PEs
 * agree on whether it is there. `control` is a symmetric long, zero on return. */
static inline void probe_setup(const char *prog, int me, int npes, long *control) {
  const char *env = getenv("CONTEND_PROBE");
  const int want = !(env && strcmp(env, "0") == 0);
  probe_st.me = me;
  probe_st.split_us = (double)env_long_in(prog, me, "CONTEND_SPLIT_NS", 150, 1, 100000) * 1e-3;
  char name[64];
  void *mem = MAP_FAILED;
  if (me == 0) *control = want ? (long)getpid() : 0;
  shmem_barrier_all();
  const long pid = shmem_long_g(control, 0);
  snprintf(name, sizeof name, "/shmem-%s-probe-%ld", prog, pid);
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
  if (me == 1) shmem_long_p(control, mem != MAP_FAILED ? 1 : 0, 0); /* PE 1 tells PE 0 whether it has it */
  shmem_barrier_all();
  if (me == 0) {
    if (pid) shm_unlink(name);
    const long both = pid && mem != MAP_FAILED && *control == 1;
    for (int pe = 1; pe < npes; pe++) shmem_long_p(control, both, pe);
    *control = both;
  }
  shmem_barrier_all();
  if (*control == 1 && mem != MAP_FAILED) {
    probe_st.line[0] = (volatile long *)mem;
    probe_st.line[1] = (volatile long *)((char *)mem + 64); /* the next cache line */
  } else if (mem != MAP_FAILED) {
    munmap(mem, 4096);
  }
  shmem_barrier_all();
  *control = 0;
  shmem_barrier_all();
}

static inline void probe_close(void) {
  if (probe_st.line[0]) munmap((void *)probe_st.line[0], 4096);
  probe_st.line[0] = probe_st.line[1] = NULL;
}

/* A batch's placement from its two probes: 1 near, 2 far, 0 neither. */
static inline int probe_placement(double before, double after) {
  const double t = probe_st.split_us;
  if (before <= 0 || after <= 0) return 0;
  if (before < t && after < t) return 1;
  if (before >= t && after >= t) return 2;
  return 0;
}

/* PE 0: the "probe" row in contend.c's format (one leg, us): median and best of every probe,
 * and the medians of the near and of the far ones. Nothing when no probe finished. */
static inline void probe_report(int npes) {
  if (probe_st.me != 0 || probe_st.n_kept == 0) return;
  double near[PROBE_KEEP], far[PROBE_KEEP];
  int nn = 0, nf = 0;
  for (int i = 0; i < probe_st.n_kept; i++) {
    if (probe_st.kept[i] < probe_st.split_us) near[nn++] = probe_st.kept[i];
    else far[nf++] = probe_st.kept[i];
  }
  const double med = probe_median(probe_st.kept, probe_st.n_kept); /* sorts: kept[0] is the best */
  printf("probe,%d,%.4f,%.4f,%.4f,%d,%.4f,%d\n", npes, med, probe_st.kept[0], probe_median(near, nn), nn,
         probe_median(far, nf), nf);
  fflush(stdout);
}

#endif
