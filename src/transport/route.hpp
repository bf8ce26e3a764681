#pragma once
#include <cstdint>

namespace shmem {

class RemoteTransport;

// How this PE reaches one peer. Exactly one of (heap, remote) is set after init.
struct PeerRoute {
  char* heap = nullptr;              // the peer's heap, mapped into this process (node-local)
  char* data = nullptr;              // the peer's static-data segment, mapped here (node-local)
  RemoteTransport* remote = nullptr;  // network transport, when the peer is on another host
  std::uintptr_t remote_heap = 0;    // the peer's own heap base address (for remote transports)
  std::uintptr_t remote_data = 0;    // the peer's own data-segment base address
  bool local() const noexcept { return heap != nullptr; }
};

}  // namespace shmem
