#pragma once
// shmem_init under a PMIx process manager (Open MPI's mpirun; also srun --mpi=pmix, prterun)
// through libshmem_bootstrap_pmix.so: rank 0 starts the bootstrap store and publishes where it
// is with PMIx_Put; a PMIx_Fence later every rank reads that with PMIx_Get.
#include <memory>
#include <string>

#include "bootstrap/launch_env.hpp"
#include "bootstrap/store.hpp"
#include "plugins/bootstrap_plugin_abi.h"

namespace shmem::bootstrap {

// This process's PMIx connection: PMIx_Init on construction, PMIx_Finalize on destruction. PMIx
// counts init/finalize pairs, so an MPI library using PMIx in the same process is not disturbed.
// The launcher treats a process that initialised PMIx and exits without finalising it as failed,
// and PMIx cannot be initialised again once finalised: keep one for the life of the process.
class PmixClient {
 public:
  PmixClient();  // throws Error (plugin missing, PMIx_Init failed)
  ~PmixClient();
  PmixClient(const PmixClient&) = delete;
  PmixClient& operator=(const PmixClient&) = delete;

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  const std::string& nspace() const noexcept { return nspace_; }

  void put(const std::string& key, const std::string& value);  // PMIx_Put (global) + PMIx_Commit
  // Fences. `what` names the step for the progress lines rank 0 prints while it waits (after 5 s,
  // then every 15 s: a fence cannot say which ranks are missing, only how long it has waited).
  void fence(double timeout_s, const char* what);  // every rank, collecting data
  std::string get(int rank, const std::string& key, double timeout_s);
  // The same for values of any bytes and length (PMIx byte objects), and a fence that collects
  // the data only when asked to (a bare barrier otherwise).
  void put_bytes(const std::string& key, const std::string& value);
  void fence(double timeout_s, bool collect, const char* what);
  std::string get_bytes(int rank, const std::string& key, double timeout_s);

 private:
  template <class Call>
  void with_progress(double timeout_s, const char* what, Call call);

  const shmem_pmix_plugin& fn_;
  int rank_ = -1;
  int size_ = 0;
  std::string nspace_;
};

// Checks (or, where the launch variables did not give them, takes) l.pe and l.npes against PMIx's
// rank and job size. Throws Error(kBootstrap) naming both on a mismatch.
void adopt_pmix_ranks(const PmixClient& pmix, LaunchSpec& l);

// The rendezvous, collective over the job (l.npes > 1). Rank 0 starts the store on loopback and
// publishes under `key` its address, a fresh job id and, unless l.tls.secret is already set
// (SHMEM_JOB_SECRET), a fresh random secret. Every rank fills l's store address, job id and
// secret from it. Returns the store server on rank 0, nullptr elsewhere. If rank 0 cannot start
// the store it still takes part and publishes the reason, which every rank throws.
std::unique_ptr<StoreServer> meet_over_pmix(PmixClient& pmix, LaunchSpec& l, const std::string& key,
                                            double timeout_s);

}  // namespace shmem::bootstrap
