#pragma once
// One PE's use of its GPU: the driver, the device, its primary context (retained, so the
// application's CUDA runtime shares it) and the plugin's own copy stream.
#include <memory>
#include <mutex>
#include <string>

#include "cuda/driver.hpp"
#include "plugins/cuda_plugin_abi.h"

namespace shmem::cuda {

class Context {
 public:
  // device >= 0: that ordinal; else local_rank % the device count. nullptr with *error set.
  static std::unique_ptr<Context> open(const std::string& driver_path, int device, int local_rank,
                                       shmem_cuda_device_info* info, std::string* error);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Makes the primary context current on the calling thread (driver calls need one).
  bool make_current(std::string* error) const;
  // r == CUDA_SUCCESS, else false with *error = the call and the driver's reason.
  bool ok(const char* call, CUresult r, std::string* error) const;
  // Whether r, an error of work in this context, means the context is lost: r is one after which
  // the driver fails all further work (an exception in a kernel ended every kernel of its context)
  // and this context reports such an error too (its own idle stream), so that an error of another
  // context's stream does not count. No kernel of a lost context runs any more.
  bool lost(CUresult r) const;

  const Driver& drv() const noexcept { return *drv_; }
  CUdevice device() const noexcept { return dev_; }
  int ordinal() const noexcept { return ordinal_; }
  CUstream stream() const noexcept { return stream_; }
  std::size_t granularity() const noexcept { return granularity_; }

  // An 8-byte device word for the result of a host atomic (made on first use) and the lock its
  // users hold from the kernel's launch to the copy of the result; 0 with *error set on failure.
  std::mutex& scratch_lock() const noexcept { return scratch_mu_; }
  CUdeviceptr scratch(std::string* error) const;

 private:
  explicit Context(const Driver* d) : drv_(d) {}

  const Driver* drv_;
  CUdevice dev_ = 0;
  int ordinal_ = -1;
  CUcontext ctx_ = nullptr;  // the retained primary context
  CUstream stream_ = nullptr;
  std::size_t granularity_ = 0;
  mutable std::mutex scratch_mu_;
  mutable CUdeviceptr scratch_ = 0;  // under scratch_mu_
};

// The allocation properties of a GPU heap on `ordinal`: pinned device memory exportable as a
// POSIX file descriptor.
CUmemAllocationProp heap_properties(int ordinal);

}  // namespace shmem::cuda
