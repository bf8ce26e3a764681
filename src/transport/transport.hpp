#pragma once
// A transport moves data to PEs whose memory this process cannot map (other hosts). The
// node-local path never goes through this interface: it is inlined as memcpy / atomic_ref on
// the peer's mapped segment (see route.hpp). The UCX transport implements it.
#include <cstddef>
#include <cstdint>

#include "core/ops.hpp"

namespace shmem {

class RemoteTransport {
 public:
  virtual ~RemoteTransport() = default;
  virtual const char* name() const noexcept = 0;
  // `remote` is the symmetric address as seen by the target PE (already translated).
  virtual void put(const void* src, std::size_t bytes, int pe, std::uintptr_t remote, bool blocking) noexcept = 0;
  virtual void get(void* dst, std::size_t bytes, int pe, std::uintptr_t remote, bool blocking) noexcept = 0;
  virtual std::uint64_t amo(core::AmoOp op, std::size_t width, int pe, std::uintptr_t remote, std::uint64_t value,
                            std::uint64_t cond) noexcept = 0;
  virtual void quiet() noexcept = 0;
  virtual void fence() noexcept = 0;
};

}  // namespace shmem
