#pragma once
// Node-local peers: the interface of the shm backend (shm/), which hands each PE the memory
// segments of the PEs it can map. The core maps them and then reaches those PEs with plain
// loads, stores and CPU atomics (route.hpp); it never includes the backend itself.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "util/unique_fd.hpp"

namespace shmem::transport {

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

class NodeExchange {
 public:
  virtual ~NodeExchange() = default;
  // Fetches the segments of each PE in `peers` that is reachable over this host's shared
  // memory, while serving ours to every peer that asks. Unreachable peers are left out: they
  // are on another host (or in another network namespace).
  virtual std::vector<PeerSegments> exchange(const std::vector<int>& peers, const SegmentDesc& heap,
                                             const SegmentDesc& data, std::chrono::milliseconds timeout) = 0;
};

// Starts listening for this PE's node peers. Call exchange() only after every PE of the job has
// called this (the caller runs a store barrier in between). Throws Error on failure.
std::unique_ptr<NodeExchange> listen_node(const std::string& job_id, int my_pe, const std::string& secret);

}  // namespace shmem::transport
