// mpi_attr - ACLSHMEMX_INIT_WITH_MPI (aclshmem.h): the PEs meet over an MPI communicator.
//
//   mpirun -n N mpi_attr null       comm_args = NULL (MPI_COMM_WORLD); the program leaves MPI alone:
//                                   the library initialises MPI and finalises it at aclshmem_finalize
//   mpirun -n N mpi_attr world      the program calls MPI_Init, passes &MPI_COMM_WORLD, and MPI is
//                                   still usable after aclshmem_finalize (the program finalises it)
//   mpirun -n N mpi_attr reversed   a communicator with the ranks reversed (MPI_Comm_split): my_pe
//                                   is the rank there, not in MPI_COMM_WORLD
//   mpirun -n N mpi_attr instances  two instances (ids 0 and 1) both over MPI_COMM_WORLD, MPI left to the
//                                   library: still initialised after the first aclshmemx_finalize,
//                                   finalised after the second
//   mpirun -n N mpi_attr mismatch   attr.n_pes = size + 1 on every PE: ACLSHMEM_INVALID_PARAM, and
//                                   the MPI the library initialised is finalised again
//   mpirun -n N mpi_attr mismatch-one   only PE 1 gives a wrong my_pe: every PE is refused, none waits
//   mpi_attr noplugin               (one process; SHMEM_BOOTSTRAP_PLUGIN_DIR names a directory
//                                   without the plugin) ACLSHMEM_NOT_SUPPORTED
//
// After a successful init: puts, gets and barriers with value checks, then aclshmem_finalize.
// Prints "mpi_attr <mode>: VERIFIED" on PE 0 (every PE in the refusal modes).
#include <aclshmem.h>
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "check.h"

namespace {

bool mpi_initialized() {
  int flag = 0;
  MPI_Initialized(&flag);
  return flag != 0;
}

bool mpi_finalized() {
  int flag = 0;
  MPI_Finalized(&flag);
  return flag != 0;
}

aclshmemx_init_attr_t attr_for(int me, int npes, void* comm) {
  aclshmemx_init_attr_t attr{};
  attr.my_pe = me;
  attr.n_pes = npes;
  attr.local_mem_size = 16ULL << 20;
  attr.comm_args = comm;
  attr.option_attr.shm_init_timeout = 30;
  attr.option_attr.control_operation_timeout = 30;
  return attr;
}

// Puts into every PE, gets back, barriers; values checked.
void exercise(int me, int npes) {
  auto* slots = static_cast<int64_t*>(aclshmem_malloc(sizeof(int64_t) * static_cast<size_t>(npes)));
  CHECK_OR_EXIT(slots != nullptr, "aclshmem_malloc");
  for (int round = 1; round <= 2; ++round) {
    const int64_t mine = round * 1000 + me;
    for (int pe = 0; pe < npes; ++pe) aclshmem_int64_put(&slots[me], &mine, 1, pe);
    aclshmem_barrier_all();
    for (int pe = 0; pe < npes; ++pe)
      CHECK_OR_EXIT(slots[pe] == round * 1000 + pe, "round %d: slots[%d]=%lld", round, pe,
                static_cast<long long>(slots[pe]));
    const int right = (me + 1) % npes;
    int64_t got = 0;
    aclshmem_int64_get(&got, &slots[right], 1, right);
    CHECK_OR_EXIT(got == round * 1000 + right, "round %d: get from PE %d returned %lld", round, right,
              static_cast<long long>(got));
    aclshmem_barrier_all();
  }
  aclshmem_free(slots);
}

void finish() {
  CHECK_OR_EXIT(aclshmem_finalize() == ACLSHMEM_SUCCESS, "aclshmem_finalize");
  CHECK_OR_EXIT(aclshmemx_init_status() == ACLSHMEM_STATUS_NOT_INITIALIZED, "still initialised after finalize");
}

// The world size and rank as mpirun announces them (the program has not called MPI_Init).
void launcher_ranks(int& rank, int& size) {
  rank = static_cast<int>(check_env_long("OMPI_COMM_WORLD_RANK", -1));
  size = static_cast<int>(check_env_long("OMPI_COMM_WORLD_SIZE", -1));
  CHECK_OR_EXIT(rank >= 0 && size > 0, "start me with mpirun (OMPI_COMM_WORLD_RANK / OMPI_COMM_WORLD_SIZE)");
  check_pe_ = rank;
}

int run_null() {
  int rank = 0, size = 0;
  launcher_ranks(rank, size);
  CHECK_OR_EXIT(!mpi_initialized(), "MPI is initialised before aclshmemx_init_attr");
  aclshmemx_init_attr_t attr = attr_for(rank, size, nullptr);
  CHECK_OR_EXIT(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_MPI, &attr) == ACLSHMEM_SUCCESS, "aclshmemx_init_attr");
  CHECK_OR_EXIT(mpi_initialized(), "the library did not initialise MPI");
  CHECK_OR_EXIT(aclshmem_my_pe() == rank && aclshmem_n_pes() == size, "PE %d of %d", aclshmem_my_pe(), aclshmem_n_pes());
  exercise(rank, size);
  finish();
  CHECK_OR_EXIT(mpi_finalized(), "the library initialised MPI but did not finalise it at aclshmem_finalize");
  return rank;
}

int run_instances() {
  int rank = 0, size = 0;
  launcher_ranks(rank, size);
  for (uint64_t id : {uint64_t{0}, uint64_t{1}}) {
    aclshmemx_init_attr_t attr = attr_for(rank, size, nullptr);
    attr.instance_id = id;
    CHECK_OR_EXIT(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_MPI, &attr) == ACLSHMEM_SUCCESS, "init of instance %d",
              static_cast<int>(id));
    CHECK_OR_EXIT(aclshmemx_instance_ctx_get()->id == id, "instance %d is not current after its init",
              static_cast<int>(id));
    exercise(rank, size);
  }
  CHECK_OR_EXIT(aclshmemx_finalize(0) == ACLSHMEM_SUCCESS, "aclshmemx_finalize(0)");
  CHECK_OR_EXIT(mpi_initialized() && !mpi_finalized(), "MPI finalised while instance 1 still uses it");
  CHECK_OR_EXIT(aclshmemx_instance_ctx_set(1) == ACLSHMEM_SUCCESS, "aclshmemx_instance_ctx_set(1)");
  exercise(rank, size);
  CHECK_OR_EXIT(aclshmemx_finalize(1) == ACLSHMEM_SUCCESS, "aclshmemx_finalize(1)");
  CHECK_OR_EXIT(mpi_finalized(), "the library initialised MPI but did not finalise it with the last instance");
  return rank;
}

// world / reversed: the program owns MPI.
int run_owned(bool reversed) {
  MPI_Init(nullptr, nullptr);
  int rank = -1, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check_pe_ = rank;
  MPI_Comm comm = MPI_COMM_WORLD;
  if (reversed) MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &comm);
  int my_pe = -1;
  MPI_Comm_rank(comm, &my_pe);
  CHECK_OR_EXIT(my_pe == (reversed ? size - 1 - rank : rank), "rank %d in the split communicator", my_pe);
  aclshmemx_init_attr_t attr = attr_for(my_pe, size, &comm);
  CHECK_OR_EXIT(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_MPI, &attr) == ACLSHMEM_SUCCESS, "aclshmemx_init_attr");
  CHECK_OR_EXIT(aclshmem_my_pe() == my_pe && aclshmem_n_pes() == size, "PE %d of %d", aclshmem_my_pe(),
            aclshmem_n_pes());
  exercise(my_pe, size);
  finish();
  CHECK_OR_EXIT(!mpi_finalized(), "the library finalised MPI, which the program initialised");
  int sum = 0;  // MPI still works
  CHECK_OR_EXIT(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS, "MPI_Allreduce");
  CHECK_OR_EXIT(sum == size * (size - 1) / 2, "MPI_Allreduce after aclshmem_finalize: %d", sum);
  if (reversed) MPI_Comm_free(&comm);
  MPI_Finalize();
  return my_pe;
}

int run_mismatch(bool only_pe1) {
  int rank = 0, size = 0;
  launcher_ranks(rank, size);
  CHECK_OR_EXIT(only_pe1 ? size >= 2 : true, "mismatch-one needs 2 PEs or more");
  aclshmemx_init_attr_t attr = only_pe1 ? attr_for(rank == 1 ? 0 : rank, size, nullptr)
                                        : attr_for(rank, size + 1, nullptr);
  const int rc = aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_MPI, &attr);
  CHECK_OR_EXIT(rc == ACLSHMEM_INVALID_PARAM, "aclshmemx_init_attr returned %d, expected ACLSHMEM_INVALID_PARAM (%d)", rc,
            ACLSHMEM_INVALID_PARAM);
  CHECK_OR_EXIT(aclshmemx_init_status() == ACLSHMEM_STATUS_NOT_INITIALIZED, "initialised after a refusal");
  CHECK_OR_EXIT(mpi_initialized() && mpi_finalized(), "the MPI the library initialised is not finalised after the refusal");
  std::printf("mpi_attr PE %d: refused with %d as expected\n", rank, rc);
  return 0;  // every PE prints VERIFIED
}

int run_noplugin() {
  aclshmemx_init_attr_t attr = attr_for(0, 1, nullptr);
  const int rc = aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_MPI, &attr);
  CHECK_OR_EXIT(rc == ACLSHMEM_NOT_SUPPORTED, "aclshmemx_init_attr returned %d, expected ACLSHMEM_NOT_SUPPORTED (%d)", rc,
            ACLSHMEM_NOT_SUPPORTED);
  CHECK_OR_EXIT(!mpi_initialized(), "MPI initialised although the plugin is missing");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc == 2 ? argv[1] : "";
  int pe = -1;
  if (mode == "null") pe = run_null();
  else if (mode == "world") pe = run_owned(false);
  else if (mode == "reversed") pe = run_owned(true);
  else if (mode == "instances") pe = run_instances();
  else if (mode == "mismatch") pe = run_mismatch(false);
  else if (mode == "mismatch-one") pe = run_mismatch(true);
  else if (mode == "noplugin") pe = run_noplugin();
  else {
    std::fprintf(stderr, "usage: mpi_attr null|world|reversed|instances|mismatch|mismatch-one|noplugin\n");
    return 2;
  }
  if (pe == 0) std::printf("mpi_attr %s: VERIFIED\n", mode.c_str());
  return 0;
}
