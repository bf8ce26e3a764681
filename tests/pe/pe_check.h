/*
 * pe_check.h - tiny self-check helpers for the multi-PE test programs (C11 and C++).
 *
 * A failed check prints "PE n: FAIL file:line: what (got X, expected Y)" to stderr and is
 * counted; the program keeps going (so the other PEs are not left waiting in a barrier) and
 * pe_check_finish() turns the count into the exit status. Only the first few failures of a PE
 * are printed.
 */
#ifndef SHMEM_TESTS_PE_CHECK_H
#define SHMEM_TESTS_PE_CHECK_H

#include <shmem.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
#define PE_CHECK_UNUSED [[maybe_unused]]
#else
#define PE_CHECK_UNUSED __attribute__((unused))
#endif

static long pe_check_failures_ = 0;
enum { PE_CHECK_MAX_PRINTED = 20 };

PE_CHECK_UNUSED static void pe_check_fail_(const char* file, int line, const char* fmt, ...) {
  ++pe_check_failures_;
  if (pe_check_failures_ > PE_CHECK_MAX_PRINTED) return;
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "PE %d: FAIL %s:%d: %s\n", shmem_my_pe(), file, line, msg);
  if (pe_check_failures_ == PE_CHECK_MAX_PRINTED)
    fprintf(stderr, "PE %d: (further failures not printed)\n", shmem_my_pe());
  fflush(stderr);
}

/* Plain condition. */
#define CHECK(cond)                                                     \
  do {                                                                  \
    if (!(cond)) pe_check_fail_(__FILE__, __LINE__, "%s", #cond);       \
  } while (0)

/* Condition with a printf-style explanation. */
#define CHECKF(cond, ...)                                               \
  do {                                                                  \
    if (!(cond)) pe_check_fail_(__FILE__, __LINE__, __VA_ARGS__);       \
  } while (0)

/* Value equality for any arithmetic type up to 64 bits (long double represents every such value
 * exactly, so the comparison and the printout are exact). */
#define CHECK_EQ(got, expected)                                                              \
  do {                                                                                       \
    long double pe_g_ = (long double)(got), pe_e_ = (long double)(expected);                  \
    if (!(pe_g_ == pe_e_))                                                                   \
      pe_check_fail_(__FILE__, __LINE__, "%s (got %.21Lg, expected %.21Lg)", #got, pe_g_,    \
                     pe_e_);                                                                 \
  } while (0)

/* Same, with a context string (e.g. the type name or the element index). */
#define CHECK_EQ_AT(got, expected, fmt, ...)                                                   \
  do {                                                                                         \
    long double pe_g_ = (long double)(got), pe_e_ = (long double)(expected);                    \
    if (!(pe_g_ == pe_e_)) {                                                                   \
      char pe_ctx_[256];                                                                       \
      snprintf(pe_ctx_, sizeof pe_ctx_, fmt, __VA_ARGS__);                                     \
      pe_check_fail_(__FILE__, __LINE__, "%s [%s] (got %.21Lg, expected %.21Lg)", #got, pe_ctx_, \
                     pe_g_, pe_e_);                                                            \
    }                                                                                          \
  } while (0)

#define CHECK_PTR_EQ(got, expected)                                                          \
  do {                                                                                       \
    const void* pe_g_ = (const void*)(got);                                                  \
    const void* pe_e_ = (const void*)(expected);                                             \
    if (pe_g_ != pe_e_)                                                                      \
      pe_check_fail_(__FILE__, __LINE__, "%s (got %p, expected %p)", #got, pe_g_, pe_e_);    \
  } while (0)

/* Checks n bytes at got against expected; reports the first differing offset. */
#define CHECK_BYTES(got, expected, n, what)                                                  \
  do {                                                                                       \
    const unsigned char* pe_g_ = (const unsigned char*)(got);                                \
    const unsigned char* pe_e_ = (const unsigned char*)(expected);                           \
    size_t pe_n_ = (n);                                                                      \
    if (memcmp(pe_g_, pe_e_, pe_n_) != 0) {                                                  \
      size_t pe_i_ = 0;                                                                      \
      while (pe_g_[pe_i_] == pe_e_[pe_i_]) ++pe_i_;                                          \
      pe_check_fail_(__FILE__, __LINE__, "%s: byte %zu of %zu (got %u, expected %u)", what,  \
                     pe_i_, pe_n_, (unsigned)pe_g_[pe_i_], (unsigned)pe_e_[pe_i_]);          \
    }                                                                                        \
  } while (0)

/* Finalizes and returns the exit status for main (0 only if every check of this PE passed). */
PE_CHECK_UNUSED static int pe_check_finish(void) {
  int me = shmem_my_pe();
  long failures = pe_check_failures_;
  shmem_finalize();
  if (failures) {
    fprintf(stderr, "PE %d: %ld check(s) failed\n", me, failures);
    return 1;
  }
  return 0;
}

#endif /* SHMEM_TESTS_PE_CHECK_H */
