/*
 * api_generic.c - compile and link test of the C11 generic names of <shmem.h> and of the team,
 * context and collective declarations. Built with -std=c11 -Wall -Wextra -pedantic -Werror and
 * linked against libshmem; never run (the multi-PE tests check behaviour).
 *
 * Every generic name is used with several types, with and without a leading context where the
 * spec allows one. A wrong selection would pass mismatched pointer types, which -Werror turns
 * into a failure; for value-returning routines the result type is also asserted.
 */
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>

#if !defined(shmem_put) || !defined(shmem_atomic_fetch_xor_nbi) || !defined(shmem_test_some_vector) || \
    !defined(shmem_sum_exscan) || !defined(shmem_sync) || !defined(shmem_cswap)
#error "<shmem.h> must define the C11 generic names in C11"
#endif

#define TYPE_IS(expr, T) _Static_assert(_Generic((expr), T: 1, default: 0), #expr " has type " #T)

/* Library handles are link-time constants and the pSync sizes compile-time constants. */
static shmem_team_t world = SHMEM_TEAM_WORLD;
static shmem_team_t shared = SHMEM_TEAM_SHARED;
static shmem_team_t invalid = SHMEM_TEAM_INVALID;
static shmem_ctx_t no_ctx = SHMEM_CTX_INVALID;
static long psync[SHMEM_BCAST_SYNC_SIZE];
static long psync_all[SHMEM_SYNC_SIZE + SHMEM_BARRIER_SYNC_SIZE + SHMEM_COLLECT_SYNC_SIZE + SHMEM_REDUCE_SYNC_SIZE +
                      SHMEM_ALLTOALL_SYNC_SIZE + SHMEM_ALLTOALLS_SYNC_SIZE];
static long psync_old[_SHMEM_BCAST_SYNC_SIZE + _SHMEM_BARRIER_SYNC_SIZE + _SHMEM_COLLECT_SYNC_SIZE +
                      _SHMEM_REDUCE_SYNC_SIZE];
static double pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + _SHMEM_REDUCE_MIN_WRKDATA_SIZE];

/* Symmetric operands of several types. */
static float f4[4];
static double d4[4];
static long double ld4[4];
static char c4[4];
static signed char sc4[4];
static unsigned char uc4[4];
static short s4[4];
static int i4[4];
static long l4[4];
static long long ll4[4];
static unsigned int ui4[4];
static unsigned long ul4[4];
static unsigned long long ull4[4];
static int32_t i32[4];
static int64_t i64[4];
static uint64_t u64[4];
static size_t sz4[4];
static float _Complex cf4[4];
static double _Complex cd4[4];
static uint64_t sig;

void use_rma(shmem_ctx_t ctx);
void use_amo(shmem_ctx_t ctx);
void use_p2p(void);
void use_teams_and_collectives(void);
void use_active_sets(void);

void use_rma(shmem_ctx_t ctx) {
  const long* lsrc = l4;
  const int* ci = i4;
  shmem_put(f4, f4 + 1, 1, 0);
  shmem_put(ctx, ld4, ld4 + 1, 1, 0);
  shmem_put(SHMEM_CTX_DEFAULT, l4, lsrc, 2, 0);
  shmem_put(sc4, sc4 + 2, 2, 0);
  shmem_get(d4, d4 + 2, 2, 0);
  shmem_get(ctx, c4, c4 + 2, 2, 0);
  shmem_put_nbi(ull4, ull4 + 2, 2, 0);
  shmem_put_nbi(ctx, uc4, uc4 + 2, 2, 0);
  shmem_get_nbi(s4, s4 + 2, 2, 0);
  shmem_get_nbi(ctx, i32, i32 + 2, 2, 0);
  shmem_p(i4, 3, 0);
  shmem_p(ctx, ld4, 1.5L, 0);
  TYPE_IS(shmem_g(ci, 0), int);
  TYPE_IS(shmem_g(ctx, f4, 0), float);
  TYPE_IS(shmem_g(sz4, 0), size_t);
  TYPE_IS(shmem_g(ctx, lsrc, 0), long);
  i4[0] = shmem_g(ci, 0) + shmem_g(ctx, i4 + 1, 0);
  shmem_iput(d4, d4 + 1, 2, 1, 2, 0);
  shmem_iput(ctx, ui4, ui4 + 1, 2, 1, 2, 0);
  shmem_iget(ll4, ll4 + 1, 2, 1, 2, 0);
  shmem_iget(ctx, f4, f4 + 1, 2, 1, 2, 0);
  shmem_ibput(s4, s4 + 1, 2, 2, 1, 2, 0);
  shmem_ibput(ctx, ul4, ul4 + 1, 2, 2, 1, 2, 0);
  shmem_ibget(c4, c4 + 1, 2, 2, 1, 2, 0);
  shmem_ibget(ctx, ld4, ld4 + 1, 2, 2, 1, 2, 0);
  shmem_put_signal(i64, i64 + 2, 2, &sig, 1, SHMEM_SIGNAL_ADD, 0);
  shmem_put_signal(ctx, d4, d4 + 2, 2, &sig, 1, SHMEM_SIGNAL_SET, 0);
  shmem_put_signal_nbi(uc4, uc4 + 2, 2, &sig, 1, SHMEM_SIGNAL_ADD, 0);
  shmem_put_signal_nbi(ctx, ll4, ll4 + 2, 2, &sig, 1, SHMEM_SIGNAL_ADD, 0);
}

void use_amo(shmem_ctx_t ctx) {
  const double* cd = d4;
  int fi;
  float ff;
  unsigned long long fu;
  long fl;
  int32_t f32;
  TYPE_IS(shmem_atomic_fetch(cd, 0), double);
  TYPE_IS(shmem_atomic_fetch(ctx, ul4, 0), unsigned long);
  shmem_atomic_set(f4, 1.0f, 0);
  shmem_atomic_set(ctx, ll4, 5LL, 0);
  TYPE_IS(shmem_atomic_swap(d4, 2.0, 0), double);
  TYPE_IS(shmem_atomic_swap(ctx, i4, 2, 0), int);
  shmem_atomic_fetch_nbi(&ff, f4, 0);
  shmem_atomic_fetch_nbi(ctx, &fl, l4, 0);
  shmem_atomic_swap_nbi(&fu, ull4, 1ULL, 0);
  shmem_atomic_swap_nbi(ctx, &ff, f4, 1.0f, 0);

  TYPE_IS(shmem_atomic_compare_swap(l4, 0L, 1L, 0), long);
  TYPE_IS(shmem_atomic_compare_swap(ctx, ui4, 0u, 1u, 0), unsigned int);
  TYPE_IS(shmem_atomic_fetch_inc(ll4, 0), long long);
  TYPE_IS(shmem_atomic_fetch_inc(ctx, sz4, 0), size_t);
  shmem_atomic_inc(i4, 0);
  shmem_atomic_inc(ctx, ull4, 0);
  TYPE_IS(shmem_atomic_fetch_add(i4, 1, 0), int);
  TYPE_IS(shmem_atomic_fetch_add(ctx, ul4, 1UL, 0), unsigned long);
  shmem_atomic_add(l4, 1L, 0);
  shmem_atomic_add(ctx, ui4, 1u, 0);
  shmem_atomic_compare_swap_nbi(&fi, i4, 0, 1, 0);
  shmem_atomic_compare_swap_nbi(ctx, &fu, ull4, 0ULL, 1ULL, 0);
  shmem_atomic_fetch_inc_nbi(&fl, l4, 0);
  shmem_atomic_fetch_inc_nbi(ctx, &fi, i4, 0);
  shmem_atomic_fetch_add_nbi(&fu, ull4, 2ULL, 0);
  shmem_atomic_fetch_add_nbi(ctx, &fl, l4, 2L, 0);

  TYPE_IS(shmem_atomic_fetch_and(ui4, 1u, 0), unsigned int);
  TYPE_IS(shmem_atomic_fetch_and(ctx, i32, 1, 0), int32_t);
  shmem_atomic_and(u64, 1u, 0);
  shmem_atomic_and(ctx, i64, 1, 0);
  TYPE_IS(shmem_atomic_fetch_or(ull4, 1ULL, 0), unsigned long long);
  TYPE_IS(shmem_atomic_fetch_or(ctx, i64, 1, 0), int64_t);
  shmem_atomic_or(ul4, 1UL, 0);
  shmem_atomic_or(ctx, i32, 1, 0);
  TYPE_IS(shmem_atomic_fetch_xor(i32, 1, 0), int32_t);
  TYPE_IS(shmem_atomic_fetch_xor(ctx, ui4, 1u, 0), unsigned int);
  shmem_atomic_xor(i64, 1, 0);
  shmem_atomic_xor(ctx, ull4, 1ULL, 0);
  shmem_atomic_fetch_and_nbi(&f32, i32, 1, 0);
  shmem_atomic_fetch_and_nbi(ctx, &fu, ull4, 1ULL, 0);
  shmem_atomic_fetch_or_nbi(&f32, i32, 1, 0);
  shmem_atomic_fetch_or_nbi(ctx, &fu, ull4, 1ULL, 0);
  shmem_atomic_fetch_xor_nbi(&f32, i32, 1, 0);
  shmem_atomic_fetch_xor_nbi(ctx, &fu, ull4, 1ULL, 0);

  /* deprecated (1.4) generic names */
  TYPE_IS(shmem_fetch(cd, 0), double);
  TYPE_IS(shmem_fetch(i4, 0), int);
  shmem_set(f4, 1.0f, 0);
  shmem_set(ll4, 1LL, 0);
  TYPE_IS(shmem_swap(l4, 1L, 0), long);
  TYPE_IS(shmem_swap(f4, 1.0f, 0), float);
  TYPE_IS(shmem_cswap(i4, 0, 1, 0), int);
  TYPE_IS(shmem_cswap(ll4, 0LL, 1LL, 0), long long);
  TYPE_IS(shmem_finc(l4, 0), long);
  shmem_inc(i4, 0);
  shmem_inc(ll4, 0);
  TYPE_IS(shmem_fadd(ll4, 1LL, 0), long long);
  shmem_add(i4, 1, 0);
  shmem_add(l4, 1L, 0);
}

void use_p2p(void) {
  int status[4] = {0, 0, 0, 0};
  size_t idx[4];
  const long lv[4] = {1, 2, 3, 4};
  const unsigned int uv[4] = {1, 2, 3, 4};
  shmem_wait_until(i4, SHMEM_CMP_EQ, 0);
  shmem_wait_until(l4, SHMEM_CMP_GE, 0L); /* the deprecated C function's name, now generic */
  shmem_wait_until(s4, SHMEM_CMP_NE, 1);  /* short: deprecated type, still selectable */
  shmem_wait_until(ull4, SHMEM_CMP_LT, 5ULL);
  TYPE_IS(shmem_test(i4, SHMEM_CMP_EQ, 0), int);
  TYPE_IS(shmem_test(sz4, SHMEM_CMP_EQ, 0), int);
  (void)shmem_test((unsigned short*)s4, SHMEM_CMP_EQ, 0);
  shmem_wait_until_all(l4, 4, status, SHMEM_CMP_GE, 0L);
  shmem_wait_until_all(ui4, 4, NULL, SHMEM_CMP_GE, 0u);
  TYPE_IS(shmem_wait_until_any(ll4, 4, status, SHMEM_CMP_EQ, 1LL), size_t);
  TYPE_IS(shmem_wait_until_some(i4, 4, idx, status, SHMEM_CMP_EQ, 1), size_t);
  shmem_wait_until_all_vector(l4, 4, status, SHMEM_CMP_EQ, lv);
  (void)shmem_wait_until_any_vector(ui4, 4, NULL, SHMEM_CMP_EQ, uv);
  (void)shmem_wait_until_some_vector(l4, 4, idx, status, SHMEM_CMP_EQ, lv);
  TYPE_IS(shmem_test_all(ul4, 4, status, SHMEM_CMP_EQ, 1UL), int);
  TYPE_IS(shmem_test_any(i4, 4, status, SHMEM_CMP_EQ, 1), size_t);
  TYPE_IS(shmem_test_some(ll4, 4, idx, NULL, SHMEM_CMP_EQ, 1LL), size_t);
  TYPE_IS(shmem_test_all_vector(l4, 4, status, SHMEM_CMP_EQ, lv), int);
  TYPE_IS(shmem_test_any_vector(ui4, 4, status, SHMEM_CMP_EQ, uv), size_t);
  TYPE_IS(shmem_test_some_vector(l4, 4, idx, status, SHMEM_CMP_EQ, lv), size_t);
}

void use_teams_and_collectives(void) {
  shmem_team_t even = SHMEM_TEAM_INVALID, x = SHMEM_TEAM_INVALID, y = SHMEM_TEAM_INVALID, t = SHMEM_TEAM_INVALID;
  shmem_team_config_t config;
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  int rc = 0;
  config.num_contexts = 1;
  rc |= shmem_team_split_strided(world, 0, 2, (shmem_n_pes() + 1) / 2, &config, SHMEM_TEAM_NUM_CONTEXTS, &even);
  rc |= shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &x, &config, SHMEM_TEAM_NUM_CONTEXTS, &y);
  rc |= shmem_team_my_pe(even) + shmem_team_n_pes(shared) + shmem_team_translate_pe(x, 0, SHMEM_TEAM_WORLD);
  rc |= shmem_team_get_config(y, SHMEM_TEAM_NUM_CONTEXTS, &config);
  rc |= shmem_team_create_ctx(even, SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED, &ctx);
  rc |= shmem_ctx_get_team(ctx, &t);
  shmem_ctx_destroy(ctx);
  rc |= shmem_ctx_create(SHMEM_CTX_NOSTORE, &ctx);
  shmem_ctx_destroy(ctx);
  shmem_ctx_destroy(no_ctx);
  rc |= shmem_team_ptr(world, l4, 0) == NULL;
  rc |= shmem_team_sync(y);

  TYPE_IS(shmem_broadcast(world, l4, l4 + 2, 2, 0), int);
  rc |= shmem_broadcast(even, ld4, ld4 + 2, 2, 0) | shmem_broadcast(world, c4, c4 + 2, 2, 0);
  rc |= shmem_broadcastmem(world, c4, c4 + 2, 2, 0) | shmem_int_broadcast(world, i4, i4 + 2, 2, 0);
  rc |= shmem_collect(world, d4, d4 + 3, 1) | shmem_collect(world, uc4, uc4 + 3, 1);
  rc |= shmem_fcollect(world, i64, i64 + 3, 1) | shmem_fcollect(world, sc4, sc4 + 3, 1);
  rc |= shmem_alltoall(world, f4, f4 + 2, 1) | shmem_alltoall(world, ull4, ull4 + 2, 1);
  rc |= shmem_alltoalls(world, s4, s4 + 2, 1, 1, 1) | shmem_alltoalls(world, d4, d4 + 2, 2, 1, 1);
  rc |= shmem_collectmem(world, c4, c4 + 3, 1) | shmem_fcollectmem(world, c4, c4 + 3, 1);
  rc |= shmem_alltoallmem(world, c4, c4 + 2, 1) | shmem_alltoallsmem(world, c4, c4 + 2, 1, 1, 1);

  TYPE_IS(shmem_and_reduce(world, ui4, ui4 + 2, 2), int);
  rc |= shmem_and_reduce(world, uc4, uc4 + 2, 2) | shmem_and_reduce(world, i32, i32 + 2, 2);
  rc |= shmem_or_reduce(world, i64, i64 + 2, 2) | shmem_or_reduce(world, sz4, sz4 + 2, 2);
  rc |= shmem_xor_reduce(world, sc4, sc4 + 2, 2) | shmem_xor_reduce(world, ull4, ull4 + 2, 2);
  rc |= shmem_max_reduce(world, d4, d4 + 2, 2) | shmem_max_reduce(world, c4, c4 + 2, 2);
  rc |= shmem_min_reduce(world, ld4, ld4 + 2, 2) | shmem_min_reduce(world, s4, s4 + 2, 2);
  rc |= shmem_sum_reduce(world, cf4, cf4 + 2, 2) | shmem_sum_reduce(world, ll4, ll4 + 2, 2);
  rc |= shmem_prod_reduce(world, cd4, cd4 + 2, 2) | shmem_prod_reduce(world, f4, f4 + 2, 2);
  rc |= shmem_sum_inscan(world, i4, i4 + 2, 2) | shmem_sum_inscan(world, cd4, cd4 + 2, 2);
  rc |= shmem_sum_exscan(world, d4, d4 + 2, 2) | shmem_sum_exscan(world, ul4, ul4 + 2, 2);
  rc |= shmem_int64_and_reduce(world, i64, i64, 4) | shmem_complexf_prod_reduce(world, cf4, cf4, 4);
  rc |= shmem_ptrdiff_max_reduce(world, (ptrdiff_t*)l4, (ptrdiff_t*)l4, 4);

  TYPE_IS(shmem_sync(world), int);
  rc |= shmem_sync(even) | shmem_sync(invalid);
  shmem_team_destroy(even);
  shmem_team_destroy(x);
  shmem_team_destroy(y);
  if (rc == 12345) shmem_global_exit(1); /* keep rc used */
}

void use_active_sets(void) {
  const int n = shmem_n_pes();
  shmem_barrier(0, 0, n, psync);
  shmem_sync(0, 0, n, psync_all); /* four arguments: the deprecated active-set routine */
  shmem_broadcast32(i4, i4 + 2, 2, 0, 0, 0, n, psync);
  shmem_broadcast64(l4, l4 + 2, 2, 0, 0, 0, n, psync);
  shmem_collect32(i4, i4 + 3, 1, 0, 0, n, psync);
  shmem_collect64(l4, l4 + 3, 1, 0, 0, n, psync);
  shmem_fcollect32(i4, i4 + 3, 1, 0, 0, n, psync);
  shmem_fcollect64(l4, l4 + 3, 1, 0, 0, n, psync);
  shmem_alltoall32(i4, i4 + 2, 1, 0, 0, n, psync);
  shmem_alltoall64(l4, l4 + 2, 1, 0, 0, n, psync);
  shmem_alltoalls32(i4, i4 + 2, 1, 1, 1, 0, 0, n, psync);
  shmem_alltoalls64(l4, l4 + 2, 1, 1, 1, 0, 0, n, psync);
  shmem_short_and_to_all(s4, s4 + 2, 2, 0, 0, n, s4, psync_old);
  shmem_longlong_xor_to_all(ll4, ll4 + 2, 2, 0, 0, n, ll4, psync_old);
  shmem_int_max_to_all(i4, i4 + 2, 2, 0, 0, n, i4, psync_old);
  shmem_double_min_to_all(d4, d4 + 2, 2, 0, 0, n, pwrk, psync_old);
  shmem_longdouble_sum_to_all(ld4, ld4 + 2, 2, 0, 0, n, ld4, psync_old);
  shmem_complexd_prod_to_all(cd4, cd4 + 2, 2, 0, 0, n, cd4, psync_old);
  shmem_complexf_sum_to_all(cf4, cf4 + 2, 2, 0, 0, n, cf4, psync_old);
}

/* Never run: building and linking is the test. */
int main(void) {
  (void)invalid;
  return SHMEM_SYNC_VALUE == 0 && _SHMEM_SYNC_VALUE == SHMEM_SYNC_VALUE ? 0 : 1;
}
