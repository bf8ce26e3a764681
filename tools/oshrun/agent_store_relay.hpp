#pragma once
// The host agent's one connection to the bootstrap store, relayed to the PEs it starts
// (bootstrap/store_relay.hpp), set up from the job's environment as the PEs would read it.
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/store_relay.hpp"

namespace oshrun {

// Connects to the store that SHMEM_STORE_ADDR names in `job_env` with its SHMEM_JOB_SECRET,
// SHMEM_BOOTSTRAP_TLS, SHMEM_BOOTSTRAP_TLS_INFO and SHMEM_BOOTSTRAP_TIMEOUT, keeping the
// connection alive for its SHMEM_HOST_TIMEOUT. nullptr when the job has no store (one PE).
// Throws (shmem::Error, naming the variable or the store) when that fails.
std::unique_ptr<shmem::bootstrap::StoreRelay> open_store_relay(const std::vector<std::string>& job_env,
                                                               const std::string& host);

}  // namespace oshrun
