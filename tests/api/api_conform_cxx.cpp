// api_conform_cxx.cpp - the C++ side of api_conform.c, built with the strict flags as C++17/20:
//   - shmem_signal_{set,add}(ctx, sig_addr, signal, pe) overloads beside the C functions;
//   - under GCC, the generic complex reductions and scans accept float _Complex* /
//     double _Complex* as well as std::complex;
//   - the wait/test _any forms for short and unsigned short through the generic overloads;
//   - Sandia's generic shmemx_ibput/ibget and shmemx_signal_{set,add}(ctx, ...) (issue 32).
#include <shmem.h>
#include <shmemx.h>

#include <complex>

#include "check.h"

static uint64_t sig;
static std::complex<double> zin[2], zout[2];
static short flags[4];

static void signals(int me, int npes) {
  const int right = (me + 1) % npes;
  shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
  sig = 0;
  shmem_barrier_all();
  shmem_signal_set(ctx, &sig, 9, right);
  shmem_barrier_all();
  CHECK_EQ(sig, 9);
  shmem_barrier_all();
  shmem_signal_add(ctx, &sig, 2, right);
  shmem_signal_add(&sig, 1, right);
  shmem_barrier_all();
  CHECK_EQ(sig, 12);
  shmem_barrier_all();
}

#if defined(__GNUC__)
__extension__ typedef double _Complex cdouble_t;
__extension__ typedef float _Complex cfloat_t;
static cdouble_t cd_in[2], cd_out[2];
static cfloat_t cf_in[2], cf_out[2];

static void gnu_complex(int me, int npes) {
  for (int i = 0; i < 2; ++i) {
    __real__ cd_in[i] = me + i;
    __imag__ cd_in[i] = 1;
    __real__ cf_in[i] = 1;
    __imag__ cf_in[i] = me;
  }
  shmem_barrier_all();
  const double re_sum = npes * (npes - 1) / 2.0;
  CHECK_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, cd_out, cd_in, 2), 0);
  CHECK_EQ(__real__ cd_out[0], re_sum);
  CHECK_EQ(__real__ cd_out[1], re_sum + npes);
  CHECK_EQ(__imag__ cd_out[1], npes);
  CHECK_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, cf_out, cf_in, 2), 0);
  CHECK_EQ(__real__ cf_out[0], npes);
  CHECK_EQ(__imag__ cf_out[0], re_sum);
  CHECK_EQ(shmem_prod_reduce(SHMEM_TEAM_WORLD, cf_out, cf_in, 1), 0);
  CHECK_EQ(shmem_sum_inscan(SHMEM_TEAM_WORLD, cd_out, cd_in, 1), 0);
  CHECK_EQ(__real__ cd_out[0], me * (me + 1) / 2.0);
  CHECK_EQ(shmem_sum_exscan(SHMEM_TEAM_WORLD, cd_out, cd_in, 1), 0);
  if (me > 0) CHECK_EQ(__real__ cd_out[0], (me - 1) * me / 2.0);
  // The typed names keep their single std::complex signature (their address is unambiguous).
  int (*typed)(shmem_team_t, std::complex<double>*, const std::complex<double>*, size_t) =
      &shmem_complexd_sum_reduce;
  CHECK(typed != nullptr);
  // The std::complex forms still work beside them.
  zin[0] = {1.0, 2.0};
  zin[1] = {0.0, 0.0};
  CHECK_EQ(shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, zout, zin, 2), 0);
  CHECK_EQ(zout[0].imag(), 2.0 * npes);
  shmem_barrier_all();
}
#endif

static void short_any() {
  for (short& f : flags) f = 0;
  flags[1] = flags[3] = 1;
  int seen = 0;
  for (int k = 0; k < 8; ++k) {
    const size_t r = shmem_test_any(flags, 4, nullptr, SHMEM_CMP_EQ, static_cast<short>(1));
    CHECKF(r == 1 || r == 3, "short test_any returned %zu", r);
    if (r < 4) seen |= 1 << r;
  }
  CHECK_EQ(seen, (1 << 1) | (1 << 3));
}

static long xblocks[8];
static void shmemx_generic(int me, int npes) {
  const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
  long src[8], got[8];
  for (int i = 0; i < 8; ++i) {
    src[i] = 10 * me + i;
    xblocks[i] = -1;
    got[i] = -1;
  }
  shmem_barrier_all();
  shmemx_ibput(xblocks, src, 4, 3, 2, 2, right);  // blocks {0,1} and {3,4} to 0.. and 4..
  shmem_barrier_all();
  CHECK_EQ(xblocks[1], 10 * left + 1);
  CHECK_EQ(xblocks[4], 10 * left + 3);
  shmemx_ibget(SHMEM_CTX_DEFAULT, got, xblocks, 2, 4, 2, 2, right);
  CHECK_EQ(got[3], 10 * me + 4);
  sig = 0;
  shmem_barrier_all();
  shmemx_signal_set(SHMEM_CTX_DEFAULT, &sig, 4, right);
  shmem_barrier_all();
  CHECK_EQ(sig, 4);
  shmem_barrier_all();
  shmemx_signal_add(SHMEM_CTX_DEFAULT, &sig, 3, right);
  shmem_barrier_all();
  CHECK_EQ(sig, 7);
  shmem_barrier_all();
}

int main() {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  signals(me, npes);
  shmemx_generic(me, npes);
#if defined(__GNUC__)
  gnu_complex(me, npes);
#endif
  short_any();
  if (me == 0 && check_failures_ == 0) std::printf("api_conform_cxx: OK\n");
  return check_finish(NULL);
}
