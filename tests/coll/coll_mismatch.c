/*
 * coll_mismatch.c - PEs that call collectives which cannot meet (run through
 * tests/support/expect_run.sh by tests/coll/mismatch.cmake): the job must end with one message
 * naming each PE's call and its arguments (SHMEM_COLL_CHECK_AFTER, or SHMEM_DEBUG=1 at once).
 *   routine   PE 0 in shmem_long_sum_reduce, the others in shmem_barrier_all
 *   count     the last PE reduces 8 elements, the others 4
 *   root      the last PE broadcasts from PE_root 1, the others from 0
 *   team      PE 0 in shmem_barrier_all, the others in shmem_team_sync of a team of every PE
 *   teams     two copies of WORLD, A and B: PE 0 syncs A then B, the others B then A
 *   malloc    PE 0 in shmem_malloc(64), the others in shmem_long_sum_reduce on WORLD
 *   split     PE 0 in shmem_team_split_strided on WORLD, the others in shmem_long_sum_reduce
 *   set       PE 0 in the active-set shmem_barrier of every PE, the others in shmem_team_sync(WORLD)
 *   split_args PE 0 splits WORLD as (0, 1, n), the others as (1, 1, n-1): every PE's split must
 *             fail at once naming both (it returns, so this mode ends normally: exit 0)
 *   bcast_barrier PE 0 broadcasts from itself (a push: the root does not wait), the others are in
 *             shmem_barrier_all; then every PE finalizes
 *   skip_finalize PE 0 skips a shmem_barrier_all that the others make and finalizes
 *   bcast_then_barrier PE 0 broadcasts from itself, then makes shmem_barrier_all, which meets the
 *             others' first barrier_all; the others' second is left without it (PE 0 finalizes)
 *   finalize_early PE 0 finalizes while the others split a team without it and sync it, the last
 *             of them 3 s late: must not be reported (exit 0)
 *   slow      agreeing calls, the last PE arrives late: must not be reported (exit 0)
 *   teams_slow A then B on every PE, the last PE late to B: must not be reported (exit 0)
 *   set_slow  an active-set shmem_alltoall64 of every PE, then shmem_barrier_all: the last PE is
 *             held inside the alltoall (a fault on a page of its dest that it protected) until
 *             every other PE has left the alltoall, then for 3 s more while they wait in the
 *             barrier_all: the others have made its call, so it must not be reported (exit 0)
 * Each mismatch mode prints "NOT STOPPED" if the calls return (the modes that end in finalize:
 * if finalize returns).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <shmem.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#if defined(__GNUC__)
/* The active-set barrier is deprecated; a program mixing it with team calls is the point. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

static long dest[8];
static long source[8];
static long psync[SHMEM_BARRIER_SYNC_SIZE];

/* set_slow: the page of the last PE's dest that the others' blocks land on, protected until the
 * fault handler lets the alltoall go on; the other PEs that have left the alltoall (on the last
 * PE); the faults taken. */
enum { kSlowBlock = 16 }; /* longs per PE pair: pushed through the pSync slots (set of <= 8 PEs) */
static char* held_page;
static long held_bytes;
static long left_alltoall;
static volatile sig_atomic_t held_faults;
static long others;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void hold_in_alltoall(int sig, siginfo_t* si, void* uc) {
  (void)uc;
  char* a = (char*)si->si_addr;
  if (held_page == NULL || a < held_page || a >= held_page + held_bytes) {
    signal(sig, SIG_DFL); /* not ours: die of it on return */
    return;
  }
  ++held_faults;
  /* Every other PE has left the alltoall (and goes on to shmem_barrier_all); 30 s at most. */
  const double start = now_s();
  while (__atomic_load_n(&left_alltoall, __ATOMIC_ACQUIRE) < others && now_s() - start < 30) {}
  /* Then 3 s more (SHMEM_COLL_CHECK_AFTER=1): the others' barrier_all waits past the check's bound. */
  const double held = now_s();
  while (now_s() - held < 3) {}
  mprotect(held_page, (size_t)held_bytes, PROT_READ | PROT_WRITE);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  shmem_init();
  const int me = shmem_my_pe();
  const int last = shmem_n_pes() - 1;
  for (int i = 0; i < 8; ++i) source[i] = me + i;
  shmem_barrier_all();
  if (strcmp(mode, "routine") == 0) {
    if (me == 0)
      shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dest, source, 4);
    else
      shmem_barrier_all();
  } else if (strcmp(mode, "count") == 0) {
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dest, source, me == last ? 8 : 4);
    shmem_barrier_all();
  } else if (strcmp(mode, "root") == 0) {
    shmem_long_broadcast(SHMEM_TEAM_WORLD, dest, source, 4, me == last ? 1 : 0);
    shmem_barrier_all();
  } else if (strcmp(mode, "team") == 0) {
    shmem_team_t all = SHMEM_TEAM_INVALID;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, last + 1, NULL, 0, &all) != 0) return 3;
    if (me == 0)
      shmem_barrier_all();
    else
      shmem_team_sync(all);
  } else if (strcmp(mode, "teams") == 0) {
    shmem_team_t a = SHMEM_TEAM_INVALID, b = SHMEM_TEAM_INVALID;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, last + 1, NULL, 0, &a) != 0) return 3;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, last + 1, NULL, 0, &b) != 0) return 3;
    shmem_team_sync(me == 0 ? a : b);
    shmem_team_sync(me == 0 ? b : a);
  } else if (strcmp(mode, "malloc") == 0) {
    if (me == 0)
      (void)shmem_malloc(64);
    else
      shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dest, source, 4);
  } else if (strcmp(mode, "split") == 0) {
    shmem_team_t t = SHMEM_TEAM_INVALID;
    if (me == 0)
      (void)shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, last + 1, NULL, 0, &t);
    else
      shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dest, source, 4);
  } else if (strcmp(mode, "split_args") == 0) {
    shmem_team_t t = SHMEM_TEAM_INVALID;
    const int rc = me == 0 ? shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, last + 1, NULL, 0, &t)
                           : shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, last, NULL, 0, &t);
    CHECK(rc != 0 && t == SHMEM_TEAM_INVALID);
    shmem_team_t all = SHMEM_TEAM_INVALID; /* agreeing splits work afterwards */
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, last + 1, NULL, 0, &all) == 0);
    shmem_long_sum_reduce(all, dest, source, 1);
    CHECK_EQ(dest[0], (long)last * (last + 1) / 2);
    return check_finish("coll_mismatch split_args");
  } else if (strcmp(mode, "set") == 0) {
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    if (me == 0)
      shmem_barrier(0, 0, last + 1, psync);
    else
      shmem_team_sync(SHMEM_TEAM_WORLD);
  } else if (strcmp(mode, "set_slow") == 0) {
    /* The last PE's own block lands at dest + last * block, the others' below it: dest is placed
     * so that its own block starts a page, and the page below (the others' blocks) is protected
     * there. The pushed alltoall copies its own block first, then pushes to the others (who can
     * then finish), then copies the others' blocks from its pSync slots: the fault is there. */
    const long page = sysconf(_SC_PAGESIZE);
    const size_t block = kSlowBlock * sizeof(long);
    CHECK((size_t)last * block <= (size_t)page);
    char* area = (char*)shmem_align((size_t)page, 2 * (size_t)page);
    long* a2a_source = (long*)shmem_malloc((size_t)(last + 1) * block);
    CHECK(area != NULL && a2a_source != NULL);
    long* a2a_dest = (long*)(area + page - (size_t)last * block);
    for (int i = 0; i < (last + 1) * kSlowBlock; ++i) a2a_source[i] = me * 1000 + i;
    for (int i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;
    others = last;
    if (me == last) {
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_sigaction = hold_in_alltoall;
      sa.sa_flags = SA_SIGINFO;
      sigemptyset(&sa.sa_mask);
      CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
      held_page = area;
      held_bytes = page;
      CHECK(mprotect(held_page, (size_t)page, PROT_READ) == 0);
    }
    shmem_barrier_all();
    shmem_alltoall64(a2a_dest, a2a_source, kSlowBlock, 0, 0, last + 1, psync);
    if (me != last) shmem_long_atomic_inc(&left_alltoall, last);
    if (me == last) {
      CHECK_EQ((long)held_faults, 1L);                                     /* it was held inside the alltoall */
      CHECK_EQ(__atomic_load_n(&left_alltoall, __ATOMIC_ACQUIRE), others); /* after the others left */
    }
    for (int k = 0; k <= last; ++k)
      for (int e = 0; e < kSlowBlock; ++e) CHECK_EQ(a2a_dest[k * kSlowBlock + e], (long)k * 1000 + me * kSlowBlock + e);
    shmem_barrier_all();
    return check_finish("coll_mismatch set_slow");
  } else if (strcmp(mode, "teams_slow") == 0) {
    shmem_team_t a = SHMEM_TEAM_INVALID, b = SHMEM_TEAM_INVALID;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, last + 1, NULL, 0, &a) != 0) return 3;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, last + 1, NULL, 0, &b) != 0) return 3;
    shmem_long_sum_reduce(a, dest, source, 4);
    CHECK_EQ(dest[0], (long)last * (last + 1) / 2);
    if (me == last) sleep(3); /* the others wait in B for it */
    shmem_long_sum_reduce(b, dest, source, 2);
    CHECK_EQ(dest[1], (long)(last + 1) + (long)last * (last + 1) / 2);
    shmem_team_sync(a);
    return check_finish("coll_mismatch teams_slow");
  } else if (strcmp(mode, "bcast_barrier") == 0 || strcmp(mode, "bcast_then_barrier") == 0 ||
             strcmp(mode, "skip_finalize") == 0) {
    if (me == 0) {
      if (strcmp(mode, "skip_finalize") != 0) shmem_long_broadcast(SHMEM_TEAM_WORLD, dest, source, 4, 0);
      if (strcmp(mode, "bcast_then_barrier") == 0) shmem_barrier_all();
    } else {
      shmem_barrier_all();
      if (strcmp(mode, "bcast_then_barrier") == 0) shmem_barrier_all();
    }
    shmem_finalize();
    printf("PE %d: NOT STOPPED\n", me);
    return 0;
  } else if (strcmp(mode, "finalize_early") == 0) {
    shmem_team_t rest = SHMEM_TEAM_INVALID;
    if (last > 0 && shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, last, NULL, 0, &rest) != 0) return 3;
    if (me > 0) {
      if (me == last) sleep(3); /* the others wait in the team's sync, PE 0 in finalize */
      shmem_team_sync(rest);
      shmem_long_sum_reduce(rest, dest, source, 1);
      CHECK_EQ(dest[0], (long)last * (last + 1) / 2);
    }
    return check_finish("coll_mismatch finalize_early");
  } else if (strcmp(mode, "slow") == 0) {
    /* The last PE computes (sleeps) past the check's bound, then makes the same calls. */
    if (me == last) sleep(3);
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dest, source, 4);
    CHECK_EQ(dest[0], (long)last * (last + 1) / 2);
    if (me == last) sleep(3);
    shmem_barrier_all();
    return check_finish("coll_mismatch slow");
  } else {
    return 2;
  }
  printf("PE %d: NOT STOPPED\n", me);
  shmem_finalize();
  return 0;
}
