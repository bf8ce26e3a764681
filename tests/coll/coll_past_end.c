/*
 * coll_past_end.c - a collective whose range starts at the symmetric heap's first object and
 * runs past the heap's end (alltoallsmem with a source stride of SST bytes): the job must end
 * with "runs past the end of the symmetric heap" naming the routine and the argument, never
 * "is not symmetric" (issue 32, item 9). Prints "NOT STOPPED" if the call returns.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  shmem_init();
  char* source = shmem_malloc(1024);
  char* dest = shmem_malloc(1024);
  const ptrdiff_t sst = argc > 1 ? atol(argv[1]) : 1024;
  shmem_alltoallsmem(SHMEM_TEAM_WORLD, dest, source, 1, sst, 4);
  printf("PE %d: NOT STOPPED\n", shmem_my_pe());
  shmem_free(dest);
  shmem_free(source);
  shmem_finalize();
  return 0;
}
