#pragma once
// Where a PE learns its rank, the job size and how to reach the bootstrap store.
//   oshrun:   SHMEM_PE, SHMEM_NPES, SHMEM_STORE_ADDR, SHMEM_JOB_ID, SHMEM_JOB_SECRET
//   torchrun: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT (rank 0 hosts the store there)
//   neither:  a single PE, no store
#include <cstdint>
#include <string>

#include "bootstrap/tls.hpp"
#include "core/config.hpp"

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
};

// Throws Error(kInvalidValue / kBootstrap) naming the variable at fault.
LaunchSpec launch_spec_from_env(const Config& cfg);

}  // namespace shmem::bootstrap
