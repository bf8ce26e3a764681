/*
 * pe_wait.c - point-to-point synchronization: wait_until and test for every point-to-point
 * synchronization type and every comparison (driven by the left neighbour, step by step), the
 * multi-variable forms wait_until_{all,any,some}[_vector] and test_{all,any,some}[_vector]
 * for every type that has them (status masks, nelems 0, all-excluded), and the deprecated
 * shmem_wait / shmem_wait_until / shmem_TYPENAME_wait.
 */
#include <sched.h>
#include <stdint.h>

#include "check.h"

static long ack;

static int right_pe(void) { return (shmem_my_pe() + 1) % shmem_n_pes(); }
static int left_pe(void) { return (shmem_my_pe() - 1 + shmem_n_pes()) % shmem_n_pes(); }

/* Handshake counter: the receiver (right) acks each step to its sender (left). */
static void reset_ack(void) { ack = 0; }
static void wait_ack(long k) { shmem_long_wait_until(&ack, SHMEM_CMP_GE, k); }
static void send_ack(void) { shmem_long_atomic_inc(&ack, left_pe()); }

/* ---- single variable: each comparison, driven remotely -------------------------------------- */
/* The sender writes step k's value; the receiver waits with step k's comparison (which the
 * previous value does not satisfy) and checks test() for a satisfied and an unsatisfied case. */
static const struct {
  int cmp;
  int value;     /* written by the sender */
  int cmp_value; /* waited for */
  int false_cmp; /* a comparison that must test false on `value` */
  int false_value;
} kSteps[] = {
    {SHMEM_CMP_EQ, 5, 5, SHMEM_CMP_NE, 5},  {SHMEM_CMP_NE, 6, 5, SHMEM_CMP_EQ, 5},
    {SHMEM_CMP_GT, 10, 9, SHMEM_CMP_GT, 10}, {SHMEM_CMP_GE, 11, 11, SHMEM_CMP_LT, 11},
    {SHMEM_CMP_LT, 3, 4, SHMEM_CMP_LT, 3},   {SHMEM_CMP_LE, 2, 2, SHMEM_CMP_GE, 3},
    {SHMEM_CMP_GE, 100, 50, SHMEM_CMP_LE, 99}, {SHMEM_CMP_EQ, -7, -7, SHMEM_CMP_GE, -6},
};
enum { NSTEPS = sizeof kSteps / sizeof kSteps[0] };

#define DEFINE_SINGLE(T, N)                                                                    \
  static T single_##N;                                                                         \
  static void single_test_##N(void) {                                                          \
    single_##N = 0;                                                                            \
    reset_ack();                                                                               \
    shmem_barrier_all();                                                                       \
    for (int k = 0; k < NSTEPS; ++k) {                                                         \
      wait_ack(k);                                                                             \
      shmem_##N##_p(&single_##N, (T)kSteps[k].value, right_pe());                              \
      shmem_##N##_wait_until(&single_##N, kSteps[k].cmp, (T)kSteps[k].cmp_value);              \
      CHECK_EQ_AT(single_##N, (T)kSteps[k].value, "%s step %d", #N, k);                        \
      /* again: the condition holds on entry (the shims' inline check, core/hot.hpp) */        \
      shmem_##N##_wait_until(&single_##N, kSteps[k].cmp, (T)kSteps[k].cmp_value);              \
      CHECK_EQ_AT(shmem_##N##_test(&single_##N, kSteps[k].cmp, (T)kSteps[k].cmp_value), 1,     \
                  "%s step %d test true", #N, k);                                              \
      CHECK_EQ_AT(shmem_##N##_test(&single_##N, kSteps[k].false_cmp, (T)kSteps[k].false_value), \
                  0, "%s step %d test false", #N, k);                                          \
      send_ack();                                                                              \
    }                                                                                          \
    wait_ack(NSTEPS);                                                                          \
    shmem_barrier_all();                                                                       \
  }
SHMEM_P2P_TYPE_TABLE(DEFINE_SINGLE)
#define RUN_SINGLE(T, N) single_test_##N();

/* ---- multiple variables --------------------------------------------------------------------- */
enum { NV = 8 };

#define DEFINE_MULTI(T, N)                                                                      \
  static T multi_##N[NV];                                                                       \
  static void multi_local_##N(void) {                                                           \
    /* Local checks: values 0..7 set by this PE, no blocking. */                                \
    T* iv = multi_##N;                                                                          \
    size_t idx[NV];                                                                             \
    T cmpv[NV];                                                                                 \
    int st[NV] = {0};                                                                           \
    const int none[NV] = {1, 1, 1, 1, 1, 1, 1, 1};                                              \
    for (int i = 0; i < NV; ++i) iv[i] = (T)i;                                                  \
    CHECK_EQ_AT(shmem_##N##_test_all(iv, NV, NULL, SHMEM_CMP_GE, (T)0), 1, "%s", #N);           \
    CHECK_EQ_AT(shmem_##N##_test_all(iv, NV, NULL, SHMEM_CMP_GT, (T)0), 0, "%s", #N);           \
    st[0] = 1;                                                                                  \
    CHECK_EQ_AT(shmem_##N##_test_all(iv, NV, st, SHMEM_CMP_GT, (T)0), 1, "%s", #N);             \
    CHECK_EQ_AT(shmem_##N##_test_all(iv, 0, NULL, SHMEM_CMP_EQ, (T)99), 1, "%s nelems 0", #N);  \
    CHECK_EQ_AT(shmem_##N##_test_all(iv, NV, none, SHMEM_CMP_EQ, (T)99), 1, "%s none", #N);     \
    CHECK_EQ_AT(shmem_##N##_test_any(iv, NV, NULL, SHMEM_CMP_EQ, (T)5), 5, "%s", #N);           \
    CHECK_EQ_AT(shmem_##N##_test_any(iv, NV, NULL, SHMEM_CMP_EQ, (T)9), SIZE_MAX, "%s", #N);    \
    st[0] = 0;                                                                                  \
    st[5] = 1;                                                                                  \
    CHECK_EQ_AT(shmem_##N##_test_any(iv, NV, st, SHMEM_CMP_EQ, (T)5), SIZE_MAX, "%s", #N);      \
    CHECK_EQ_AT(shmem_##N##_test_any(iv, 0, NULL, SHMEM_CMP_GE, (T)0), SIZE_MAX, "%s", #N);     \
    CHECK_EQ_AT(shmem_##N##_test_any(iv, NV, none, SHMEM_CMP_GE, (T)0), SIZE_MAX, "%s", #N);    \
    {                                                                                           \
      size_t a = shmem_##N##_test_any(iv, NV, NULL, SHMEM_CMP_LE, (T)1);                        \
      CHECKF(a == 0 || a == 1, "%s test_any LE 1 returned %zu", #N, a);                         \
    }                                                                                           \
    st[5] = 0;                                                                                  \
    for (int i = 0; i < NV; ++i) idx[i] = 99;                                                   \
    size_t cnt = shmem_##N##_test_some(iv, NV, idx, NULL, SHMEM_CMP_GE, (T)6);                  \
    CHECK_EQ_AT(cnt, 2, "%s test_some", #N);                                                    \
    if (cnt == 2) CHECKF((idx[0] == 6 && idx[1] == 7) || (idx[0] == 7 && idx[1] == 6),          \
                         "%s test_some indices %zu %zu", #N, idx[0], idx[1]);                   \
    st[7] = 1;                                                                                  \
    cnt = shmem_##N##_test_some(iv, NV, idx, st, SHMEM_CMP_GE, (T)6);                           \
    CHECK_EQ_AT(cnt, 1, "%s test_some masked", #N);                                             \
    CHECK_EQ_AT(idx[0], 6, "%s test_some masked index", #N);                                    \
    CHECK_EQ_AT(shmem_##N##_test_some(iv, NV, idx, NULL, SHMEM_CMP_GT, (T)7), 0, "%s", #N);     \
    CHECK_EQ_AT(shmem_##N##_test_some(iv, 0, idx, NULL, SHMEM_CMP_GE, (T)0), 0, "%s", #N);      \
    CHECK_EQ_AT(shmem_##N##_test_some(iv, NV, idx, none, SHMEM_CMP_GE, (T)0), 0, "%s", #N);     \
    st[7] = 0;                                                                                  \
    /* vector forms: element i compared with cmpv[i] */                                         \
    for (int i = 0; i < NV; ++i) cmpv[i] = (T)i;                                                \
    CHECK_EQ_AT(shmem_##N##_test_all_vector(iv, NV, NULL, SHMEM_CMP_EQ, cmpv), 1, "%s", #N);    \
    cmpv[3] = (T)4;                                                                             \
    CHECK_EQ_AT(shmem_##N##_test_all_vector(iv, NV, NULL, SHMEM_CMP_EQ, cmpv), 0, "%s", #N);    \
    st[3] = 1;                                                                                  \
    CHECK_EQ_AT(shmem_##N##_test_all_vector(iv, NV, st, SHMEM_CMP_EQ, cmpv), 1, "%s", #N);      \
    CHECK_EQ_AT(shmem_##N##_test_any_vector(iv, NV, NULL, SHMEM_CMP_LT, cmpv), 3, "%s", #N);    \
    CHECK_EQ_AT(shmem_##N##_test_any_vector(iv, NV, st, SHMEM_CMP_LT, cmpv), SIZE_MAX, "%s", #N); \
    CHECK_EQ_AT(shmem_##N##_test_any_vector(iv, 0, NULL, SHMEM_CMP_EQ, cmpv), SIZE_MAX, "%s", #N); \
    st[3] = 0;                                                                                  \
    cmpv[6] = (T)0;                                                                             \
    cnt = shmem_##N##_test_some_vector(iv, NV, idx, NULL, SHMEM_CMP_NE, cmpv);                  \
    CHECK_EQ_AT(cnt, 2, "%s test_some_vector", #N);                                             \
    if (cnt == 2) CHECKF((idx[0] == 3 && idx[1] == 6) || (idx[0] == 6 && idx[1] == 3),          \
                         "%s test_some_vector indices %zu %zu", #N, idx[0], idx[1]);            \
    CHECK_EQ_AT(shmem_##N##_test_some_vector(iv, NV, idx, none, SHMEM_CMP_NE, cmpv), 0, "%s", #N); \
    CHECK_EQ_AT(shmem_##N##_test_some_vector(iv, 0, idx, NULL, SHMEM_CMP_NE, cmpv), 0, "%s", #N); \
    /* blocking forms whose condition already holds, or whose wait set is empty */              \
    shmem_##N##_wait_until_all(iv, NV, NULL, SHMEM_CMP_LT, (T)8);                               \
    shmem_##N##_wait_until_all(iv, 0, NULL, SHMEM_CMP_EQ, (T)99);                               \
    shmem_##N##_wait_until_all(iv, NV, none, SHMEM_CMP_EQ, (T)99);                              \
    CHECK_EQ_AT(shmem_##N##_wait_until_any(iv, NV, NULL, SHMEM_CMP_EQ, (T)3), 3, "%s", #N);     \
    CHECK_EQ_AT(shmem_##N##_wait_until_any(iv, 0, NULL, SHMEM_CMP_EQ, (T)3), SIZE_MAX, "%s", #N); \
    CHECK_EQ_AT(shmem_##N##_wait_until_any(iv, NV, none, SHMEM_CMP_EQ, (T)3), SIZE_MAX, "%s", #N); \
    cnt = shmem_##N##_wait_until_some(iv, NV, idx, NULL, SHMEM_CMP_LT, (T)1);                   \
    CHECK_EQ_AT(cnt, 1, "%s wait_until_some", #N);                                              \
    CHECK_EQ_AT(idx[0], 0, "%s wait_until_some index", #N);                                     \
    CHECK_EQ_AT(shmem_##N##_wait_until_some(iv, 0, idx, NULL, SHMEM_CMP_LT, (T)1), 0, "%s", #N); \
    CHECK_EQ_AT(shmem_##N##_wait_until_some(iv, NV, idx, none, SHMEM_CMP_LT, (T)1), 0, "%s", #N); \
    for (int i = 0; i < NV; ++i) cmpv[i] = (T)i;                                                \
    shmem_##N##_wait_until_all_vector(iv, NV, NULL, SHMEM_CMP_EQ, cmpv);                        \
    shmem_##N##_wait_until_all_vector(iv, 0, NULL, SHMEM_CMP_NE, cmpv);                         \
    CHECK_EQ_AT(shmem_##N##_wait_until_any_vector(iv, NV, NULL, SHMEM_CMP_GE, cmpv) < NV, 1,    \
                "%s", #N);                                                                      \
    CHECK_EQ_AT(shmem_##N##_wait_until_any_vector(iv, NV, none, SHMEM_CMP_GE, cmpv), SIZE_MAX,  \
                "%s", #N);                                                                      \
    cnt = shmem_##N##_wait_until_some_vector(iv, NV, idx, NULL, SHMEM_CMP_EQ, cmpv);            \
    CHECK_EQ_AT(cnt >= 1 && cnt <= NV, 1, "%s wait_until_some_vector count %zu", #N, cnt);      \
    CHECK_EQ_AT(shmem_##N##_wait_until_some_vector(iv, 0, idx, NULL, SHMEM_CMP_EQ, cmpv), 0,    \
                "%s", #N);                                                                      \
  }                                                                                             \
  static void multi_remote_##N(void) {                                                          \
    /* The left neighbour writes this PE's array; the waits must return only on its writes. */  \
    T* iv = multi_##N;                                                                          \
    const int tgt = right_pe();                                                                 \
    size_t idx[NV];                                                                             \
    T cmpv[NV];                                                                                 \
    int st[NV] = {0};                                                                           \
    /* wait_until_any with element 0 masked out: the sender writes 0 first, then 5. */          \
    for (int i = 0; i < NV; ++i) iv[i] = 0;                                                     \
    shmem_barrier_all();                                                                        \
    shmem_##N##_p(&iv[0], (T)1, tgt);                                                           \
    shmem_fence();                                                                              \
    shmem_##N##_p(&iv[5], (T)1, tgt);                                                           \
    st[0] = 1;                                                                                  \
    CHECK_EQ_AT(shmem_##N##_wait_until_any(iv, NV, st, SHMEM_CMP_NE, (T)0), 5, "%s any", #N);   \
    st[0] = 0;                                                                                  \
    shmem_barrier_all();                                                                        \
    /* wait_until_all with element 7 masked out: the sender writes 0..6, one by one. */        \
    for (int i = 0; i < NV; ++i) iv[i] = 0;                                                     \
    shmem_barrier_all();                                                                        \
    for (int i = 0; i < NV - 1; ++i) shmem_##N##_atomic_set(&iv[i], (T)(10 + i), tgt);          \
    st[7] = 1;                                                                                  \
    shmem_##N##_wait_until_all(iv, NV, st, SHMEM_CMP_GE, (T)10);                                \
    for (int i = 0; i < NV - 1; ++i) CHECK_EQ_AT(iv[i], 10 + i, "%s all [%d]", #N, i);          \
    CHECK_EQ_AT(iv[7], 0, "%s all masked", #N);                                                 \
    st[7] = 0;                                                                                  \
    shmem_barrier_all();                                                                        \
    /* wait_until_some: the sender writes 2 and 4; collect both, maybe over several calls. */   \
    for (int i = 0; i < NV; ++i) iv[i] = 0;                                                     \
    shmem_barrier_all();                                                                        \
    shmem_##N##_atomic_add(&iv[4], (T)2, tgt);                                                  \
    shmem_##N##_atomic_add(&iv[2], (T)2, tgt);                                                  \
    {                                                                                           \
      int seen = 0;                                                                             \
      while (seen != ((1 << 2) | (1 << 4))) {                                                   \
        size_t c = shmem_##N##_wait_until_some(iv, NV, idx, st, SHMEM_CMP_EQ, (T)2);            \
        CHECKF(c >= 1 && c <= 2, "%s wait_until_some returned %zu", #N, c);                     \
        if (c < 1 || c > 2) break;                                                              \
        for (size_t j = 0; j < c; ++j) {                                                        \
          CHECKF(idx[j] == 2 || idx[j] == 4, "%s wait_until_some index %zu", #N, idx[j]);       \
          if (idx[j] < NV) { seen |= 1 << idx[j]; st[idx[j]] = 1; }                             \
        }                                                                                       \
      }                                                                                         \
      for (int i = 0; i < NV; ++i) st[i] = 0;                                                   \
    }                                                                                           \
    shmem_barrier_all();                                                                        \
    /* vector forms: element i must reach 20 + i */                                             \
    for (int i = 0; i < NV; ++i) {                                                              \
      iv[i] = 0;                                                                                \
      cmpv[i] = (T)(20 + i);                                                                    \
    }                                                                                           \
    shmem_barrier_all();                                                                        \
    for (int i = NV - 1; i >= 0; --i) shmem_##N##_p(&iv[i], (T)(20 + i), tgt);                  \
    shmem_##N##_wait_until_all_vector(iv, NV, NULL, SHMEM_CMP_EQ, cmpv);                        \
    for (int i = 0; i < NV; ++i) CHECK_EQ_AT(iv[i], 20 + i, "%s all_vector [%d]", #N, i);       \
    shmem_barrier_all();                                                                        \
    for (int i = 0; i < NV; ++i) iv[i] = 0;                                                     \
    shmem_barrier_all();                                                                        \
    shmem_##N##_p(&iv[6], (T)26, tgt);                                                          \
    CHECK_EQ_AT(shmem_##N##_wait_until_any_vector(iv, NV, NULL, SHMEM_CMP_EQ, cmpv), 6,         \
                "%s any_vector", #N);                                                           \
    {                                                                                           \
      size_t c = shmem_##N##_wait_until_some_vector(iv, NV, idx, NULL, SHMEM_CMP_EQ, cmpv);     \
      CHECK_EQ_AT(c, 1, "%s some_vector", #N);                                                  \
      CHECK_EQ_AT(idx[0], 6, "%s some_vector index", #N);                                       \
    }                                                                                           \
    /* test_* polled until the remote write lands */                                            \
    shmem_barrier_all();                                                                        \
    for (int i = 0; i < NV; ++i) iv[i] = 0;                                                     \
    shmem_barrier_all();                                                                        \
    shmem_##N##_atomic_set(&iv[1], (T)7, tgt);                                                  \
    while (shmem_##N##_test_any(iv, NV, NULL, SHMEM_CMP_EQ, (T)7) == SIZE_MAX) sched_yield();   \
    while (!shmem_##N##_test_all_vector(iv, 2, NULL, SHMEM_CMP_GE, (T[]){0, 7})) sched_yield(); \
    while (shmem_##N##_test_some(iv, NV, idx, NULL, SHMEM_CMP_GT, (T)0) == 0) sched_yield();    \
    CHECK_EQ_AT(idx[0], 1, "%s test_some polled", #N);                                          \
    CHECK_EQ_AT(shmem_##N##_test_any_vector(iv, NV, NULL, SHMEM_CMP_EQ, cmpv), SIZE_MAX, "%s", #N); \
    shmem_barrier_all();                                                                        \
  }
SHMEM_AMO_STD_TYPE_TABLE(DEFINE_MULTI) /* uses atomics: short forms are in tests/api/api_conform.c */
#define RUN_MULTI(T, N) multi_local_##N(); multi_remote_##N();

/* ---- deprecated ------------------------------------------------------------------------------- */
#define DEFINE_DEP_WAIT(T, N)                                                                  \
  static T depw_##N;                                                                           \
  static void dep_wait_##N(void) {                                                             \
    depw_##N = 3;                                                                              \
    shmem_barrier_all();                                                                       \
    shmem_##N##_p(&depw_##N, (T)4, right_pe());                                                \
    shmem_##N##_wait(&depw_##N, (T)3); /* returns once the value is no longer 3 */            \
    CHECK_EQ_AT(depw_##N, 4, "shmem_%s_wait", #N);                                             \
    shmem_barrier_all();                                                                       \
  }
SHMEM_WAIT_DEPRECATED_TYPE_TABLE(DEFINE_DEP_WAIT)
#define RUN_DEP_WAIT(T, N) dep_wait_##N();

static long dep_long;
static void dep_long_forms(void) {
  dep_long = 0;
  shmem_barrier_all();
  shmem_long_p(&dep_long, 1, right_pe());
  shmem_wait(&dep_long, 0);
  CHECK_EQ(dep_long, 1);
  shmem_barrier_all();
  shmem_long_p(&dep_long, 9, right_pe());
  shmem_wait_until(&dep_long, SHMEM_CMP_GT, 8);
  CHECK_EQ(dep_long, 9);
  /* the deprecated _SHMEM_CMP_* spellings */
  shmem_long_wait_until(&dep_long, _SHMEM_CMP_EQ, 9);
  CHECK_EQ(shmem_long_test(&dep_long, _SHMEM_CMP_LT, 9), 0);
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  SHMEM_P2P_TYPE_TABLE(RUN_SINGLE)
  SHMEM_AMO_STD_TYPE_TABLE(RUN_MULTI)
  SHMEM_WAIT_DEPRECATED_TYPE_TABLE(RUN_DEP_WAIT)
  dep_long_forms();
  if (shmem_my_pe() == 0 && check_failures_ == 0) printf("pe_wait: OK\n");
  return check_finish(NULL);
}
