/*
 * startup.c - the smallest OpenSHMEM program: initialise and finalise. bench/compare.sh times
 * `oshrun -n 4 startup` with each library to compare job start-up cost.
 */
#include <shmem.h>

int main(void) {
  shmem_init();
  shmem_finalize();
  return 0;
}
