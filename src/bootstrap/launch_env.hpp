#pragma once
// Where a PE learns its rank, the job size and how to reach the bootstrap store.
// In this order of precedence:
//   oshrun:   SHMEM_PE, SHMEM_NPES, SHMEM_STORE_ADDR, SHMEM_JOB_ID, SHMEM_JOB_SECRET (and
//             SHMEM_STORE_FD, the PE's connection to the store: bootstrap/store_fd.hpp)
//   mpirun:   OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE (Open MPI) with PMIX_NAMESPACE: the PEs
//             meet through PMIx (bootstrap/plugin_pmix.hpp; rank 0 hosts the store)
//   torchrun: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT (rank 0 hosts the store there)
//   pmix:     PMIX_RANK, PMIX_NAMESPACE alone (srun --mpi=pmix, prterun): rank and size from PMIx
//   none:     a single PE, no store; but a task of a multi-task srun step without PMIx
//             (SLURM_STEP_NUM_TASKS > 1, no PMIX_RANK) is an error: srun --mpi=pmix is needed
#include <cstdint>
#include <functional>
#include <string>

#include "bootstrap/tls.hpp"
#include "base/config.hpp"
#include "base/error.hpp"

namespace shmem::bootstrap {

struct LaunchSpec {
  int pe = 0;
  int npes = 1;
  std::string store_host;
  std::uint16_t store_port = 0;
  bool host_store = false;  // this process (rank 0) runs the store server
  std::string job_id;
  TlsConfig tls;
  const char* origin = "singleton";
  // Meet through PMIx before starting (mpirun, pmix): store address, job id and secret are not
  // known yet; npes is 0 when only PMIx can tell it.
  bool pmix = false;
  // Called when the job failed, with the cause (by the job watcher before it ends this PE, and
  // when this PE's initialisation fails):
  // under torchrun's agent store it leaves the cause there for ranks that arrive after the job
  // ended (bootstrap/torch_store.hpp). Empty elsewhere.
  std::function<void(const std::string& why)> on_job_failed;
};

// Throws Error(kInvalidValue / kBootstrap) naming the variable at fault. A torchrun-style RANK
// outside WORLD_SIZE is also reported to the job's store first, so that the other ranks fail
// at once instead of waiting for a rank that never comes.
LaunchSpec launch_spec_from_env(const Config& cfg);

// The store host (rank 0 of a launcher-less job) could not start the store (`why`). When its
// port is taken by another process that also claims this rank, says hello to that one as this
// rank, so that its job fails naming the duplicate; then throws: `why`, or the duplicate.
[[noreturn]] void store_host_failed(const LaunchSpec& launch, const Error& why);

}  // namespace shmem::bootstrap
