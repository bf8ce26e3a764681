/*
 * mpi_pe - shmem_init started by a launcher other than oshrun (Open MPI's mpirun): the PE numbers
 * must be the launcher's, and RMA + barriers must work between the PEs. Links no MPI.
 *
 *   mpirun -n N mpi_pe [N] [twice | no-finalize | fail | late]
 *
 * The expected PE and job size come from OMPI_COMM_WORLD_RANK / OMPI_COMM_WORLD_SIZE, or, when
 * those are unset (a plain PMIx launch), from PMIX_RANK and the argument N. "twice" runs
 * shmem_init ... shmem_finalize two times in the process; "no-finalize" returns from main
 * without shmem_finalize (the library finalises at exit, and the job must still end cleanly);
 * "fail" makes PE 1 exit with status 3 right after shmem_init while the others wait in a barrier:
 * the job must end (mpirun ends it), not hang. "late" makes the last PE call shmem_init 7 s after
 * the others (a slow node): the job still verifies, and PE 0 says meanwhile which PMIx fence it
 * waits in (its first progress line comes after 5 s).
 */
#include <shmem.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define ROUNDS 3

static long slots[1024]; /* one per PE (static data is symmetric) */

static void check_job(long want_pe, long want_npes, int finalize, int fail) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  check_pe_ = me;
  if (fail && me == 1) {
    fprintf(stderr, "mpi_pe: PE 1 fails on purpose\n");
    fflush(NULL);
    _exit(3);
  }
  CHECK_OR_EXIT(me == want_pe, "shmem_my_pe()=%d, the launcher says %ld", me, want_pe);
  CHECK_OR_EXIT(npes == want_npes, "shmem_n_pes()=%d, the launcher says %ld", npes, want_npes);
  CHECK_OR_EXIT(npes <= 1024, "at most 1024 PEs");

  long* heap = shmem_malloc(sizeof(long) * (size_t)npes);
  CHECK_OR_EXIT(heap != NULL, "shmem_malloc of %d longs", npes);
  for (int round = 1; round <= ROUNDS; ++round) {
    /* Every PE writes its slot on every PE: static data with shmem_long_p, heap with a put. */
    const long mine = round * 100000L + me;
    for (int pe = 0; pe < npes; ++pe) {
      shmem_long_p(&slots[me], mine, pe);
      shmem_long_put(&heap[me], &mine, 1, pe);
    }
    shmem_barrier_all();
    for (int pe = 0; pe < npes; ++pe) {
      CHECK_OR_EXIT(slots[pe] == round * 100000L + pe, "round %d: slots[%d]=%ld", round, pe, slots[pe]);
      CHECK_OR_EXIT(heap[pe] == round * 100000L + pe, "round %d: heap[%d]=%ld", round, pe, heap[pe]);
    }
    const int right = (me + 1) % npes;
    const long got = shmem_long_g(&heap[right], right);
    CHECK_OR_EXIT(got == round * 100000L + right, "round %d: shmem_long_g from PE %d returned %ld", round, right, got);
    shmem_barrier_all(); /* nobody starts the next round while another still reads this one */
  }
  shmem_free(heap);
  if (finalize) shmem_finalize();
}

int main(int argc, char** argv) {
  long arg_npes = -1;
  int twice = 0, finalize = 1, fail = 0, late = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "twice") == 0) twice = 1;
    else if (strcmp(argv[i], "no-finalize") == 0) finalize = 0;
    else if (strcmp(argv[i], "fail") == 0) fail = 1;
    else if (strcmp(argv[i], "late") == 0)
      late = 1;
    else arg_npes = strtol(argv[i], NULL, 10);
  }
  const long want_pe = check_env_long("OMPI_COMM_WORLD_RANK", check_env_long("PMIX_RANK", -1));
  const long want_npes = check_env_long("OMPI_COMM_WORLD_SIZE", arg_npes);
  CHECK_OR_EXIT(want_pe >= 0 && want_npes > 0, "start me with mpirun (OMPI_COMM_WORLD_RANK/SIZE or PMIX_RANK + N)");

  if (late && want_pe == want_npes - 1) { /* the scenario itself, not a synchronisation */
    const struct timespec t = {7, 0};
    nanosleep(&t, NULL);
  }
  check_job(want_pe, want_npes, finalize, fail);
  if (twice) check_job(want_pe, want_npes, finalize, fail);
  if (want_pe == 0) printf("mpi_pe: VERIFIED (%ld PEs%s)\n", want_npes, twice ? ", twice" : "");
  return 0;
}
