/*
 * mpi_check.h - the check macro of the tests/mpi programs (C11 and C++).
 *
 * A failed check prints "FAILED: PE n: file:line: what" and ends this process at once with
 * _exit(1) (no exit handlers: they would wait in shmem_finalize for PEs that are still running).
 * mpirun sees a process exit non-zero and ends the whole job, so no PE is left waiting.
 */
#ifndef SHMEM_TESTS_MPI_CHECK_H
#define SHMEM_TESTS_MPI_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int mpi_check_pe_ = -1; /* the PE number once known, for messages */

#define MPI_CHECK(cond, ...)                                                        \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      fprintf(stderr, "FAILED: PE %d: %s:%d: %s: ", mpi_check_pe_, __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                 \
      fputc('\n', stderr);                                                          \
      fflush(NULL);                                                                 \
      _exit(1);                                                                     \
    }                                                                               \
  } while (0)

/* An integer from the environment, or `dflt` when unset or empty. */
static inline long mpi_check_env_long_(const char* name, long dflt) {
  const char* v = getenv(name);
  return v && *v ? strtol(v, NULL, 10) : dflt;
}

#endif /* SHMEM_TESTS_MPI_CHECK_H */
