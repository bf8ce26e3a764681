#pragma once
// Passes the memfd descriptors of each PE's heap and static-data segments to its node peers
// over abstract Unix sockets (SCM_RIGHTS). Abstract names live in the kernel only, so nothing
// is left in /tmp or /dev/shm even after kill -9. A peer must present the job secret and run
// under the same uid.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "util/unique_fd.hpp"

namespace shmem {

struct SegmentDesc {
  int fd = -1;
  std::uint64_t size = 0;
  std::uint64_t addr = 0;  // where the owner maps it (informational; peers map anywhere)
};

struct PeerSegments {
  int pe = -1;
  util::UniqueFd heap_fd, data_fd;
  SegmentDesc heap, data;  // sizes and owner addresses (fd fields unused)
};

class FdExchange {
 public:
  // Starts listening. Call exchange() only after every peer has constructed its FdExchange
  // (the caller runs a store barrier in between).
  FdExchange(const std::string& job_id, int my_pe, const std::string& secret);
  // Fetches the segments of each PE in `peers` that is reachable over this host's abstract
  // sockets, while serving ours to every peer that asks. Unreachable peers are left out.
  std::vector<PeerSegments> exchange(const std::vector<int>& peers, const SegmentDesc& heap,
                                     const SegmentDesc& data, std::chrono::milliseconds timeout);

 private:
  std::string job_id_;
  int my_pe_;
  std::string secret_;
  util::UniqueFd listener_;
};

}  // namespace shmem
