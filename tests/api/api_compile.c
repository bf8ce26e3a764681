/*
 * api_compile.c - calls a representative sample of every family of <shmem.h>: setup and query,
 * memory, typed/sized/mem RMA (blocking, nbi, strided, blocked), every AMO op (blocking, nbi,
 * ctx, deprecated names), put-with-signal and signal routines, ordering, wait/test (single,
 * all/any/some, vector, deprecated), sessions and locks.
 *
 * Built as C11 and (through api_compile_cxx.cpp) as C++17 and C++20 with
 * -Wall -Wextra -pedantic -Werror, so it must stay valid in both languages. It also runs: every
 * PE talks to its right neighbour, so any number of PEs (including 1) gives checkable results.
 */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  long lput[8], lsrc[8];
  int ip;
  double dstr[8];
  short sblk[12];
  float fnbi[4];
  long double ld[2];
  uint32_t s32[4];
  unsigned char bytes[32];
  int amo_i;
  long amo_l;
  unsigned long long amo_ull;
  int64_t amo_i64;
  float amo_f;
  double amo_d;
  uint32_t amo_bits;
  long long amo_nbi[8];
  int sig_data[4];
  uint64_t sig, sig2;
  int ivars[4];
  long lwait;
  short swait;
  long counter; /* on PE 0: incremented under the lock */
} Sym;

static long lock_var; /* static: symmetric without allocation */
static int failures;
static int me;

#define CHECK(cond)                                                                       \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      fprintf(stderr, "PE %d: %s:%d: check failed: %s\n", me, __FILE__, __LINE__, #cond); \
      ++failures;                                                                         \
    }                                                                                     \
  } while (0)

static void setup_and_query(void) {
  int major = 0, minor = 0, initialized = 0, provided = -1;
  char name[SHMEM_MAX_NAME_LEN];
  shmem_info_get_version(&major, &minor);
  CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION && minor == 6);
  shmem_info_get_name(name);
  CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0);
  shmem_query_initialized(&initialized);
  CHECK(initialized != 0);
  shmem_query_thread(&provided);
  CHECK(provided >= SHMEM_THREAD_SINGLE && provided <= SHMEM_THREAD_MULTIPLE);
  CHECK(_my_pe() == shmem_my_pe() && _num_pes() == shmem_n_pes());
  CHECK(shmem_pe_accessible(me) == 1);
  CHECK(shmem_addr_accessible(&lock_var, me) == 1);
  CHECK(shmem_ptr(&lock_var, me) == (void*)&lock_var);
  shmem_pcontrol(1);
  {
    void (*volatile sp)(int) = start_pes; /* deprecated: linked, not called after shmem_init */
    CHECK(sp != NULL);
  }
}

static void memory(void) {
  char* a = (char*)shmem_malloc(100);
  char* b = (char*)shmem_align(64, 128);
  long* c = (long*)shmem_calloc(4, sizeof(long));
  void* d = shmem_malloc_with_hints(64, SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE);
  void* e = shmalloc(16);
  CHECK(a && b && c && d && e);
  CHECK(((uintptr_t)b % 64) == 0);
  CHECK(c && c[0] == 0 && c[3] == 0);
  a = (char*)shmem_realloc(a, 200);
  CHECK(a != NULL);
  CHECK(shmem_malloc(0) == NULL);
  shfree(e);
  shmem_free(d);
  shmem_free(c);
  shmem_free(b);
  shmem_free(a);
  shmem_free(NULL);
}

static void rma(Sym* s, int left, int right) {
  long lv[8];
  double dv[8];
  short sv[12];
  float fv[4];
  long double ldv[2];
  uint32_t u32[4];
  unsigned char bv[32];
  int i;
  for (i = 0; i < 8; ++i) {
    lv[i] = me * 100 + i;
    s->lsrc[i] = me * 1000 + i;
    dv[i] = me + i * 0.5;
  }
  for (i = 0; i < 12; ++i) sv[i] = (short)(me * 10 + i);
  for (i = 0; i < 4; ++i) {
    fv[i] = (float)(me + i);
    u32[i] = (uint32_t)(me * 7 + i);
  }
  for (i = 0; i < 32; ++i) bv[i] = (unsigned char)(me + i);
  ldv[0] = me + 0.25L;
  ldv[1] = me + 0.75L;
  shmem_barrier_all();

  shmem_long_put(s->lput, lv, 4, right);
  shmem_ctx_long_put(SHMEM_CTX_DEFAULT, s->lput + 4, lv + 4, 4, right);
  shmem_int_p(&s->ip, me + 1, right);
  shmem_double_iput(s->dstr, dv, 2, 1, 4, right);    /* dstr[0,2,4,6] = dv[0..3] */
  shmem_short_ibput(s->sblk, sv, 4, 3, 2, 3, right); /* blocks of 2 at 0,4,8 from 0,3,6 */
  shmem_float_put_nbi(s->fnbi, fv, 4, right);
  shmem_longdouble_put(s->ld, ldv, 2, right);
  shmem_put32(s->s32, u32, 4, right);
  shmem_put128_nbi(s->bytes, bv, 1, right);
  shmem_ctx_putmem_nbi(SHMEM_CTX_DEFAULT, s->bytes + 16, bv + 16, 16, right);
  shmem_fence();
  shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
  shmem_barrier_all();

  for (i = 0; i < 8; ++i) CHECK(s->lput[i] == left * 100 + i);
  CHECK(s->ip == left + 1);
  for (i = 0; i < 4; ++i) CHECK(s->dstr[2 * i] == left + i * 0.5);
  CHECK(s->sblk[0] == left * 10 && s->sblk[1] == left * 10 + 1);
  CHECK(s->sblk[4] == left * 10 + 3 && s->sblk[9] == left * 10 + 7);
  CHECK(s->fnbi[3] == (float)(left + 3));
  CHECK(s->ld[1] == left + 0.75L);
  CHECK(s->s32[2] == (uint32_t)(left * 7 + 2));
  CHECK(s->bytes[31] == (unsigned char)(left + 31));

  /* gets from the right neighbour's lsrc */
  memset(lv, 0, sizeof lv);
  shmem_long_get(lv, s->lsrc, 2, right);
  shmem_ctx_long_get_nbi(SHMEM_CTX_DEFAULT, lv + 2, s->lsrc + 2, 2, right);
  shmem_long_iget(lv + 4, s->lsrc, 1, 2, 2, right);         /* lv[4,5] = lsrc[0,2] */
  shmem_long_ibget(lv + 6, s->lsrc + 4, 1, 2, 1, 2, right); /* lv[6,7] = lsrc[4,6] */
  shmem_quiet();
  CHECK(lv[1] == right * 1000 + 1 && lv[3] == right * 1000 + 3);
  CHECK(lv[5] == right * 1000 + 2 && lv[7] == right * 1000 + 6);
  CHECK(shmem_long_g(&s->lsrc[7], right) == right * 1000 + 7);
  CHECK(shmem_ctx_int_g(SHMEM_CTX_DEFAULT, &s->ip, right) == me + 1);
  {
    long tmp[2];
    uint16_t h[4];
    shmem_getmem(tmp, s->lsrc, sizeof tmp, right);
    CHECK(tmp[0] == right * 1000);
    shmem_get64_nbi(tmp, s->lsrc + 1, 1, right);
    shmem_iget16(h, s->s32, 1, 2, 2, right); /* low halves on little endian; just exercised */
    shmem_quiet();
    CHECK(tmp[0] == right * 1000 + 1);
  }
  shmem_barrier_all();
}

static void amo(Sym* s, int left, int right) {
  long long f[8];
  int i;
  (void)left;
  /* Non-fetching updates are followed by shmem_fence so later fetching ops observe them. */
  CHECK(shmem_int_atomic_fetch_add(&s->amo_i, 5, right) == 0);
  shmem_int_atomic_add(&s->amo_i, 3, right);
  shmem_fence();
  CHECK(shmem_int_atomic_fetch_inc(&s->amo_i, right) == 8);
  shmem_ctx_int_atomic_inc(SHMEM_CTX_DEFAULT, &s->amo_i, right);
  shmem_fence();
  CHECK(shmem_int_atomic_compare_swap(&s->amo_i, 10, 42, right) == 10);
  CHECK(shmem_int_fadd(&s->amo_i, 1, right) == 42);
  shmem_int_add(&s->amo_i, 1, right);
  shmem_fence();
  CHECK(shmem_int_finc(&s->amo_i, right) == 44);
  shmem_int_inc(&s->amo_i, right);
  shmem_fence();
  CHECK(shmem_int_cswap(&s->amo_i, 46, -7, right) == 46);
  CHECK(shmem_int_atomic_fetch(&s->amo_i, right) == -7);

  shmem_long_atomic_set(&s->amo_l, -5, right);
  shmem_fence();
  CHECK(shmem_ctx_long_atomic_fetch_add(SHMEM_CTX_DEFAULT, &s->amo_l, 2, right) == -5);
  CHECK(shmem_long_swap(&s->amo_l, 9, right) == -3);
  CHECK(shmem_long_fetch(&s->amo_l, right) == 9);
  shmem_long_set(&s->amo_l, 10, right);
  shmem_fence();
  CHECK(shmem_long_finc(&s->amo_l, right) == 10);
  CHECK(shmem_longlong_cswap((long long*)&s->amo_ull, 0, 1, right) == 0);
  CHECK(shmem_ulonglong_atomic_compare_swap(&s->amo_ull, 1ull, ~0ull, right) == 1ull);
  CHECK(shmem_ulonglong_atomic_fetch_inc(&s->amo_ull, right) == ~0ull); /* wraps to 0 */

  shmem_int64_atomic_set(&s->amo_i64, INT64_MIN, right);
  shmem_fence();
  CHECK(shmem_int64_atomic_swap(&s->amo_i64, 1, right) == INT64_MIN);
  shmem_float_atomic_set(&s->amo_f, 1.5f, right);
  shmem_fence();
  CHECK(shmem_float_atomic_fetch(&s->amo_f, right) == 1.5f);
  CHECK(shmem_ctx_float_atomic_swap(SHMEM_CTX_DEFAULT, &s->amo_f, 2.5f, right) == 1.5f);
  CHECK(shmem_float_fetch(&s->amo_f, right) == 2.5f);
  shmem_double_set(&s->amo_d, 0.125, right);
  shmem_fence();
  CHECK(shmem_double_swap(&s->amo_d, -4.0, right) == 0.125);
  CHECK(shmem_double_atomic_fetch(&s->amo_d, right) == -4.0);

  CHECK(shmem_uint32_atomic_fetch_or(&s->amo_bits, 0xF0u, right) == 0u);
  shmem_uint32_atomic_or(&s->amo_bits, 0x0Fu, right);
  shmem_fence();
  CHECK(shmem_uint32_atomic_fetch_and(&s->amo_bits, 0x3Cu, right) == 0xFFu);
  shmem_ctx_uint32_atomic_and(SHMEM_CTX_DEFAULT, &s->amo_bits, 0x0Cu, right);
  shmem_fence();
  CHECK(shmem_uint32_atomic_fetch_xor(&s->amo_bits, 0xFFu, right) == 0x0Cu);
  shmem_uint32_atomic_xor(&s->amo_bits, 0x03u, right);
  shmem_fence();
  CHECK(shmem_uint_atomic_fetch(&s->amo_bits, right) == 0xF0u);

  /* nonblocking fetching forms, one target word each; results valid after quiet */
  for (i = 0; i < 8; ++i) shmem_longlong_atomic_set(&s->amo_nbi[i], 100 + i, right);
  shmem_quiet();
  shmem_longlong_atomic_fetch_nbi(&f[0], &s->amo_nbi[0], right);
  shmem_longlong_atomic_compare_swap_nbi(&f[1], &s->amo_nbi[1], 101, 0, right);
  shmem_longlong_atomic_swap_nbi(&f[2], &s->amo_nbi[2], 0, right);
  shmem_ctx_longlong_atomic_fetch_inc_nbi(SHMEM_CTX_DEFAULT, &f[3], &s->amo_nbi[3], right);
  shmem_longlong_atomic_fetch_add_nbi(&f[4], &s->amo_nbi[4], 10, right);
  shmem_int64_atomic_fetch_and_nbi((int64_t*)&f[5], (int64_t*)&s->amo_nbi[5], 0, right);
  shmem_int64_atomic_fetch_or_nbi((int64_t*)&f[6], (int64_t*)&s->amo_nbi[6], 0, right);
  shmem_ctx_int64_atomic_fetch_xor_nbi(SHMEM_CTX_DEFAULT, (int64_t*)&f[7], (int64_t*)&s->amo_nbi[7], 0,
                                       right);
  shmem_quiet();
  for (i = 0; i < 8; ++i) CHECK(f[i] == 100 + i);
  CHECK(shmem_longlong_atomic_fetch(&s->amo_nbi[4], right) == 114);
  shmem_barrier_all();
  CHECK(s->amo_i == -7 && s->amo_l == 11 && s->amo_ull == 0ull && s->amo_i64 == 1);
  CHECK(s->amo_f == 2.5f && s->amo_d == -4.0 && s->amo_bits == 0xF0u);
}

static void signals(Sym* s, int left, int right) {
  int data[4];
  int i;
  for (i = 0; i < 4; ++i) data[i] = me * 10 + i;
  shmem_int_put_signal(s->sig_data, data, 4, &s->sig, 1, SHMEM_SIGNAL_ADD, right);
  CHECK(shmem_signal_wait_until(&s->sig, SHMEM_CMP_GE, 1) >= 1);
  CHECK(s->sig_data[3] == left * 10 + 3);
  shmem_ctx_int_put_signal_nbi(SHMEM_CTX_DEFAULT, s->sig_data, data, 4, &s->sig, 1, SHMEM_SIGNAL_ADD, right);
  shmem_put64_signal(s->lput, s->lsrc, 1, &s->sig, 1, SHMEM_SIGNAL_ADD, right);
  shmem_putmem_signal_nbi(s->bytes, data, sizeof data, &s->sig, 1, SHMEM_SIGNAL_ADD, right);
  shmem_ctx_put32_signal_nbi(SHMEM_CTX_DEFAULT, s->s32, data, 4, &s->sig, 1, SHMEM_SIGNAL_ADD, right);
  shmem_signal_add(&s->sig, 10, right);
  shmem_ctx_signal_add(SHMEM_CTX_DEFAULT, &s->sig, 100, right);
  CHECK(shmem_signal_wait_until(&s->sig, SHMEM_CMP_EQ, 115) == 115);
  shmem_quiet();
  shmem_barrier_all();
  shmem_signal_set(&s->sig2, 7, right);
  shmem_ctx_signal_set(SHMEM_CTX_DEFAULT, &s->sig, 0, right);
  shmem_quiet();
  shmem_barrier_all();
  CHECK(shmem_signal_fetch(&s->sig2) == 7 && shmem_signal_fetch(&s->sig) == 0);
}

static void wait_and_test(Sym* s, int right) {
  int status[4] = {0, 1, 0, 1};
  int values[4] = {1, 2, 3, 4};
  size_t idx[4];
  int i;
  shmem_int_atomic_set(&s->ivars[0], 1, right);
  shmem_int_wait_until(&s->ivars[0], SHMEM_CMP_EQ, 1);
  for (i = 1; i < 4; ++i) shmem_int_atomic_set(&s->ivars[i], i + 1, right);
  shmem_long_atomic_set(&s->lwait, 7, right);
  shmem_short_p(&s->swait, 3, right);
  shmem_quiet();
  shmem_barrier_all();

  shmem_int_wait_until_all(s->ivars, 4, NULL, SHMEM_CMP_GE, 1);
  CHECK(shmem_int_wait_until_any(s->ivars, 4, NULL, SHMEM_CMP_EQ, 3) == 2);
  CHECK(shmem_int_wait_until_some(s->ivars, 4, idx, status, SHMEM_CMP_GE, 1) == 2);
  shmem_int_wait_until_all_vector(s->ivars, 4, NULL, SHMEM_CMP_EQ, values);
  CHECK(shmem_int_wait_until_any_vector(s->ivars, 4, status, SHMEM_CMP_EQ, values) != SIZE_MAX);
  CHECK(shmem_int_wait_until_some_vector(s->ivars, 4, idx, NULL, SHMEM_CMP_LE, values) == 4);
  CHECK(shmem_int_test(&s->ivars[3], SHMEM_CMP_EQ, 4) == 1);
  CHECK(shmem_int_test(&s->ivars[3], SHMEM_CMP_LT, 4) == 0);
  CHECK(shmem_int_test_all(s->ivars, 4, NULL, SHMEM_CMP_GT, 0) == 1);
  CHECK(shmem_int_test_any(s->ivars, 4, NULL, SHMEM_CMP_EQ, 9) == SIZE_MAX);
  CHECK(shmem_int_test_some(s->ivars, 4, idx, NULL, SHMEM_CMP_LE, 2) == 2);
  CHECK(shmem_int_test_all_vector(s->ivars, 4, status, SHMEM_CMP_EQ, values) == 1);
  CHECK(shmem_int_test_any_vector(s->ivars, 4, NULL, SHMEM_CMP_NE, values) == SIZE_MAX);
  CHECK(shmem_int_test_some_vector(s->ivars, 4, idx, status, SHMEM_CMP_GE, values) == 2);
  CHECK(shmem_long_test(&s->lwait, SHMEM_CMP_NE, 0) == 1);
  CHECK(shmem_size_test_all((size_t*)s->ivars, 0, NULL, SHMEM_CMP_EQ, 0) == 1); /* empty set */

  shmem_wait_until(&s->lwait, SHMEM_CMP_EQ, 7); /* deprecated forms */
  shmem_wait(&s->lwait, 0);
  shmem_long_wait(&s->lwait, 0);
  shmem_int_wait(&s->ivars[1], 0);
  shmem_short_wait_until(&s->swait, SHMEM_CMP_EQ, 3);
  CHECK(shmem_ushort_test((unsigned short*)&s->swait, SHMEM_CMP_EQ, 3) == 1);
  shmem_barrier_all();
}

static void ordering_and_locks(Sym* s) {
  int pes[2];
  shmem_ctx_session_config_t cfg;
  int got = 0;
  cfg.total_ops = SIZE_MAX;
  shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, &cfg, SHMEM_CTX_SESSION_TOTAL_OPS);
  shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
  shmem_ctx_session_start(SHMEM_CTX_INVALID, 0, NULL, 0); /* no-op by definition */
  pes[0] = me;
  pes[1] = 0;
  shmem_pe_quiet(pes, 2);
  shmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, NULL, 0);
  shmem_ctx_fence(SHMEM_CTX_DEFAULT);
  shmem_sync_all();

  shmem_set_lock(&lock_var);
  shmem_long_atomic_add(&s->counter, 1, 0);
  shmem_clear_lock(&lock_var);
  while (!got) got = shmem_test_lock(&lock_var) == 0;
  shmem_long_atomic_inc(&s->counter, 0);
  shmem_clear_lock(&lock_var);
  shmem_barrier_all();
  if (me == 0) CHECK(s->counter == 2L * shmem_n_pes());
}

int main(void) {
  Sym* s;
  int npes, left, right;
#ifdef __cplusplus
  int provided = -1;
  CHECK(shmem_init_thread(SHMEM_THREAD_SERIALIZED, &provided) == 0);
  CHECK(provided >= SHMEM_THREAD_SINGLE);
#else
  shmem_init();
#endif
  me = shmem_my_pe();
  npes = shmem_n_pes();
  right = (me + 1) % npes;
  left = (me + npes - 1) % npes;
  setup_and_query();
  memory();
  s = (Sym*)shmem_calloc(1, sizeof(Sym));
  CHECK(s != NULL);
  if (s != NULL) {
    CHECK(shmem_ptr(s, me) == (void*)s);
    CHECK(shmem_addr_accessible(s, right) == 1);
    rma(s, left, right);
    amo(s, left, right);
    signals(s, left, right);
    wait_and_test(s, right);
    ordering_and_locks(s);
    shmem_free(s);
  }
  if (failures == 0 && me == 0) printf("api_compile: %d PE(s) OK\n", npes);
  shmem_finalize();
  return failures == 0 ? 0 : 1;
}
