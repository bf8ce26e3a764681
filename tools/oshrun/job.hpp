#pragma once
// What every PE of one job shares: identity, secret, store settings, environment.
#include <string>
#include <string_view>
#include <vector>

#include "bootstrap/tls.hpp"

namespace oshrun {

struct JobIdentity {
  std::string id;          // SHMEM_JOB_ID: unique per launch, safe to log
  std::string secret_hex;  // SHMEM_JOB_SECRET: 64 lowercase hex digits (32 random bytes)
};

// Fresh random identity from the OS entropy source; throws shmem::Error if none is available.
JobIdentity make_job_identity();

// Store TLS settings from SHMEM_BOOTSTRAP_TLS / SHMEM_BOOTSTRAP_TLS_INFO. The secret is the
// hex text itself (TlsConfig::secret = the bytes of SHMEM_JOB_SECRET), which is what a PE
// reading SHMEM_JOB_SECRET uses too. Throws shmem::Error(kInvalidValue) on bad settings.
shmem::bootstrap::TlsConfig store_tls_from_env(const std::string& secret_hex);

// The environment of PE `rank`: the launcher's own, with the job variables replaced and
// `overrides` ("NAME=VALUE", from -x) added or replacing the launcher's values.
std::vector<std::string> pe_environment(char* const* base_env, int rank, int npes,
                                        const std::string& store_addr, const JobIdentity& job,
                                        const std::vector<std::string>& overrides = {});

// The environment of a remote-shell agent: the launcher's own without the job variables
// (the agent never needs the secret; the PE's environment reaches it on the agent's stdin).
std::vector<std::string> agent_environment(char* const* base_env);

// True for the variables oshrun sets itself (SHMEM_PE, ..., SHMEM_JOB_SECRET).
bool is_job_variable(std::string_view name);

}  // namespace oshrun
