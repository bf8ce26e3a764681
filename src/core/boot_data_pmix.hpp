#pragma once
// core::BootData over PMIx, for jobs a PMIx launcher started (mpirun, srun --mpi=pmix): every PE
// puts its value and commits, one PMIx_Fence that collects the data hands every node's PMIx
// server all of them, and each PE reads what it needs with PMIx_Get, served locally. Barriers
// are fences without data. The bootstrap store sees none of it.
#include <string>

#include "bootstrap/plugin_pmix.hpp"
#include "core/boot_data.hpp"

namespace shmem::core {

class PmixBootData final : public BootData {
 public:
  // scope: a prefix of the keys unique to this job membership (PMIx keys outlive a finalize:
  // a later shmem_init in the same processes uses another). timeout_s bounds every fence and get.
  PmixBootData(bootstrap::PmixClient& pmix, std::string scope, int me, int npes, double timeout_s)
      : pmix_(pmix), scope_(std::move(scope)), me_(me), npes_(npes), timeout_s_(timeout_s) {}

  boot::HostSeen hosts(const boot::NodeKey& mine) override;
  boot::HostTable host_table() override { return table_; }
  bool table_at_hand() const noexcept override { return true; }
  bool all_placed(bool mine) override;
  void barrier(const std::string& tag) override;
  std::vector<std::string> allgather(const std::string& tag, const std::string& mine) override;
  // Collective here: every PE publishes once per tag (the transport does so as it starts), and
  // the fence that follows the put makes every PE's blob readable from the local PMIx server.
  void publish(const std::string& tag, const std::string& mine) override;
  std::string fetch(const std::string& tag, int pe) override;

 private:
  // put + fence (collecting) + a get of every PE's value under `name`.
  std::vector<std::string> gather(const std::string& name, const std::string& mine, const char* step);
  void fence(bool collect, const char* step, const std::string& tag = {});
  std::string key(const std::string& name) const { return scope_ + "." + name; }

  bootstrap::PmixClient& pmix_;
  std::string scope_;
  int me_ = 0, npes_ = 1;
  boot::HostTable table_;  // built by hosts()
  double timeout_s_ = 0;
};

}  // namespace shmem::core
