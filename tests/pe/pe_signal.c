/*
 * pe_signal.c - put-with-signal for every RMA type (plain/ctx x blocking/nbi x SET/ADD),
 * putmem_signal and putSIZE_signal, signal_fetch, signal_wait_until with every comparison,
 * signal_add / signal_set (1.6) including many PEs adding to one signal, and payload
 * visibility: a receiver that waits on the signal must see every byte of a large payload, and
 * a relay of sets alone (each must reach its target without a quiet).
 */
#include <stdint.h>

#include "check.h"

enum { NEL = 8, NREG = 4 };

static uint64_t sigs[16];      /* static signal words */
static uint64_t ack;           /* receiver -> sender handshake */

static int right_pe(void) { return (shmem_my_pe() + 1) % shmem_n_pes(); }
static int left_pe(void) { return (shmem_my_pe() - 1 + shmem_n_pes()) % shmem_n_pes(); }

static void reset_sigs(void) {
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; ++i) sigs[i] = 0;
}

/* ---- typed put_signal ----------------------------------------------------------------------- */
/* Four regions of NEL elements, each with its own signal: put_signal SET, put_signal_nbi ADD,
 * ctx_put_signal ADD, ctx_put_signal_nbi SET. The receiver waits on each signal, then checks
 * that region. */
#define DEFINE_SIG(T, N)                                                                        \
  static void sig_##N(T* dst) {                                                                 \
    const int me = shmem_my_pe(), tgt = right_pe(), from = left_pe();                           \
    T src[NEL * NREG];                                                                          \
    for (int i = 0; i < NEL * NREG; ++i) {                                                      \
      src[i] = (T)(1 + (me * 13 + i * 7) % 100);                                                \
      dst[i] = (T)120;                                                                          \
    }                                                                                           \
    reset_sigs();                                                                               \
    shmem_barrier_all();                                                                        \
    shmem_##N##_put_signal(dst, src, NEL, &sigs[0], 1000 + (uint64_t)me, SHMEM_SIGNAL_SET, tgt); \
    shmem_##N##_put_signal_nbi(dst + NEL, src + NEL, NEL, &sigs[1], 7, SHMEM_SIGNAL_ADD, tgt);  \
    shmem_ctx_##N##_put_signal(SHMEM_CTX_DEFAULT, dst + 2 * NEL, src + 2 * NEL, NEL, &sigs[2],  \
                               (uint64_t)1 << 40, SHMEM_SIGNAL_ADD, tgt);                       \
    shmem_ctx_##N##_put_signal_nbi(SHMEM_CTX_DEFAULT, dst + 3 * NEL, src + 3 * NEL, NEL,        \
                                   &sigs[3], UINT64_MAX - 1, SHMEM_SIGNAL_SET, tgt);            \
    /* zero elements: only the signal */                                                         \
    shmem_##N##_put_signal(dst, src, 0, &sigs[4], 1, SHMEM_SIGNAL_ADD, tgt);                    \
    shmem_##N##_put_signal_nbi(dst, src, 0, &sigs[4], 1, SHMEM_SIGNAL_ADD, tgt);                \
    shmem_quiet();                                                                              \
    CHECK_EQ(shmem_signal_wait_until(&sigs[0], SHMEM_CMP_EQ, 1000 + (uint64_t)from),            \
             1000 + from);                                                                      \
    CHECK_EQ(shmem_signal_wait_until(&sigs[1], SHMEM_CMP_NE, 0), 7);                            \
    CHECK_EQ(shmem_signal_wait_until(&sigs[2], SHMEM_CMP_GE, (uint64_t)1 << 40),                \
             (uint64_t)1 << 40);                                                                \
    CHECK_EQ(shmem_signal_wait_until(&sigs[3], SHMEM_CMP_EQ, UINT64_MAX - 1), UINT64_MAX - 1);  \
    CHECK_EQ(shmem_signal_wait_until(&sigs[4], SHMEM_CMP_EQ, 2), 2);                            \
    for (int i = 0; i < NEL * NREG; ++i)                                                        \
      CHECK_EQ_AT(dst[i], (T)(1 + (from * 13 + i * 7) % 100), "%s element %d", #N, i);          \
    CHECK_EQ(shmem_signal_fetch(&sigs[0]), 1000 + from);                                        \
    shmem_barrier_all();                                                                        \
  }
SHMEM_RMA_TYPE_TABLE(DEFINE_SIG)
#define RUN_SIG(T, N) sig_##N((T*)heap);

/* ---- sized and mem put_signal ----------------------------------------------------------------- */
typedef void (*PutSig)(int ctx, int nbi, void* d, const void* s, size_t n, uint64_t* sig,
                       uint64_t v, int op, int pe);
#define DEFINE_SIZED_SIG(S)                                                                        \
  static void putsig##S(int ctx, int nbi, void* d, const void* s, size_t n, uint64_t* sig,         \
                        uint64_t v, int op, int pe) {                                              \
    if (ctx && nbi)                                                                                \
      shmem_ctx_put##S##_signal_nbi(SHMEM_CTX_DEFAULT, d, s, n, sig, v, op, pe);                   \
    else if (ctx)                                                                                  \
      shmem_ctx_put##S##_signal(SHMEM_CTX_DEFAULT, d, s, n, sig, v, op, pe);                       \
    else if (nbi)                                                                                  \
      shmem_put##S##_signal_nbi(d, s, n, sig, v, op, pe);                                          \
    else                                                                                           \
      shmem_put##S##_signal(d, s, n, sig, v, op, pe);                                              \
  }
SHMEM_RMA_SIZE_TABLE(DEFINE_SIZED_SIG)
static void putsigmem(int ctx, int nbi, void* d, const void* s, size_t n, uint64_t* sig, uint64_t v,
                      int op, int pe) {
  if (ctx && nbi)
    shmem_ctx_putmem_signal_nbi(SHMEM_CTX_DEFAULT, d, s, n, sig, v, op, pe);
  else if (ctx)
    shmem_ctx_putmem_signal(SHMEM_CTX_DEFAULT, d, s, n, sig, v, op, pe);
  else if (nbi)
    shmem_putmem_signal_nbi(d, s, n, sig, v, op, pe);
  else
    shmem_putmem_signal(d, s, n, sig, v, op, pe);
}
#define SIZED_SIG_ENTRY(S) {putsig##S, (S) / 8, "put" #S "_signal"},
static const struct {
  PutSig fn;
  size_t es;
  const char* name;
} kSizedSig[] = {SHMEM_RMA_SIZE_TABLE(SIZED_SIG_ENTRY){putsigmem, 1, "putmem_signal"}};

static void sized_signals(unsigned char* dst) {
  const int me = shmem_my_pe(), tgt = right_pe(), from = left_pe();
  for (size_t k = 0; k < sizeof kSizedSig / sizeof kSizedSig[0]; ++k) {
    const size_t es = kSizedSig[k].es, bytes = NEL * es;
    unsigned char src[NREG * NEL * 16], exp[NREG * NEL * 16];
    for (size_t i = 0; i < NREG * bytes; ++i) {
      src[i] = (unsigned char)((me * 31 + i * 17 + k) % 251);
      exp[i] = (unsigned char)((from * 31 + i * 17 + k) % 251);
    }
    memset(dst, 0xFF, NREG * bytes);
    reset_sigs();
    shmem_barrier_all();
    for (int r = 0; r < NREG; ++r)
      kSizedSig[k].fn(r & 1, r >> 1, dst + r * bytes, src + r * bytes, NEL, &sigs[r],
                      (uint64_t)(r + 1) * 100 + (uint64_t)me, r & 1 ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET,
                      tgt);
    shmem_quiet();
    for (int r = 0; r < NREG; ++r)
      CHECK_EQ(shmem_signal_wait_until(&sigs[r], SHMEM_CMP_NE, 0), (uint64_t)(r + 1) * 100 + from);
    char what[64];
    snprintf(what, sizeof what, "%s payload", kSizedSig[k].name);
    CHECK_BYTES(dst, exp, NREG * bytes, "%s", what);
    shmem_barrier_all();
  }
}

/* ---- signal_wait_until with every comparison ------------------------------------------------- */
/* Left neighbour drives sigs[8] of this PE step by step; each step waits for the receiver's ack,
 * so every wait starts from a value that does not yet satisfy it. */
static void wait_ack(uint64_t k) { shmem_uint64_wait_until(&ack, SHMEM_CMP_GE, k); }
static void send_ack(int pe) { shmem_uint64_atomic_inc(&ack, pe); }

static void comparisons(void) {
  const int tgt = right_pe(), from = left_pe();
  uint64_t* s = &sigs[8];
  reset_sigs();
  ack = 0;
  shmem_barrier_all();
  /* Sender side (towards tgt) and receiver side (from `from`) interleave on every PE; the
   * sender's step k needs the receiver's ack k, which needs sender step k of `from`: every PE
   * sends step k, then receives step k, then acks, so no cycle blocks. */
  const struct {
    int op;         /* 0 set, 1 add, 2 ctx set, 3 ctx add */
    uint64_t value;
    int cmp;
    uint64_t cmp_value;
    uint64_t expect;
  } steps[] = {
      {0, 5, SHMEM_CMP_EQ, 5, 5},
      {2, 6, SHMEM_CMP_NE, 5, 6},
      {1, 4, SHMEM_CMP_GT, 9, 10},
      {3, 1, SHMEM_CMP_GE, 11, 11},
      {0, 3, SHMEM_CMP_LT, 4, 3},
      {2, 2, SHMEM_CMP_LE, 2, 2},
      {0, (uint64_t)1 << 63, SHMEM_CMP_GT, UINT64_MAX >> 1, (uint64_t)1 << 63},
      {1, 7, SHMEM_CMP_EQ, ((uint64_t)1 << 63) + 7, ((uint64_t)1 << 63) + 7},
      {3, UINT64_MAX - ((uint64_t)1 << 63) - 7, SHMEM_CMP_EQ, UINT64_MAX, UINT64_MAX},
      {2, 0, SHMEM_CMP_LE, 0, 0},
  };
  for (size_t k = 0; k < sizeof steps / sizeof steps[0]; ++k) {
    wait_ack(k); /* our receiver (tgt) has finished step k-1 */
    switch (steps[k].op) {
      case 0: shmem_signal_set(s, steps[k].value, tgt); break;
      case 1: shmem_signal_add(s, steps[k].value, tgt); break;
      case 2: shmem_ctx_signal_set(SHMEM_CTX_DEFAULT, s, steps[k].value, tgt); break;
      default: shmem_ctx_signal_add(SHMEM_CTX_DEFAULT, s, steps[k].value, tgt); break;
    }
    uint64_t got = shmem_signal_wait_until(s, steps[k].cmp, steps[k].cmp_value);
    CHECKF(got == steps[k].expect, "step %zu: signal_wait_until returned %llu, expected %llu", k,
           (unsigned long long)got, (unsigned long long)steps[k].expect);
    CHECK_EQ(shmem_signal_fetch(s), steps[k].expect);
    send_ack(from);
  }
  wait_ack(sizeof steps / sizeof steps[0]);
  shmem_barrier_all();
}

/* ---- many PEs adding to one signal ------------------------------------------------------------ */
static void many_adders(void) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int k = 100;
  reset_sigs();
  shmem_barrier_all();
  for (int i = 0; i < k; ++i) {
    if (i % 2)
      shmem_signal_add(&sigs[12], (uint64_t)me + 1, 0);
    else
      shmem_ctx_signal_add(SHMEM_CTX_DEFAULT, &sigs[12], (uint64_t)me + 1, 0);
  }
  if (me == 0) {
    const uint64_t total = (uint64_t)k * (uint64_t)n * (uint64_t)(n + 1) / 2;
    CHECK_EQ(shmem_signal_wait_until(&sigs[12], SHMEM_CMP_GE, total), total);
  }
  shmem_barrier_all();
}

/* ---- payload visibility ---------------------------------------------------------------------- */
static void fill_payload(unsigned char* b, size_t n, int pe, int iter) {
  uint32_t x = 2166136261u ^ (uint32_t)(pe * 977 + iter * 131);
  for (size_t i = 0; i < n; i += 4) {
    x = x * 1664525u + 1013904223u;
    memcpy(b + i, &x, 4);
  }
}

static void payload_visibility(unsigned char* dst, size_t bytes, int iters) {
  const int me = shmem_my_pe(), tgt = right_pe(), from = left_pe();
  unsigned char* src = malloc(bytes);
  unsigned char* exp = malloc(bytes);
  if (!src || !exp) shmem_global_exit(1);
  reset_sigs();
  ack = 0;
  memset(dst, 0, bytes);
  shmem_barrier_all();
  for (int it = 1; it <= iters; ++it) {
    /* Send iteration `it` once the receiver has checked iteration it-1. */
    wait_ack((uint64_t)it - 1);
    fill_payload(src, bytes, me, it);
    switch (it % 4) {
      case 0: shmem_putmem_signal(dst, src, bytes, &sigs[14], (uint64_t)it, SHMEM_SIGNAL_SET, tgt); break;
      case 1: shmem_putmem_signal_nbi(dst, src, bytes, &sigs[14], 1, SHMEM_SIGNAL_ADD, tgt); break;
      case 2: shmem_put64_signal(dst, src, bytes / 8, &sigs[14], 1, SHMEM_SIGNAL_ADD, tgt); break;
      default:
        shmem_ctx_put32_signal_nbi(SHMEM_CTX_DEFAULT, dst, src, bytes / 4, &sigs[14], (uint64_t)it,
                                   SHMEM_SIGNAL_SET, tgt);
        break;
    }
    uint64_t got = shmem_signal_wait_until(&sigs[14], SHMEM_CMP_GE, (uint64_t)it);
    CHECKF(got == (uint64_t)it, "iteration %d: signal is %llu", it, (unsigned long long)got);
    fill_payload(exp, bytes, from, it);
    if (memcmp(dst, exp, bytes) != 0) {
      char what[64];
      snprintf(what, sizeof what, "payload of iteration %d", it);
      CHECK_BYTES(dst, exp, bytes, "%s", what);
    }
    shmem_quiet(); /* our nbi source buffer is reusable */
    send_ack(from);
  }
  wait_ack((uint64_t)iters);
  shmem_barrier_all();
  free(src);
  free(exp);
}

/* ---- sets as the only messages ---------------------------------------------------------------
 * A set completes at quiet (across hosts it no longer waits for the target's reply), but it must
 * still reach the target on its own: each PE hands a token to its right neighbour with nothing
 * but shmem_signal_set / shmem_uint64_atomic_set and waits for the left one's, no quiet, fence or
 * barrier in between. A set left waiting in a send queue hangs this (the test's timeout). */
static void set_relay(int laps) {
  const int me = shmem_my_pe(), tgt = right_pe();
  uint64_t* s = &sigs[15];
  reset_sigs();
  shmem_barrier_all();
  for (uint64_t lap = 1; lap <= (uint64_t)laps; ++lap) {
    /* PE 0 starts each lap; every other PE passes on what reached it. */
    if (me != 0) shmem_signal_wait_until(s, SHMEM_CMP_GE, lap);
    if (lap & 1)
      shmem_signal_set(s, lap, tgt);
    else
      shmem_uint64_atomic_set(s, lap, tgt);
    if (me == 0) CHECK_EQ(shmem_signal_wait_until(s, SHMEM_CMP_GE, lap), lap);
  }
  CHECK_EQ(shmem_signal_fetch(s), (uint64_t)laps);
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  const size_t payload = 1u << 20;
  void* heap = shmem_malloc(payload);
  CHECK(heap != NULL);
  if (!heap) shmem_global_exit(1);

  SHMEM_RMA_TYPE_TABLE(RUN_SIG)
  sized_signals(heap);
  comparisons();
  many_adders();
  payload_visibility(heap, payload, shmem_n_pes() > 4 ? 24 : 64);
  /* Not a whole number of the transports' pieces or chunks (across hosts: 128 KiB pieces). */
  payload_visibility(heap, (300u << 10) + 8, 16);
  set_relay(32);

  shmem_free(heap);
  if (shmem_my_pe() == 0 && check_failures_ == 0) printf("pe_signal: OK\n");
  return check_finish(NULL);
}
