/*
 * pe_range.c - RMA whose range runs past the end of the symmetric heap or the static data,
 * without SHMEM_DEBUG: the default check of the whole range (start and end) ends the job with
 * the routine, the argument and the sizes (tests/pe/CMakeLists.txt checks the messages).
 *   put | get        2 GiB more than the heap holds from a 1 KiB allocation, to/from PE 1
 *   static           a put of 1 Mi longs into a global array of 4
 *   iput             a strided put whose last element lies past the static data
 *   p-end            a one-element put of a long at the heap's last 4 bytes
 *   alltoall         shmem_alltoallmem with more bytes per PE than the heap holds
 *   fits             the same calls sized right: must complete (exit 0, "pe_range: OK")
 * Every PE makes the bad call, so the job ends whichever PE reports first.
 */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long globals[4];

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  shmem_init();
  const int peer = 1 % shmem_n_pes();
  const size_t heap = (size_t)1 << 20; /* run with SHMEM_SYMMETRIC_SIZE=1M */
  char* obj = shmem_malloc(1024);
  char* local = malloc(4096);
  if (!obj || !local) return 2;
  memset(local, 7, 4096);
  if (!strcmp(mode, "put")) {
    shmem_putmem(obj, local, heap + ((size_t)2 << 30), peer);
  } else if (!strcmp(mode, "get")) {
    shmem_getmem(local, obj, heap + ((size_t)2 << 30), peer);
  } else if (!strcmp(mode, "static")) {
    shmem_long_put(globals, (const long*)local, (size_t)1 << 20, peer);
  } else if (!strcmp(mode, "iput")) {
    shmem_long_iput(globals, (const long*)local, 1 << 20, 1, 2, peer);
  } else if (!strcmp(mode, "p-end")) {
    /* The heap's last bytes: the allocation fills the rest of the heap after obj. */
    char* rest = shmem_malloc(heap - 1024);
    if (!rest) return 3;
    shmem_long_p((long*)(rest + (heap - 1024) - 4), 1, peer);
  } else if (!strcmp(mode, "alltoall")) {
    shmem_alltoallmem(SHMEM_TEAM_WORLD, obj, obj, heap);
  } else if (!strcmp(mode, "fits")) {
    shmem_putmem(obj, local, 1024, peer);
    shmem_getmem(local, obj, 1024, peer);
    shmem_long_put(globals, (const long*)local, 4, peer);
    shmem_long_iput(globals, (const long*)local, 2, 1, 2, peer);
    shmem_barrier_all();
    printf("pe_range: OK\n");
  } else {
    fprintf(stderr, "pe_range: unknown mode '%s'\n", mode);
    free(local);
    return 2;
  }
  free(local);
  shmem_free(obj);
  shmem_finalize();
  return 0;
}
