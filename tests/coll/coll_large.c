/*
 * coll_large.c - 64 MiB collectives: a sum reduction of 64 MiB of longs (out of place and in
 * place) and an fcollect of 64 MiB per PE, on SHMEM_TEAM_WORLD, every element checked.
 * Registered at 2 PEs with SHMEM_SYMMETRIC_SIZE=512M.
 */
#include <shmem.h>

#include "check.h"

#define BYTES ((size_t)64 << 20)
#define NELEMS (BYTES / sizeof(long))

static long value(int pe, size_t i) { return (long)(i * 3 + (size_t)pe * 1000003u) % 1000000007L; }

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  long* a = (long*)shmem_malloc(BYTES);
  long* b = (long*)shmem_malloc(BYTES * (size_t)npes);
  CHECK(a != NULL && b != NULL);
  if (!a || !b) return check_finish("coll_large");

  for (size_t i = 0; i < NELEMS; ++i) a[i] = value(me, i);
  CHECK_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, b, a, NELEMS), 0);
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < NELEMS; ++i) {
    long e = 0;
    for (int p = 0; p < npes; ++p) e += value(p, i);
    if (b[i] != e && !bad++) first = i;
  }
  CHECKF(bad == 0, "64 MiB sum_reduce: %zu wrong, first at %zu", bad, first);

  CHECK_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, a, a, NELEMS), 0); /* in place */
  bad = 0;
  for (size_t i = 0; i < NELEMS; ++i)
    if (a[i] != b[i] && !bad++) first = i;
  CHECKF(bad == 0, "64 MiB in-place sum_reduce: %zu wrong, first at %zu", bad, first);

  for (size_t i = 0; i < NELEMS; ++i) a[i] = value(me + 7, i);
  CHECK_EQ(shmem_long_fcollect(SHMEM_TEAM_WORLD, b, a, NELEMS), 0);
  bad = 0;
  for (int p = 0; p < npes; ++p)
    for (size_t i = 0; i < NELEMS; ++i)
      if (b[(size_t)p * NELEMS + i] != value(p + 7, i) && !bad++) first = (size_t)p * NELEMS + i;
  CHECKF(bad == 0, "64 MiB fcollect: %zu wrong, first at %zu", bad, first);

  shmem_free(a);
  shmem_free(b);
  return check_finish("coll_large");
}
