/*
 * coll_check.h - self-check helpers for the multi-PE team/context/collective tests (C11 and C++).
 *
 * A failed check prints "PE n: FAIL file:line: what (got X, expected Y)" to stderr and is counted;
 * the program carries on, so that the other PEs are not left waiting in a collective, and
 * coll_finish() turns the count into the exit status. The counter is updated atomically: checks
 * may run on several threads at once (the THREAD_MULTIPLE test). Only the first few failures of a
 * PE are printed.
 */
#ifndef SHMEM_TESTS_COLL_CHECK_H
#define SHMEM_TESTS_COLL_CHECK_H

#include <shmem.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
#define COLL_UNUSED [[maybe_unused]]
#else
#define COLL_UNUSED __attribute__((unused))
#endif

static long coll_failures_ = 0;
static unsigned long coll_checks_ = 0; /* checks evaluated by this PE, for the summary line */
#define COLL_COUNT_() __atomic_add_fetch(&coll_checks_, 1, __ATOMIC_RELAXED)
/* How many failures a PE prints: 25, or COLL_CHECK_PRINT from the environment. */
COLL_UNUSED static long coll_max_printed_(void) {
  static long limit = -1;
  if (__atomic_load_n(&limit, __ATOMIC_RELAXED) < 0) {
    const char* e = getenv("COLL_CHECK_PRINT");
    __atomic_store_n(&limit, e && *e ? atol(e) : 25, __ATOMIC_RELAXED);
  }
  return __atomic_load_n(&limit, __ATOMIC_RELAXED);
}

COLL_UNUSED static long coll_failures(void) { return __atomic_load_n(&coll_failures_, __ATOMIC_SEQ_CST); }

COLL_UNUSED static void coll_fail_(const char* file, int line, const char* fmt, ...) {
  long n = __atomic_add_fetch(&coll_failures_, 1, __ATOMIC_SEQ_CST);
  const long max_printed = coll_max_printed_();
  if (n > max_printed) return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "PE %d: FAIL %s:%d: %s\n", shmem_my_pe(), file, line, msg);
  if (n == max_printed) fprintf(stderr, "PE %d: (further failures not printed)\n", shmem_my_pe());
  fflush(stderr);
}

#define CHECK(cond)                                            \
  do {                                                         \
    COLL_COUNT_();                                             \
    if (!(cond)) coll_fail_(__FILE__, __LINE__, "%s", #cond); \
  } while (0)

#define CHECKF(cond, ...)                                          \
  do {                                                             \
    COLL_COUNT_();                                                 \
    if (!(cond)) coll_fail_(__FILE__, __LINE__, __VA_ARGS__);      \
  } while (0)

/* Exact equality of two arithmetic values up to 64 bits: long double holds every such value
 * exactly, so both the comparison and the printout are exact. */
#define CHECK_EQ(got, expected)                                                                      \
  do {                                                                                               \
    long double coll_g_ = (long double)(got), coll_e_ = (long double)(expected);                     \
    COLL_COUNT_();                                                                                   \
    if (!(coll_g_ == coll_e_))                                                                       \
      coll_fail_(__FILE__, __LINE__, "%s (got %.21Lg, expected %.21Lg)", #got, coll_g_, coll_e_);    \
  } while (0)

/* Same, with a printf-style context (type name, element index, team, ...). */
#define CHECK_EQ_AT(got, expected, fmt, ...)                                                          \
  do {                                                                                                \
    long double coll_g_ = (long double)(got), coll_e_ = (long double)(expected);                      \
    COLL_COUNT_();                                                                                    \
    if (!(coll_g_ == coll_e_)) {                                                                      \
      char coll_ctx_[512];                                                                            \
      snprintf(coll_ctx_, sizeof coll_ctx_, fmt, __VA_ARGS__);                                        \
      coll_fail_(__FILE__, __LINE__, "%s [%s] (got %.21Lg, expected %.21Lg)", #got, coll_ctx_, coll_g_, \
                 coll_e_);                                                                            \
    }                                                                                                 \
  } while (0)

#define CHECK_PTR_EQ(got, expected)                                                                \
  do {                                                                                             \
    const void* coll_g_ = (const void*)(got);                                                      \
    const void* coll_e_ = (const void*)(expected);                                                 \
    COLL_COUNT_();                                                                                 \
    if (coll_g_ != coll_e_)                                                                        \
      coll_fail_(__FILE__, __LINE__, "%s (got %p, expected %p)", #got, coll_g_, coll_e_);          \
  } while (0)

/* n bytes at got against expected; reports the first differing offset. */
#define CHECK_BYTES(got, expected, n, ...)                                                         \
  do {                                                                                             \
    const unsigned char* coll_g_ = (const unsigned char*)(got);                                    \
    const unsigned char* coll_e_ = (const unsigned char*)(expected);                               \
    size_t coll_n_ = (n);                                                                          \
    COLL_COUNT_();                                                                                 \
    if (coll_n_ && memcmp(coll_g_, coll_e_, coll_n_) != 0) {                                       \
      size_t coll_i_ = 0;                                                                          \
      while (coll_g_[coll_i_] == coll_e_[coll_i_]) ++coll_i_;                                      \
      char coll_ctx_[512];                                                                         \
      snprintf(coll_ctx_, sizeof coll_ctx_, __VA_ARGS__);                                          \
      coll_fail_(__FILE__, __LINE__, "%s: byte %zu of %zu (got %u, expected %u)", coll_ctx_,       \
                 coll_i_, coll_n_, (unsigned)coll_g_[coll_i_], (unsigned)coll_e_[coll_i_]);        \
    }                                                                                              \
  } while (0)

/* Finalizes and returns main's exit status (0 only if every check of this PE passed). */
COLL_UNUSED static int coll_finish(const char* name) {
  int me = shmem_my_pe();
  long failures = coll_failures();
  shmem_finalize();
  if (failures) {
    fprintf(stderr, "PE %d: %s: %ld check(s) failed\n", me, name, failures);
    return 1;
  }
  if (me == 0) printf("%s: OK (PE 0 ran %lu checks)\n", name, __atomic_load_n(&coll_checks_, __ATOMIC_RELAXED));
  return 0;
}

#endif /* SHMEM_TESTS_COLL_CHECK_H */
