/*
 * check.h - the self-check helpers of every multi-PE test program (C11 and C++).
 *
 * CHECK and friends count: a failed check prints "PE n: FAIL file:line: what (got X, expected Y)"
 * to stderr and the program carries on, so that the other PEs are not left waiting in a barrier
 * or a collective; check_finish() finalizes and turns the count into the exit status. The counter
 * is updated atomically (checks may run on several threads at once). A PE prints its first 25
 * failures, or CHECK_PRINT from the environment.
 *
 * CHECK_OR_EXIT ends the process at once with _exit(1) (no exit handlers: they would wait in
 * shmem_finalize for PEs that are still running), for programs whose launcher ends the job when
 * one process fails (mpirun). Its messages name check_pe_, which the program sets.
 */
#ifndef SHMEM_TESTS_SUPPORT_CHECK_H
#define SHMEM_TESTS_SUPPORT_CHECK_H

#include <shmem.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __cplusplus
#define CHECK_UNUSED_ [[maybe_unused]]
#else
#define CHECK_UNUSED_ __attribute__((unused))
#endif

static long check_failures_ = 0;
static unsigned long check_count_ = 0; /* checks evaluated by this PE, for the summary line */
CHECK_UNUSED_ static int check_pe_ = -1;            /* CHECK_OR_EXIT's PE number, once the program knows it */
#define CHECK_COUNT_() __atomic_add_fetch(&check_count_, 1, __ATOMIC_RELAXED)

CHECK_UNUSED_ static long check_max_printed_(void) {
  static long limit = -1;
  if (__atomic_load_n(&limit, __ATOMIC_RELAXED) < 0) {
    const char* e = getenv("CHECK_PRINT");
    __atomic_store_n(&limit, e && *e ? atol(e) : 25, __ATOMIC_RELAXED);
  }
  return __atomic_load_n(&limit, __ATOMIC_RELAXED);
}

CHECK_UNUSED_ static long check_failures(void) { return __atomic_load_n(&check_failures_, __ATOMIC_SEQ_CST); }

CHECK_UNUSED_ static void check_fail_(const char* file, int line, const char* fmt, ...) {
  long n = __atomic_add_fetch(&check_failures_, 1, __ATOMIC_SEQ_CST);
  const long max_printed = check_max_printed_();
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

#define CHECK(cond)                                             \
  do {                                                          \
    CHECK_COUNT_();                                             \
    if (!(cond)) check_fail_(__FILE__, __LINE__, "%s", #cond); \
  } while (0)

/* Condition with a printf-style explanation. */
#define CHECKF(cond, ...)                                      \
  do {                                                         \
    CHECK_COUNT_();                                            \
    if (!(cond)) check_fail_(__FILE__, __LINE__, __VA_ARGS__); \
  } while (0)

/* Exact equality of two arithmetic values up to 64 bits: long double holds every such value
 * exactly, so both the comparison and the printout are exact. */
#define CHECK_EQ(got, expected)                                                                  \
  do {                                                                                           \
    long double check_g_ = (long double)(got), check_e_ = (long double)(expected);               \
    CHECK_COUNT_();                                                                              \
    if (!(check_g_ == check_e_))                                                                 \
      check_fail_(__FILE__, __LINE__, "%s (got %.21Lg, expected %.21Lg)", #got, check_g_, check_e_); \
  } while (0)

/* Same, with a printf-style context (type name, element index, team, ...). */
#define CHECK_EQ_AT(got, expected, fmt, ...)                                                            \
  do {                                                                                                  \
    long double check_g_ = (long double)(got), check_e_ = (long double)(expected);                      \
    CHECK_COUNT_();                                                                                     \
    if (!(check_g_ == check_e_)) {                                                                      \
      char check_ctx_[512];                                                                             \
      snprintf(check_ctx_, sizeof check_ctx_, fmt, __VA_ARGS__);                                        \
      check_fail_(__FILE__, __LINE__, "%s [%s] (got %.21Lg, expected %.21Lg)", #got, check_ctx_, check_g_, \
                  check_e_);                                                                            \
    }                                                                                                   \
  } while (0)

#define CHECK_PTR_EQ(got, expected)                                                         \
  do {                                                                                      \
    const void* check_g_ = (const void*)(got);                                              \
    const void* check_e_ = (const void*)(expected);                                         \
    CHECK_COUNT_();                                                                         \
    if (check_g_ != check_e_)                                                               \
      check_fail_(__FILE__, __LINE__, "%s (got %p, expected %p)", #got, check_g_, check_e_); \
  } while (0)

/* n bytes at got against expected; reports the first differing offset. The rest is a
 * printf-style description of what is compared. */
#define CHECK_BYTES(got, expected, n, ...)                                                        \
  do {                                                                                            \
    const unsigned char* check_g_ = (const unsigned char*)(got);                                  \
    const unsigned char* check_e_ = (const unsigned char*)(expected);                             \
    size_t check_n_ = (n);                                                                        \
    CHECK_COUNT_();                                                                               \
    if (check_n_ && memcmp(check_g_, check_e_, check_n_) != 0) {                                  \
      size_t check_i_ = 0;                                                                        \
      while (check_g_[check_i_] == check_e_[check_i_]) ++check_i_;                                \
      char check_ctx_[512];                                                                       \
      snprintf(check_ctx_, sizeof check_ctx_, __VA_ARGS__);                                       \
      check_fail_(__FILE__, __LINE__, "%s: byte %zu of %zu (got %u, expected %u)", check_ctx_,    \
                  check_i_, check_n_, (unsigned)check_g_[check_i_], (unsigned)check_e_[check_i_]); \
    }                                                                                             \
  } while (0)

/* Finalizes and returns main's exit status (0 only if every check of this PE passed). With a
 * name, PE 0 prints "name: OK (PE 0 ran N checks)" on success. */
CHECK_UNUSED_ static int check_finish(const char* name) {
  int me = shmem_my_pe();
  long failures = check_failures();
  shmem_finalize();
  if (failures) {
    if (name)
      fprintf(stderr, "PE %d: %s: %ld check(s) failed\n", me, name, failures);
    else
      fprintf(stderr, "PE %d: %ld check(s) failed\n", me, failures);
    return 1;
  }
  if (name && me == 0) printf("%s: OK (PE 0 ran %lu checks)\n", name, __atomic_load_n(&check_count_, __ATOMIC_RELAXED));
  return 0;
}

/* A failed condition prints "FAILED: PE n: file:line: cond: message" and ends this process. */
#define CHECK_OR_EXIT(cond, ...)                                                              \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      fprintf(stderr, "FAILED: PE %d: %s:%d: %s: ", check_pe_, __FILE__, __LINE__, #cond);    \
      fprintf(stderr, __VA_ARGS__);                                                           \
      fputc('\n', stderr);                                                                    \
      fflush(NULL);                                                                           \
      _exit(1);                                                                               \
    }                                                                                         \
  } while (0)

/* An integer from the environment, or `dflt` when unset or empty. */
CHECK_UNUSED_ static long check_env_long(const char* name, long dflt) {
  const char* v = getenv(name);
  return v && *v ? strtol(v, NULL, 10) : dflt;
}

#endif /* SHMEM_TESTS_SUPPORT_CHECK_H */
