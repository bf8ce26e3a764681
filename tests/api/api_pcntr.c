/* api_pcntr.c - Sandia OpenSHMEM's performance counters (shmemx_pcntr_*), with values: per
 * context the writes (puts, non-fetching AMOs) and reads (gets, fetching AMOs) issued and
 * completed, and with SHMEM_PCNTR_TARGET=1 (argument "target") the writes and AMOs other PEs
 * completed into this PE's memory. Node-local PEs: every operation completes on return. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

static long word;
static long buf[4];

int main(int argc, char** argv) {
  const int target = argc > 1 && strcmp(argv[1], "target") == 0;
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes(), peer = (me + 1) % n;
  shmem_ctx_t ctx;
  CHECK(shmem_ctx_create(0, &ctx) == 0);
  long src[4] = {1, 2, 3, 4};
  shmem_ctx_putmem(ctx, buf, src, sizeof src, peer);     /* write */
  shmem_ctx_long_p(ctx, &word, 5, peer);                 /* write */
  shmem_ctx_long_atomic_add(ctx, &word, 1, peer);        /* write: a non-fetching AMO */
  shmem_ctx_long_atomic_set(ctx, &word, 7, peer);        /* write */
  (void)shmem_ctx_long_atomic_fetch(ctx, &word, peer);   /* read: a fetching AMO */
  (void)shmem_ctx_long_atomic_swap(ctx, &word, 8, peer); /* read */
  (void)shmem_ctx_long_g(ctx, &word, peer);              /* read */
  long dst[4];
  shmem_ctx_getmem(ctx, dst, buf, sizeof dst, peer); /* read */
  shmem_ctx_quiet(ctx);
  uint64_t v = 0;
  shmemx_pcntr_get_issued_write(ctx, &v);
  CHECK_EQ((long)v, (long)(4));
  shmemx_pcntr_get_completed_write(ctx, &v);
  CHECK_EQ((long)v, (long)(4));
  shmemx_pcntr_get_issued_read(ctx, &v);
  CHECK_EQ((long)v, (long)(4));
  shmemx_pcntr_get_completed_read(ctx, &v);
  CHECK_EQ((long)v, (long)(4));
  shmem_barrier_all();
  /* Every PE received the 4 writes and the swap (a fetch only reads) from its left neighbour. */
  shmemx_pcntr_get_completed_target(&v);
  CHECK_EQ((long)v, (long)(target ? 5 : 0));
  shmemx_pcntr_t all;
  shmemx_pcntr_get_all(ctx, &all);
  CHECK_EQ((long)all.pending_put, (long)(4));
  CHECK_EQ((long)all.completed_get, (long)(4));
  CHECK_EQ((long)all.target, (long)(target ? 5 : 0));
  shmem_ctx_destroy(ctx);
  return check_finish(target ? "api_pcntr target" : "api_pcntr");
}
