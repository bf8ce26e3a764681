/* The main demo: a token travels around a ring of PEs with put + signal, every PE adds its
 * rank into a counter on PE 0 with an atomic, and PE 0 checks both results.
 *   oshrun -n 4 ./ring                                                                    */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1024

static long token[N];        /* global variables are symmetric: no allocation needed */
static uint64_t arrived;      /* signal word */
static long rank_sum;         /* atomic target on PE 0 */

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), npes = shmem_n_pes();
  long *local = malloc(sizeof(long) * N);

  /* PE 0 starts the token; each PE adds 1 to every element and passes it on. */
  if (me == 0) {
    for (int i = 0; i < N; i++) local[i] = i;
  } else {
    shmem_signal_wait_until(&arrived, SHMEM_CMP_EQ, 1);
    for (int i = 0; i < N; i++) local[i] = token[i] + 1;
  }
  int next = (me + 1) % npes;
  shmem_long_put_signal(token, local, N, &arrived, 1, SHMEM_SIGNAL_SET, next);
  if (me == 0) shmem_signal_wait_until(&arrived, SHMEM_CMP_EQ, 1);

  shmem_long_atomic_add(&rank_sum, me, 0);
  shmem_barrier_all();

  int status = 0;
  if (me == 0) {
    int bad = 0;
    for (int i = 0; i < N; i++) bad += token[i] != i + (npes - 1);
    long expect = (long)npes * (npes - 1) / 2;
    printf("ring: token passed through %d PEs, %d of %d elements wrong; atomic rank sum %ld (expected %ld)\n", npes,
           bad, N, rank_sum, expect);
    if (bad == 0 && rank_sum == expect) {
      printf("ring: VERIFIED\n");
    } else {
      printf("ring: FAILED\n");
      status = 1;
    }
  }
  free(local);
  shmem_finalize();
  return status;
}
