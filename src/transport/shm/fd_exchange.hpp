#pragma once
// Passes the memfd descriptors of each PE's heap and static-data segments to its node peers
// over abstract Unix sockets (SCM_RIGHTS). Abstract names live in the kernel only, so nothing
// is left in /tmp or /dev/shm even after kill -9. A peer must present the job secret and run
// under the same uid.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "transport/node.hpp"
#include "util/unique_fd.hpp"

namespace shmem::transport::shm {

class FdExchange final : public NodeExchange {
 public:
  // Starts listening. Call exchange() only after every peer has constructed its FdExchange
  // (the caller runs a store barrier in between).
  FdExchange(const std::string& job_id, int my_pe, const std::string& secret);
  // Fetches the segments of each PE in `peers` that is reachable over this host's abstract
  // sockets, while serving ours to every peer that asks. Unreachable peers are left out.
  std::vector<PeerSegments> exchange(const std::vector<int>& peers, const SegmentDesc& heap,
                                     const SegmentDesc& data, std::chrono::milliseconds timeout) override;

 private:
  std::string job_id_;
  int my_pe_;
  std::string secret_;
  util::UniqueFd listener_;
};

}  // namespace shmem::transport::shm
