/*
 * coll_fail.c - misuse that the library must stop with a clear message (run through
 * tests/support/expect_run.sh, which checks the exit status and the output):
 *   ctx-team-pe    a put on a team context to a PE number past the team's end
 *   bcast-root     a team broadcast whose PE_root is not a team PE
 *   aset-outside   an active-set collective called by a PE outside the active set
 *   aset-mismatch  the members of an active set call different collectives on one pSync, of
 *                  one word (through the rings, forced on by the test)
 *   aset-mismatch-wide  the same with two words (through the pSync slots)
 *   bcast-order    a member takes two tiny broadcasts from its root in the other order (needs
 *                  the broadcast rings, forced on by the test)
 * Each mode prints "NOT STOPPED" if the library lets the call return.
 */
#include <shmem.h>

#include "check.h"

static long target[4];
static long source[4];
static long psync[SHMEM_BCAST_SYNC_SIZE];
static long psync2[SHMEM_BCAST_SYNC_SIZE];
static long wrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  shmem_init();
  const int npes = shmem_n_pes();
  for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; ++i) psync[i] = psync2[i] = SHMEM_SYNC_VALUE;
  shmem_barrier_all();
  if (strcmp(mode, "ctx-team-pe") == 0) {
    shmem_team_t t = SHMEM_TEAM_INVALID;
    shmem_team_config_t cfg = {1};
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &t) != 0) return 3;
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    if (shmem_team_create_ctx(t, 0, &ctx) != 0) return 3;
    shmem_ctx_long_p(ctx, &target[0], 1, npes); /* team PEs are 0..npes-1 */
    shmem_ctx_quiet(ctx);
  } else if (strcmp(mode, "bcast-root") == 0) {
    shmem_long_broadcast(SHMEM_TEAM_WORLD, target, source, 4, npes);
  } else if (strcmp(mode, "aset-outside") == 0) {
    /* The active set is PE 0 alone; every other PE calls it anyway. */
    if (shmem_my_pe() != 0) shmem_broadcast64(target, source, 4, 0, 0, 0, 1, psync);
    else shmem_barrier_all();
  } else if (strcmp(mode, "aset-mismatch") == 0 || strcmp(mode, "aset-mismatch-wide") == 0) {
    const int words = strcmp(mode, "aset-mismatch") == 0 ? 1 : 2;
    if (shmem_my_pe() == 0) shmem_fcollect64(target, source, words, 0, 0, npes, psync);
    else shmem_long_sum_to_all(target, source, words, 0, 0, npes, wrk, psync);
  } else if (strcmp(mode, "bcast-order") == 0) {
    /* PE 0 is the root of a 4-byte broadcast, then of an 8-byte one; the others call them the
     * other way round. */
    if (shmem_my_pe() == 0) {
      shmem_broadcast32(target, source, 1, 0, 0, 0, npes, psync);
      shmem_broadcast64(target, source, 1, 0, 0, 0, npes, psync2);
      shmem_barrier_all(); /* the root returns at once; the others stop the job */
    } else {
      shmem_broadcast64(target, source, 1, 0, 0, 0, npes, psync2);
      shmem_broadcast32(target, source, 1, 0, 0, 0, npes, psync);
    }
  } else {
    fprintf(stderr, "coll_fail: unknown mode '%s'\n", mode);
    return 2;
  }
  printf("PE %d: NOT STOPPED\n", shmem_my_pe());
  fflush(stdout);
  shmem_finalize();
  return 0;
}
