/*
 * pe_memory_exhaust.c - run with SHMEM_SYMMETRIC_SIZE=8M: allocations that cannot fit return
 * NULL on every PE (the log names SHMEM_SYMMETRIC_SIZE; the wrapper checks it), a failed
 * realloc leaves the block unchanged, and the heap stays usable afterwards.
 */
#include "check.h"

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const size_t mib = 1u << 20;

  CHECK(shmem_malloc(16 * mib) == NULL);
  CHECK(shmem_calloc(16, mib) == NULL);
  CHECK(shmem_align(4096, 16 * mib) == NULL);
  CHECK(shmem_malloc_with_hints(16 * mib, SHMEM_MALLOC_ATOMICS_REMOTE) == NULL);
  CHECK(shmem_malloc(SIZE_MAX / 2) == NULL);
  CHECK(shmem_calloc(SIZE_MAX / 2, 4) == NULL); /* count * size overflows */

  /* A block that fits, filled; growing it past the heap fails and keeps it intact. */
  unsigned char* p = shmem_malloc(mib);
  CHECK(p != NULL);
  if (!p) shmem_global_exit(1);
  for (size_t i = 0; i < mib; ++i) p[i] = (unsigned char)(i * 7 + me);
  CHECK(shmem_realloc(p, 64 * mib) == NULL);
  size_t bad = 0;
  for (size_t i = 0; i < mib; ++i) bad += p[i] != (unsigned char)(i * 7 + me);
  CHECK_EQ(bad, 0);

  /* Fill the heap with 1 MiB blocks until it is full: at least 4 must fit in 8M. */
  void* blocks[64];
  int count = 0;
  while (count < 64 && (blocks[count] = shmem_malloc(mib)) != NULL) ++count;
  CHECKF(count >= 4 && count < 8, "%d more 1 MiB blocks fitted in an 8 MiB heap", count);
  for (int i = count - 1; i >= 0; --i) shmem_free(blocks[i]);

  /* Still usable: ring put into the surviving block. */
  shmem_putmem(p + mib / 2, p, mib / 2, (me + 1) % n);
  shmem_barrier_all();
  bad = 0;
  for (size_t i = 0; i < mib / 2; ++i) bad += p[mib / 2 + i] != (unsigned char)(i * 7 + (me - 1 + n) % n);
  CHECK_EQ(bad, 0);
  shmem_free(p);
  void* again = shmem_malloc(4 * mib);
  CHECK(again != NULL);
  shmem_free(again);

  if (me == 0 && check_failures_ == 0) printf("pe_memory_exhaust: OK\n");
  return check_finish(NULL);
}
