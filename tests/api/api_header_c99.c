/*
 * api_header_c99.c - <shmem.h> compiles as C99 (-std=c99 -pedantic -Werror): the C11 generic
 * names are absent, the typed names, teams, contexts and collectives remain. Compiled only.
 */
#include <shmem.h>

#if defined(shmem_put) || defined(shmem_sum_reduce) || defined(shmem_sync) || defined(shmem_wait_until)
#error "the C11 generic names must not be defined in C99"
#endif

static long l4[4];
static double _Complex cd4[4];
static long pSync[SHMEM_REDUCE_SYNC_SIZE];

int c99_uses(void);
int c99_uses(void) {
  shmem_team_t team = SHMEM_TEAM_WORLD;
  shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
  int rc = shmem_long_sum_reduce(team, l4, l4, 2) | shmem_complexd_sum_reduce(team, cd4, cd4, 2);
  rc |= shmem_team_create_ctx(SHMEM_TEAM_SHARED, 0, &ctx) | shmem_team_sync(team);
  shmem_ctx_long_put(ctx, l4, l4 + 2, 2, 0);
  shmem_wait_until(l4, SHMEM_CMP_EQ, 0); /* the deprecated long-typed function */
  shmem_sync(0, 0, shmem_n_pes(), pSync);
  shmem_long_sum_to_all(l4, l4 + 2, 2, 0, 0, shmem_n_pes(), l4, pSync);
  return rc;
}
