// api_generic_cxx.cpp - compile and link test of the C++ overloads of the OpenSHMEM generic names
// (built as C++17 and C++20 with -Wall -Wextra -pedantic -Werror); never run. <shmem.h> is
// included inside extern "C" on purpose: older programs do that, and it must keep working.
// Every call's result type is asserted, which also proves the call resolved to one overload.
#include <complex>
#include <cstddef>
#include <cstdint>
#include <type_traits>

extern "C" {
#include <shmem.h>
}

#if defined(shmem_put) || defined(shmem_sync)
#error "the generic names are functions in C++, not macros"
#endif

#define TYPE_IS(expr, T) static_assert(std::is_same_v<decltype(expr), T>, #expr " has type " #T)

namespace {

shmem_team_t world = SHMEM_TEAM_WORLD;
long psync[SHMEM_BCAST_SYNC_SIZE];
float f4[4];
double d4[4];
long double ld4[4];
char c4[4];
signed char sc4[4];
unsigned char uc4[4];
short s4[4];
unsigned short us4[4];
int i4[4];
long l4[4];
long long ll4[4];
unsigned int ui4[4];
unsigned long ul4[4];
unsigned long long ull4[4];
std::int32_t i32[4];
std::int64_t i64[4];
std::uint64_t u64[4];
std::size_t sz4[4];
std::complex<float> cf4[4];
std::complex<double> cd4[4];
std::uint64_t sig;

void use_rma(shmem_ctx_t ctx) {
  const long* lsrc = l4;
  shmem_put(f4, f4 + 1, 1, 0);
  shmem_put(ctx, ld4, ld4 + 1, 1, 0);
  shmem_put(SHMEM_CTX_DEFAULT, l4, lsrc, 2, 0);
  shmem_get(d4, d4 + 2, 2, 0);
  shmem_get(ctx, sc4, sc4 + 2, 2, 0);
  shmem_put_nbi(ull4, ull4 + 2, 2, 0);
  shmem_put_nbi(ctx, uc4, uc4 + 2, 2, 0);
  shmem_get_nbi(s4, s4 + 2, 2, 0);
  shmem_get_nbi(ctx, i32, i32 + 2, 2, 0);
  shmem_p(i4, 3, 0);
  shmem_p(ctx, c4, 'x', 0);
  TYPE_IS(shmem_g(lsrc, 0), long);
  TYPE_IS(shmem_g(ctx, f4, 0), float);
  TYPE_IS(shmem_g(sz4, 0), std::size_t);
  i4[0] = shmem_g(i4 + 1, 0);
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
  int fi = 0;
  float ff = 0;
  unsigned long long fu = 0;
  long fl = 0;
  std::int32_t f32 = 0;
  TYPE_IS(shmem_atomic_fetch(cd, 0), double);
  TYPE_IS(shmem_atomic_fetch(ctx, ul4, 0), unsigned long);
  shmem_atomic_set(f4, 1.0f, 0);
  shmem_atomic_set(ctx, ll4, 5, 0);
  TYPE_IS(shmem_atomic_swap(d4, 2.0, 0), double);
  TYPE_IS(shmem_atomic_swap(ctx, i4, 2, 0), int);
  shmem_atomic_fetch_nbi(&ff, f4, 0);
  shmem_atomic_fetch_nbi(ctx, &fl, l4, 0);
  shmem_atomic_swap_nbi(&fu, ull4, 1, 0);
  shmem_atomic_swap_nbi(ctx, &ff, f4, 1.0f, 0);
  TYPE_IS(shmem_atomic_compare_swap(l4, 0, 1, 0), long);
  TYPE_IS(shmem_atomic_compare_swap(ctx, ui4, 0u, 1u, 0), unsigned int);
  TYPE_IS(shmem_atomic_fetch_inc(ll4, 0), long long);
  TYPE_IS(shmem_atomic_fetch_inc(ctx, sz4, 0), std::size_t);
  shmem_atomic_inc(i4, 0);
  shmem_atomic_inc(ctx, ull4, 0);
  TYPE_IS(shmem_atomic_fetch_add(i4, 1, 0), int);
  TYPE_IS(shmem_atomic_fetch_add(ctx, ul4, 1UL, 0), unsigned long);
  shmem_atomic_add(l4, 1, 0);
  shmem_atomic_add(ctx, ui4, 1u, 0);
  shmem_atomic_compare_swap_nbi(&fi, i4, 0, 1, 0);
  shmem_atomic_compare_swap_nbi(ctx, &fu, ull4, 0ULL, 1ULL, 0);
  shmem_atomic_fetch_inc_nbi(&fl, l4, 0);
  shmem_atomic_fetch_inc_nbi(ctx, &fi, i4, 0);
  shmem_atomic_fetch_add_nbi(&fu, ull4, 2ULL, 0);
  shmem_atomic_fetch_add_nbi(ctx, &fl, l4, 2L, 0);
  TYPE_IS(shmem_atomic_fetch_and(ui4, 1u, 0), unsigned int);
  TYPE_IS(shmem_atomic_fetch_and(ctx, i32, 1, 0), std::int32_t);
  shmem_atomic_and(u64, 1u, 0);
  shmem_atomic_and(ctx, i64, 1, 0);
  TYPE_IS(shmem_atomic_fetch_or(ull4, 1ULL, 0), unsigned long long);
  TYPE_IS(shmem_atomic_fetch_or(ctx, i64, 1, 0), std::int64_t);
  shmem_atomic_or(ul4, 1UL, 0);
  shmem_atomic_or(ctx, i32, 1, 0);
  TYPE_IS(shmem_atomic_fetch_xor(i32, 1, 0), std::int32_t);
  TYPE_IS(shmem_atomic_fetch_xor(ctx, ui4, 1u, 0), unsigned int);
  shmem_atomic_xor(i64, 1, 0);
  shmem_atomic_xor(ctx, ull4, 1ULL, 0);
  shmem_atomic_fetch_and_nbi(&f32, i32, 1, 0);
  shmem_atomic_fetch_and_nbi(ctx, &fu, ull4, 1ULL, 0);
  shmem_atomic_fetch_or_nbi(&f32, i32, 1, 0);
  shmem_atomic_fetch_or_nbi(ctx, &fu, ull4, 1ULL, 0);
  shmem_atomic_fetch_xor_nbi(&f32, i32, 1, 0);
  shmem_atomic_fetch_xor_nbi(ctx, &fu, ull4, 1ULL, 0);
  // deprecated (1.4) generic names
  TYPE_IS(shmem_fetch(cd, 0), double);
  shmem_set(f4, 1.0f, 0);
  TYPE_IS(shmem_swap(l4, 1, 0), long);
  TYPE_IS(shmem_cswap(ll4, 0, 1, 0), long long);
  TYPE_IS(shmem_finc(i4, 0), int);
  shmem_inc(ll4, 0);
  TYPE_IS(shmem_fadd(l4, 1, 0), long);
  shmem_add(i4, 1, 0);
}

void use_p2p() {
  int status[4] = {0, 0, 0, 0};
  std::size_t idx[4];
  const long lv[4] = {1, 2, 3, 4};
  shmem_wait_until(i4, SHMEM_CMP_EQ, 0);
  shmem_wait_until(l4, SHMEM_CMP_GE, 0);   // the deprecated C function (same as shmem_long_wait_until)
  shmem_wait_until(l4, SHMEM_CMP_GE, 0L);
  shmem_wait_until(s4, SHMEM_CMP_NE, 1);   // short from an int literal: the value is not deduced
  shmem_wait_until(us4, SHMEM_CMP_NE, 1);
  shmem_wait_until(ull4, SHMEM_CMP_LT, 5);
  TYPE_IS(shmem_wait_until(sz4, SHMEM_CMP_EQ, 0), void);
  TYPE_IS(shmem_test(i4, SHMEM_CMP_EQ, 0), int);
  TYPE_IS(shmem_test(s4, SHMEM_CMP_EQ, 0), int);
  TYPE_IS(shmem_test(sz4, SHMEM_CMP_EQ, 0), int);
  shmem_wait_until_all(l4, 4, status, SHMEM_CMP_GE, 0L);
  shmem_wait_until_all(ui4, 4, nullptr, SHMEM_CMP_GE, 0u);
  TYPE_IS(shmem_wait_until_any(ll4, 4, status, SHMEM_CMP_EQ, 1LL), std::size_t);
  TYPE_IS(shmem_wait_until_some(i4, 4, idx, status, SHMEM_CMP_EQ, 1), std::size_t);
  shmem_wait_until_all_vector(l4, 4, status, SHMEM_CMP_EQ, lv);
  TYPE_IS(shmem_wait_until_any_vector(l4, 4, nullptr, SHMEM_CMP_EQ, lv), std::size_t);
  TYPE_IS(shmem_wait_until_some_vector(l4, 4, idx, status, SHMEM_CMP_EQ, lv), std::size_t);
  TYPE_IS(shmem_test_all(ul4, 4, status, SHMEM_CMP_EQ, 1UL), int);
  TYPE_IS(shmem_test_any(i4, 4, status, SHMEM_CMP_EQ, 1), std::size_t);
  TYPE_IS(shmem_test_some(ll4, 4, idx, nullptr, SHMEM_CMP_EQ, 1LL), std::size_t);
  TYPE_IS(shmem_test_all_vector(l4, 4, status, SHMEM_CMP_EQ, lv), int);
  TYPE_IS(shmem_test_any_vector(l4, 4, status, SHMEM_CMP_EQ, lv), std::size_t);
  TYPE_IS(shmem_test_some_vector(l4, 4, idx, status, SHMEM_CMP_EQ, lv), std::size_t);
}

int use_collectives() {
  int rc = 0;
  TYPE_IS(shmem_broadcast(world, l4, l4 + 2, 2, 0), int);
  rc |= shmem_broadcast(world, ld4, ld4 + 2, 2, 0) | shmem_broadcast(SHMEM_TEAM_SHARED, c4, c4 + 2, 2, 0);
  rc |= shmem_collect(world, d4, d4 + 3, 1) | shmem_collect(world, uc4, uc4 + 3, 1);
  rc |= shmem_fcollect(world, i64, i64 + 3, 1) | shmem_fcollect(world, sc4, sc4 + 3, 1);
  rc |= shmem_alltoall(world, f4, f4 + 2, 1) | shmem_alltoall(world, ull4, ull4 + 2, 1);
  rc |= shmem_alltoalls(world, s4, s4 + 2, 1, 1, 1) | shmem_alltoalls(world, d4, d4 + 2, 2, 1, 1);
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
  rc |= shmem_complexf_sum_reduce(world, cf4, cf4, 4);
  TYPE_IS(shmem_sync(world), int);
  rc |= shmem_sync(world);
  shmem_sync(0, 0, shmem_n_pes(), psync);  // the deprecated active-set routine
  shmem_complexd_sum_to_all(cd4, cd4 + 2, 2, 0, 0, shmem_n_pes(), cd4, psync);
  return rc;
}

}  // namespace

// Never run: building and linking is the test. The functions are referenced so they are compiled
// and their calls linked.
int main(int argc, char**) {
  if (argc > 1000) {
    use_rma(SHMEM_CTX_DEFAULT);
    use_amo(SHMEM_CTX_DEFAULT);
    use_p2p();
    return use_collectives();
  }
  return 0;
}
