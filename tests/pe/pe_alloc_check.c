/*
 * pe_alloc_check.c - symmetric allocations that must fail clearly on every PE.
 *   size-max    every PE calls shmem_malloc(SIZE_MAX), shmem_align(64, SIZE_MAX) and
 *               shmem_calloc(SIZE_MAX / 2 + 1, 1): each returns NULL ("impossible"), and the job
 *               goes on (prints "size-max: OK")
 *   mismatch    the last PE asks shmem_malloc for 64 bytes, the others for 128; under
 *               SHMEM_DEBUG=1 the job ends naming both sizes ("NOT STOPPED" if it goes on)
 */
#include <stdint.h>

#include "check.h"

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  if (!strcmp(mode, "size-max")) {
    void* a = shmem_malloc(SIZE_MAX);
    void* b = shmem_align(64, SIZE_MAX);
    void* c = shmem_calloc(SIZE_MAX / 2 + 1, 1);
    long* ok = shmem_malloc(sizeof(long)); /* the heap still works afterwards */
    if (a || b || c || !ok) {
      fprintf(stderr, "PE %d: FAIL: %p %p %p %p\n", me, a, b, c, (void*)ok);
      return 1;
    }
    shmem_long_p(ok, me, (me + 1) % n);
    shmem_barrier_all();
    if (*ok != (me + n - 1) % n) {
      fprintf(stderr, "PE %d: FAIL: got %ld\n", me, *ok);
      return 1;
    }
    if (me == 0) printf("size-max: OK\n");
    shmem_free(ok);
  } else if (!strcmp(mode, "mismatch")) {
    void* p = shmem_malloc(me == n - 1 ? 64 : 128);
    fprintf(stderr, "PE %d: NOT STOPPED: shmem_malloc returned %p\n", me, p);
  } else {
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  shmem_finalize();
  return 0;
}
