/*
 * api_errors.c MODE - one wrong call per run, made by the last PE while the others wait in a
 * barrier; tests/support/expect_run.sh (registered in tests/api/CMakeLists.txt) checks that the job
 * ends and that the message names the public routine and the argument as the program called
 * them ("shmem_long_p: pe=2 ...", "shmem_int_atomic_fetch_add: dest=0x... is not symmetric"),
 * never an internal name ("shmem_put", "shmem_atomic"). Modes:
 *   long_p_pe            shmem_long_p to PE npes (out of range)
 *   long_iput_pe         shmem_long_iput to PE npes + 3
 *   ctx_long_p_team_pe   shmem_ctx_long_p on a context of a 1-PE team, to team PE 1
 *   int_fetch_add_dest   shmem_int_atomic_fetch_add on a stack variable
 *   getmem_source        shmem_getmem from a stack variable
 *   getmem_source_size   shmem_getmem of 4096 bytes from a 16-byte symmetric object (SHMEM_DEBUG=1)
 *   long_put_signal_sig  shmem_long_put_signal with a stack sig_addr
 *   uint64_add_align     shmem_uint64_atomic_add on a misaligned symmetric address
 *   int_wait_until_cmp   shmem_int_wait_until with cmp 99
 *   int_test_cmp         shmem_int_test with cmp 99
 *   short_test_any_cmp   shmem_short_test_any with cmp 42
 *   signal_wait_cmp      shmem_signal_wait_until with cmp 77
 *   set_lock_lock        shmem_set_lock on a stack variable
 *   team_sync_destroyed  shmem_team_sync on a team every PE has destroyed (was a crash)
 *   ctx_destroy_twice    shmem_ctx_destroy of a context destroyed before (was a crash)
 *   ctx_destroy_after_team shmem_ctx_destroy of a shareable context of a team that every PE has
 *                        destroyed since: shmem_team_destroy destroyed it with the team
 *   shmemalign_alignment shmemalign(3, 8): NULL with a logged error, then the job goes on
 *                        ("shmemalign_alignment: OK")
 *   team_destroy_private_ctx the last PE keeps a SHMEM_CTX_PRIVATE context of a team that every
 *                        PE destroys: a logged error, the context goes with the team, and the
 *                        job goes on ("team_destroy_private_ctx: OK")
 */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static long sym_long;
static uint64_t sym_words[2];
static int sym_int;
static short sym_shorts[4];
static uint64_t sym_sig;

/* Set up by every PE before the wrong call (the set-up calls are collective). */
static char* small_object;    /* 16 symmetric bytes */
static shmem_ctx_t one_pe_ctx; /* the last PE's context of a team of itself alone */
static shmem_team_t destroyed_team = SHMEM_TEAM_INVALID; /* split from WORLD, then destroyed */
static shmem_ctx_t destroyed_team_ctx;                   /* the last PE's context of that team */

static int wrong_call(const char* mode, int n) {
  long local_long = 0;
  int local_int = 0;
  uint64_t local_sig = 0;
  long local_lock = 0;
  if (!strcmp(mode, "long_p_pe")) {
    shmem_long_p(&sym_long, 1, n);
  } else if (!strcmp(mode, "long_iput_pe")) {
    shmem_long_iput(&sym_long, &local_long, 1, 1, 1, n + 3);
  } else if (!strcmp(mode, "ctx_long_p_team_pe")) {
    shmem_ctx_long_p(one_pe_ctx, &sym_long, 1, 1); /* team PE 1 does not exist, world PE 1 does */
  } else if (!strcmp(mode, "int_fetch_add_dest")) {
    (void)shmem_int_atomic_fetch_add(&local_int, 1, 0);
  } else if (!strcmp(mode, "getmem_source")) {
    shmem_getmem(&local_long, &local_int, sizeof local_int, 0);
  } else if (!strcmp(mode, "getmem_source_size")) {
    static char into[4096]; /* far beyond the object (allocations are rounded up) */
    shmem_getmem(into, small_object, sizeof into, 0);
  } else if (!strcmp(mode, "long_put_signal_sig")) {
    shmem_long_put_signal(&sym_long, &local_long, 1, &local_sig, 1, SHMEM_SIGNAL_SET, 0);
  } else if (!strcmp(mode, "uint64_add_align")) {
    shmem_uint64_atomic_add((uint64_t*)((char*)sym_words + 4), 1, 0);
  } else if (!strcmp(mode, "int_wait_until_cmp")) {
    shmem_int_wait_until(&sym_int, 99, 0);
  } else if (!strcmp(mode, "int_test_cmp")) {
    (void)shmem_int_test(&sym_int, 99, 0);
  } else if (!strcmp(mode, "short_test_any_cmp")) {
    (void)shmem_short_test_any(sym_shorts, 4, NULL, 42, 0);
  } else if (!strcmp(mode, "signal_wait_cmp")) {
    (void)shmem_signal_wait_until(&sym_sig, 77, 0);
  } else if (!strcmp(mode, "set_lock_lock")) {
    shmem_set_lock(&local_lock);
  } else if (!strcmp(mode, "team_sync_destroyed")) {
    shmem_team_sync(destroyed_team);
  } else if (!strcmp(mode, "ctx_destroy_after_team")) {
    shmem_ctx_destroy(destroyed_team_ctx);
  } else if (!strcmp(mode, "ctx_destroy_twice")) {
    shmem_ctx_t ctx;
    if (shmem_ctx_create(0, &ctx) != 0) {
      fprintf(stderr, "api_errors: FAIL: shmem_ctx_create\n");
      return 1;
    }
    shmem_ctx_long_p(ctx, &sym_long, 1, 0);
    shmem_ctx_destroy(ctx);
    shmem_ctx_destroy(ctx);
  } else {
    fprintf(stderr, "api_errors: unknown mode '%s'\n", mode);
    return 1;
  }
  fprintf(stderr, "api_errors: NOT STOPPED: %s returned\n", mode);
  return 1;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  if (!strcmp(mode, "shmemalign_alignment")) {
    /* a collective call that fails alike on every PE: NULL, and the job goes on */
    void* p = shmemalign(3, 8);
    shmem_barrier_all();
    if (p != NULL) {
      fprintf(stderr, "api_errors: FAIL: shmemalign(3, 8) returned %p\n", p);
      return 1;
    }
    if (me == 0) printf("shmemalign_alignment: OK\n");
    shmem_finalize();
    return 0;
  }
  if (!strcmp(mode, "team_destroy_private_ctx")) {
    shmem_team_t t = SHMEM_TEAM_INVALID;
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t) != 0 ||
        (me == n - 1 && shmem_team_create_ctx(t, SHMEM_CTX_PRIVATE, &ctx) != 0)) {
      fprintf(stderr, "api_errors: FAIL: team set-up\n");
      return 1;
    }
    if (me == n - 1) shmem_ctx_long_p(ctx, &sym_long, 7, 0);
    shmem_team_destroy(t);
    shmem_barrier_all();
    if (me == 0 && sym_long != 7) {
      fprintf(stderr, "api_errors: FAIL: the context's put did not complete (%ld)\n", sym_long);
      return 1;
    }
    if (me == 0) printf("team_destroy_private_ctx: OK\n");
    shmem_finalize();
    return 0;
  }
  if (!strcmp(mode, "getmem_source_size")) small_object = shmem_malloc(16);
  if (!strcmp(mode, "team_sync_destroyed") || !strcmp(mode, "ctx_destroy_after_team")) {
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &destroyed_team) != 0 ||
        (me == n - 1 && shmem_team_create_ctx(destroyed_team, 0, &destroyed_team_ctx) != 0)) {
      fprintf(stderr, "api_errors: FAIL: team set-up\n");
      return 1;
    }
    if (me == n - 1) shmem_ctx_long_p(destroyed_team_ctx, &sym_long, 1, 0);
    shmem_team_destroy(destroyed_team);
  }
  if (!strcmp(mode, "ctx_long_p_team_pe")) {
    shmem_team_t one; /* the last PE alone */
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, 1, 1, NULL, 0, &one) != 0 ||
        (me == n - 1 && shmem_team_create_ctx(one, 0, &one_pe_ctx) != 0)) {
      fprintf(stderr, "api_errors: FAIL: team set-up\n");
      return 1;
    }
  }
  shmem_barrier_all();
  if (me == n - 1) return wrong_call(mode, n);
  shmem_barrier_all(); /* never completes: the victim ends the job */
  fprintf(stderr, "api_errors: NOT STOPPED: PE %d passed the barrier\n", me);
  shmem_finalize();
  return 1;
}
