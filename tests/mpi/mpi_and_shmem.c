/*
 * mpi_and_shmem - an MPI program that also uses shmem_init under mpirun, in either order:
 *
 *   mpirun -n N mpi_and_shmem mpi-first     MPI_Init, shmem_init ... shmem_finalize, MPI_Finalize
 *   mpirun -n N mpi_and_shmem shmem-first   shmem_init, MPI_Init ... MPI_Finalize, shmem_finalize
 *   mpirun -n N mpi_and_shmem shmem-then-mpi  shmem_init ... shmem_finalize, then MPI_Init ...
 *                                            MPI_Finalize (MPI after the library is done)
 *
 * Both libraries must agree on the ranks, and both must work: MPI_Allreduce and MPI_Bcast next to
 * shmem puts and barriers.
 */
#include <mpi.h>
#include <shmem.h>
#include <string.h>

#include "check.h"

static long slots[1024];

static void check_shmem(int me, int npes, int round) {
  for (int pe = 0; pe < npes; ++pe) shmem_long_p(&slots[me], 1000L * me + round, pe);
  shmem_barrier_all();
  for (int pe = 0; pe < npes; ++pe)
    CHECK_OR_EXIT(slots[pe] == 1000L * pe + round, "round %d: slots[%d]=%ld after the barrier", round, pe, slots[pe]);
  shmem_barrier_all(); /* everyone has checked before the next round writes */
}

static void check_mpi(int me, int npes) {
  int sum = 0;
  CHECK_OR_EXIT(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS, "MPI_Allreduce");
  CHECK_OR_EXIT(sum == npes * (npes - 1) / 2, "MPI_Allreduce sum of ranks = %d", sum);
  long token = me == 0 ? 424242L : 0;
  CHECK_OR_EXIT(MPI_Bcast(&token, 1, MPI_LONG, 0, MPI_COMM_WORLD) == MPI_SUCCESS, "MPI_Bcast");
  CHECK_OR_EXIT(token == 424242L, "MPI_Bcast delivered %ld", token);
}

static int shmem_then_mpi(int* argc, char*** argv) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  check_pe_ = me;
  CHECK_OR_EXIT(npes <= 1024, "at most 1024 PEs");
  check_shmem(me, npes, 1);
  shmem_finalize();
  MPI_Init(argc, argv);
  int rank = -1, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_OR_EXIT(me == rank && npes == size, "shmem said PE %d of %d, MPI says rank %d of %d", me, npes, rank, size);
  check_mpi(rank, size);
  MPI_Finalize();
  if (me == 0) printf("mpi_and_shmem shmem-then-mpi: VERIFIED (%d PEs)\n", npes);
  return 0;
}

int main(int argc, char** argv) {
  CHECK_OR_EXIT(argc == 2 && (!strcmp(argv[1], "mpi-first") || !strcmp(argv[1], "shmem-first") ||
                          !strcmp(argv[1], "shmem-then-mpi")),
            "usage: mpi_and_shmem mpi-first|shmem-first|shmem-then-mpi");
  const int mpi_first = strcmp(argv[1], "mpi-first") == 0;
  if (strcmp(argv[1], "shmem-then-mpi") == 0) return shmem_then_mpi(&argc, &argv);
  if (mpi_first) {
    MPI_Init(&argc, &argv);
    shmem_init();
  } else {
    shmem_init();
    MPI_Init(&argc, &argv);
  }
  int rank = -1, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  check_pe_ = me;
  CHECK_OR_EXIT(me == rank && npes == size, "shmem says PE %d of %d, MPI says rank %d of %d", me, npes, rank, size);
  CHECK_OR_EXIT(npes <= 1024, "at most 1024 PEs");

  check_shmem(me, npes, 1);
  check_mpi(me, npes);
  check_shmem(me, npes, 2);

  if (mpi_first) {
    shmem_finalize();
    MPI_Finalize();
  } else {
    MPI_Finalize();
    shmem_finalize();
  }
  if (me == 0) printf("mpi_and_shmem %s: VERIFIED (%d PEs)\n", argv[1], npes);
  return 0;
}
