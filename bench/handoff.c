/*
 * handoff.c - the hardware reference for bench/contend.sh: the half round trip of a ping-pong
 * between two processes on one shared cache line, with plain atomics and pause-spinning, no
 * library at all. A library's ping-pong cannot beat this; the contention targets compare ours
 * with it (within 1.5x when idle).
 *
 *   handoff              prints "handoff_half_rtt_us,<median>,<best>" over HANDOFF_REPS (11)
 *                        batches of ~HANDOFF_REP_MS (10) each
 *
 * Standard C11 + POSIX (fork, mmap). Exits 1 if the ping-pong sequence comes out wrong.
 */
#define _DEFAULT_SOURCE

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

#define MAX_REPS 51

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

struct shared { /* ping = -1 stops the child */
  _Alignas(64) atomic_long ping;
  _Alignas(64) atomic_long pong;
};

int main(void) {
  int reps = (int)env_long_in("handoff", 0, "HANDOFF_REPS", 11, 1, MAX_REPS);
  double rep_s = (double)env_long_in("handoff", 0, "HANDOFF_REP_MS", 10, 1, 10000) * 1e-3;
  struct shared *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (s == MAP_FAILED) {
    perror("handoff: mmap");
    return 1;
  }
  atomic_store(&s->ping, 0);
  atomic_store(&s->pong, 0);
  pid_t child = fork();
  if (child < 0) {
    perror("handoff: fork");
    return 1;
  }
  if (child == 0) { /* answers every ping with the same value */
    long seen = 0;
    for (;;) {
      long v;
      while ((v = atomic_load_explicit(&s->ping, memory_order_acquire)) == seen) relax();
      if (v < 0) _exit(0);
      seen = v;
      atomic_store_explicit(&s->pong, v, memory_order_release);
    }
  }
  long seq = 0;
  int bad = 0;
  long n = 1000;
  double t;
  for (;;) { /* calibrate */
    double t0 = now();
    for (long i = 0; i < n; i++) {
      atomic_store_explicit(&s->ping, ++seq, memory_order_release);
      while (atomic_load_explicit(&s->pong, memory_order_acquire) != seq) relax();
    }
    t = now() - t0;
    if (t >= rep_s / 10) break;
    n *= 4;
  }
  n = (long)((double)n * rep_s / t) + 1;
  double per[MAX_REPS];
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    for (long i = 0; i < n; i++) {
      atomic_store_explicit(&s->ping, ++seq, memory_order_release);
      while (atomic_load_explicit(&s->pong, memory_order_acquire) != seq) relax();
    }
    per[r] = (now() - t0) / (double)n / 2;
  }
  if (atomic_load(&s->pong) != seq) bad = 1;
  atomic_store_explicit(&s->ping, -1, memory_order_release);
  int status = 0;
  waitpid(child, &status, 0);
  qsort(per, (size_t)reps, sizeof per[0], cmp_double);
  printf("handoff_half_rtt_us,%.4f,%.4f\n", per[reps / 2] * 1e6, per[0] * 1e6);
  if (bad || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "handoff: CHECK FAILED (sequence or child exit)\n");
    return 1;
  }
  return 0;
}
