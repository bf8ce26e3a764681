#pragma once
// One PE's view of the node's GPU heaps: its own allocation (cuMemCreate, exportable as a POSIX
// file descriptor) and, once mapped, every node-local PE's heap in one reserved range, local PE
// i at base + i * bytes. Every handle is released by the destructor, whatever step failed.
#include <memory>
#include <string>
#include <vector>

#include "cuda/context.hpp"

namespace shmem::cuda {

class Heap {
 public:
  // bytes: a multiple of the granularity. *fd: the exported descriptor, owned by the caller.
  static std::unique_ptr<Heap> create(const Context& ctx, std::size_t bytes, int* fd, std::string* error);
  ~Heap();
  Heap(const Heap&) = delete;
  Heap& operator=(const Heap&) = delete;

  bool map(int n_local, int my_local, const int* fds, const unsigned char (*uuids)[16], void** base,
           std::string* error);
  const Context& context() const noexcept { return ctx_; }

 private:
  Heap(const Context& ctx, std::size_t bytes) : ctx_(ctx), bytes_(bytes) {}
  // Whether this device can reach memory of the device with `uuid` (always true for itself).
  bool reachable(const unsigned char* uuid, int local, std::string* error) const;

  const Context& ctx_;
  std::size_t bytes_;
  CUmemGenericAllocationHandle own_ = 0;
  std::vector<CUmemGenericAllocationHandle> imported_;
  CUdeviceptr base_ = 0;
  std::size_t reserved_ = 0;
  std::vector<CUdeviceptr> mapped_;  // slots mapped in the range
};

}  // namespace shmem::cuda
