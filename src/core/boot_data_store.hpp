#pragma once
// core::BootData over the bootstrap store (oshrun, torchrun, tcp://, unique ID, MPI modes):
// PE 0 gathers the host keys and publishes the host table, barriers and counters are store
// requests, the transport's blobs are store keys fetched one peer at a time.
#include "core/arrivals.hpp"
#include "core/boot_data.hpp"

namespace shmem::core {

class StoreBootData final : public BootData {
 public:
  // wait.store, wait.me and wait.npes are those of this PE; timeout bounds every request but
  // the first exchange's (wait.timeout_s).
  StoreBootData(ArrivalWait wait, bootstrap::Millis timeout) : wait_(std::move(wait)), timeout_(timeout) {}

  boot::HostSeen hosts(const boot::NodeKey& mine) override;
  boot::HostTable host_table() override;
  bool all_placed(bool mine) override;
  void barrier(const std::string& tag) override;
  std::vector<std::string> allgather(const std::string& tag, const std::string& mine) override;
  // Every PE's blob under its own key (O(N) bytes in all), fetched one peer at a time by the
  // PEs that talk to it. StoreClient serialises its requests, so threads may fetch at once.
  void publish(const std::string& tag, const std::string& mine) override;
  std::string fetch(const std::string& tag, int pe) override;

 private:
  bootstrap::StoreClient& store() const noexcept { return *wait_.store; }
  ArrivalWait wait_;
  bootstrap::Millis timeout_;
};

}  // namespace shmem::core
