#include "cuda/context.hpp"

#include <cstdint>
#include <cstring>

namespace shmem::cuda {

CUmemAllocationProp heap_properties(int ordinal) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = ordinal;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return prop;
}

bool Context::ok(const char* call, CUresult r, std::string* error) const {
  if (r == CUDA_SUCCESS) return true;
  *error = drv_->describe(call, r);
  return false;
}

namespace {

// The errors after which "any further CUDA work will return the same error" (cuda.h); numbers
// where older headers lack the name.
bool ends_context(CUresult r) {
  switch (static_cast<int>(r)) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case 226:  // CUDA_ERROR_CONTAINED
    case 721:  // CUDA_ERROR_TENSOR_MEMORY_LEAK
    case 810:  // CUDA_ERROR_MPS_CLIENT_TERMINATED
    case 911:  // CUDA_ERROR_EXTERNAL_DEVICE
      return true;
    default: return false;
  }
}

}  // namespace

bool Context::lost(CUresult r) const { return ends_context(r) && ends_context(drv_->cuStreamQuery(stream_)); }

bool Context::make_current(std::string* error) const {
  return ok("cuCtxSetCurrent", drv_->cuCtxSetCurrent(ctx_), error);
}

std::unique_ptr<Context> Context::open(const std::string& driver_path, int device, int local_rank,
                                       shmem_cuda_device_info* info, std::string* error) {
  const Driver* d = Driver::load(driver_path, error);
  if (!d) return nullptr;
  std::unique_ptr<Context> c(new Context(d));
  int count = 0;
  if (!c->ok("cuInit", d->cuInit(0), error)) return nullptr;
  // Whatever the application has current on this thread stays current when this returns.
  struct Restore {
    const Driver* d;
    CUcontext prev = nullptr;
    ~Restore() { d->cuCtxSetCurrent(prev); }
  } restore{d};
  if (d->cuCtxGetCurrent(&restore.prev) != CUDA_SUCCESS) restore.prev = nullptr;
  if (!c->ok("cuDeviceGetCount", d->cuDeviceGetCount(&count), error)) return nullptr;
  if (count <= 0) {
    *error = "no CUDA device (the driver " + d->path + " sees none; CUDA_VISIBLE_DEVICES?)";
    return nullptr;
  }
  c->ordinal_ = device >= 0 ? device : local_rank % count;
  if (c->ordinal_ >= count) {
    *error = "SHMEM_CUDA_DEVICE=" + std::to_string(device) + " but this process sees " + std::to_string(count) +
             " CUDA device(s) (ordinals 0.." + std::to_string(count - 1) + ")";
    return nullptr;
  }
  if (!c->ok("cuDeviceGet", d->cuDeviceGet(&c->dev_, c->ordinal_), error)) return nullptr;
  if (!c->ok("cuDevicePrimaryCtxRetain", d->cuDevicePrimaryCtxRetain(&c->ctx_, c->dev_), error)) return nullptr;
  if (!c->make_current(error)) return nullptr;
  if (!c->ok("cuStreamCreate", d->cuStreamCreate(&c->stream_, CU_STREAM_NON_BLOCKING), error)) return nullptr;
  CUmemAllocationProp prop = heap_properties(c->ordinal_);
  if (!c->ok("cuMemGetAllocationGranularity",
             d->cuMemGetAllocationGranularity(&c->granularity_, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED), error))
    return nullptr;
  int vmm = 0, fd_handles = 0;
  if (!c->ok("cuDeviceGetAttribute",
             d->cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, c->dev_), error) ||
      !c->ok("cuDeviceGetAttribute",
             d->cuDeviceGetAttribute(&fd_handles, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
                                     c->dev_),
             error))
    return nullptr;
  if (!vmm || !fd_handles) {
    *error = "CUDA device " + std::to_string(c->ordinal_) +
             " does not support the virtual-memory API with POSIX file descriptors, which the GPU heap needs";
    return nullptr;
  }
  std::memset(info, 0, sizeof *info);
  info->ordinal = c->ordinal_;
  info->count = count;
  info->granularity = c->granularity_;
  CUuuid uuid{};
  if (!c->ok("cuDeviceGetUuid", d->cuDeviceGetUuid(&uuid, c->dev_), error)) return nullptr;
  std::memcpy(info->uuid, uuid.bytes, sizeof info->uuid);
  if (!c->ok("cuDriverGetVersion", d->cuDriverGetVersion(&info->driver_version), error)) return nullptr;
  if (!c->ok("cuDeviceGetName", d->cuDeviceGetName(info->name, sizeof info->name - 1, c->dev_), error)) return nullptr;
  return c;
}

CUdeviceptr Context::scratch(std::string* error) const {
  if (!scratch_ && !ok("cuMemAlloc", drv_->cuMemAlloc(&scratch_, sizeof(std::uint64_t)), error)) return 0;
  return scratch_;
}

Context::~Context() {
  CUcontext prev = nullptr;  // the application's, put back at the end
  if (drv_->cuCtxGetCurrent(&prev) != CUDA_SUCCESS) prev = nullptr;
  if (ctx_) drv_->cuCtxSetCurrent(ctx_);
  if (stream_) drv_->cuStreamDestroy(stream_);
  if (scratch_) drv_->cuMemFree(scratch_);
  if (ctx_) drv_->cuDevicePrimaryCtxRelease(dev_);
  drv_->cuCtxSetCurrent(prev);
}

}  // namespace shmem::cuda
