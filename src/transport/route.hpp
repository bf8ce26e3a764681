#pragma once
#include <cstdint>

namespace shmem {
namespace transport {
class RemoteTransport;
}

// How this PE reaches one peer: node-local PEs through their segments mapped here (heap set),
// PEs on other hosts through the remote transport (remote set).
struct PeerRoute {
  char* heap = nullptr;              // the peer's heap, mapped into this process (node-local)
  char* data = nullptr;              // the peer's static-data segment, mapped here (node-local)
  transport::RemoteTransport* remote = nullptr;  // network transport, when the peer is on another host
  bool local() const noexcept { return heap != nullptr; }
};

}  // namespace shmem
