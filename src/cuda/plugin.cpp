// libshmem_cuda.so: the table of plugins/cuda_plugin_abi.h over Context and Heap.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <string>

#include "cuda/context.hpp"
#include "cuda/heap.hpp"
#include "cuda/host_atomic.hpp"
#include "cuda/stream_entry.hpp"
#include "plugins/cuda_plugin_abi.h"

namespace shmem::cuda {
namespace {

int fail(const std::string& why, char* err, std::size_t err_len) {
  if (err && err_len) {
    const std::size_t n = std::min(why.size(), err_len - 1);
    std::memcpy(err, why.data(), n);
    err[n] = '\0';
  }
  return 1;
}

// Runs f(std::string* error) -> bool; converts false and exceptions (allocation) into the ABI's
// return code and message.
template <class F>
int guarded(char* err, std::size_t err_len, F&& f) noexcept {
  try {
    std::string error;
    if (f(&error)) return 0;
    return fail(error.empty() ? "unknown CUDA plugin failure" : error, err, err_len);
  } catch (const std::exception& e) {
    return fail(std::string("CUDA plugin: ") + e.what(), err, err_len);
  }
}

Context& as_ctx(void* c) { return *static_cast<Context*>(c); }

// Every call makes the device's primary context current on the calling thread; this puts back
// whatever the application had current there (a context of its own, or none).
class KeepCurrent {
 public:
  explicit KeepCurrent(const Context& c) : drv_(c.drv()) {
    if (drv_.cuCtxGetCurrent(&prev_) != CUDA_SUCCESS) prev_ = nullptr;
  }
  ~KeepCurrent() { drv_.cuCtxSetCurrent(prev_); }
  KeepCurrent(const KeepCurrent&) = delete;
  KeepCurrent& operator=(const KeepCurrent&) = delete;

 private:
  const Driver& drv_;
  CUcontext prev_ = nullptr;
};

int p_open(const char* driver_path, int device, int local_rank, void** ctx, shmem_cuda_device_info* info, char* err,
           std::size_t err_len) {
  return guarded(err, err_len, [&](std::string* e) {
    auto c = Context::open(driver_path ? driver_path : "", device, local_rank, info, e);
    if (!c) return false;
    *ctx = c.release();
    return true;
  });
}

void p_close(void* ctx) { delete static_cast<Context*>(ctx); }

int p_heap_create(void* ctx, std::size_t bytes, void** heap, int* fd, char* err, std::size_t err_len) {
  return guarded(err, err_len, [&](std::string* e) {
    const KeepCurrent keep(as_ctx(ctx));
    auto h = Heap::create(as_ctx(ctx), bytes, fd, e);
    if (!h) return false;
    *heap = h.release();
    return true;
  });
}

int p_heap_map(void* heap, int n_local, int my_local, const int* fds, const unsigned char (*uuids)[16], void** base,
               char* err, std::size_t err_len) {
  auto* h = static_cast<Heap*>(heap);
  const KeepCurrent keep(h->context());
  return guarded(err, err_len, [&](std::string* e) { return h->map(n_local, my_local, fds, uuids, base, e); });
}

void p_heap_destroy(void* heap) {
  auto* h = static_cast<Heap*>(heap);
  const KeepCurrent keep(h->context());
  delete h;
}

int p_copy(void* ctx, void* dst, const void* src, std::size_t bytes, char* err, std::size_t err_len) {
  return guarded(err, err_len, [&](std::string* e) {
    const Context& c = as_ctx(ctx);
    const KeepCurrent keep(c);
    return c.make_current(e) &&
           c.ok("cuMemcpyAsync",
                c.drv().cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), bytes,
                                      c.stream()),
                e) &&
           c.ok("cuStreamSynchronize", c.drv().cuStreamSynchronize(c.stream()), e);
  });
}

int p_copy_2d(void* ctx, void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch, std::size_t block,
              std::size_t count, char* err, std::size_t err_len) {
  return guarded(err, err_len, [&](std::string* e) {
    const Context& c = as_ctx(ctx);
    const KeepCurrent keep(c);
    CUDA_MEMCPY2D m{};
    m.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
    m.srcDevice = reinterpret_cast<CUdeviceptr>(src);
    m.srcPitch = src_pitch;
    m.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
    m.dstDevice = reinterpret_cast<CUdeviceptr>(dst);
    m.dstPitch = dst_pitch;
    m.WidthInBytes = block;
    m.Height = count;
    return c.make_current(e) && c.ok("cuMemcpy2DAsync", c.drv().cuMemcpy2DAsync(&m, c.stream()), e) &&
           c.ok("cuStreamSynchronize", c.drv().cuStreamSynchronize(c.stream()), e);
  });
}

int p_memset8(void* ctx, void* dst, unsigned char value, std::size_t bytes, char* err, std::size_t err_len) {
  return guarded(err, err_len, [&](std::string* e) {
    const Context& c = as_ctx(ctx);
    const KeepCurrent keep(c);
    return c.make_current(e) &&
           c.ok("cuMemsetD8Async",
                c.drv().cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(dst), value, bytes, c.stream()), e) &&
           c.ok("cuStreamSynchronize", c.drv().cuStreamSynchronize(c.stream()), e);
  });
}

int p_host_alloc(void* ctx, std::size_t bytes, void** host, void** device, char* err, std::size_t err_len) {
  return guarded(err, err_len, [&](std::string* e) {
    const Context& c = as_ctx(ctx);
    const KeepCurrent keep(c);
    if (!c.make_current(e) ||
        !c.ok("cuMemHostAlloc",
              c.drv().cuMemHostAlloc(host, bytes, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP), e))
      return false;
    std::memset(*host, 0, bytes);
    CUdeviceptr dev = 0;
    if (!c.ok("cuMemHostGetDevicePointer", c.drv().cuMemHostGetDevicePointer(&dev, *host, 0), e)) {
      c.drv().cuMemFreeHost(*host);
      return false;
    }
    *device = reinterpret_cast<void*>(dev);
    return true;
  });
}

void p_host_free(void* ctx, void* host) {
  const KeepCurrent keep(as_ctx(ctx));
  std::string ignored;
  if (as_ctx(ctx).make_current(&ignored)) as_ctx(ctx).drv().cuMemFreeHost(host);
}

int p_device_alloc(void* ctx, std::size_t bytes, void** device, char* err, std::size_t err_len) {
  return guarded(err, err_len, [&](std::string* e) {
    const Context& c = as_ctx(ctx);
    const KeepCurrent keep(c);
    CUdeviceptr dev = 0;
    if (!c.make_current(e) || !c.ok("cuMemAlloc", c.drv().cuMemAlloc(&dev, bytes), e)) return false;
    *device = reinterpret_cast<void*>(dev);
    return true;
  });
}

void p_device_free(void* ctx, void* device) {
  const KeepCurrent keep(as_ctx(ctx));
  std::string ignored;
  if (as_ctx(ctx).make_current(&ignored)) as_ctx(ctx).drv().cuMemFree(reinterpret_cast<CUdeviceptr>(device));
}

int p_stream_sync(void* ctx, void* stream, char* err, std::size_t err_len) {
  bool lost = false;
  const int rc = guarded(err, err_len, [&](std::string* e) {
    const Context& c = as_ctx(ctx);
    const KeepCurrent keep(c);
    if (!c.make_current(e)) return false;
    const CUresult r = c.drv().cuStreamSynchronize(static_cast<CUstream>(stream));
    lost = r != CUDA_SUCCESS && c.lost(r);
    return c.ok("cuStreamSynchronize", r, e);
  });
  return rc != 0 && lost ? SHMEM_CUDA_CONTEXT_LOST : rc;
}

int p_stream_op(void* ctx, void* stream, const shmem_cuda_stream_op* op, char* err, std::size_t err_len) {
  return guarded(err, err_len, [&](std::string* e) {
    const Context& c = as_ctx(ctx);
    const KeepCurrent keep(c);
    return c.make_current(e) && stream_op(stream, *op, e);
  });
}

int p_atomic(void* ctx, void* addr, int pe, int width, int op, std::uint64_t value, std::uint64_t cond,
             std::uint64_t* old, char* err, std::size_t err_len) {
  return guarded(err, err_len, [&](std::string* e) {
    const Context& c = as_ctx(ctx);
    const KeepCurrent keep(c);
    if (width != 4 && width != 8) {
      *e = "atomic: width " + std::to_string(width) + " is not 4 or 8 bytes";
      return false;
    }
    if (!c.make_current(e)) return false;
    const std::lock_guard<std::mutex> lock(c.scratch_lock());
    const CUdeviceptr word = c.scratch(e);
    if (!word) return false;
    const int rc = host_atomic(static_cast<cudaStream_t>(c.stream()), addr, pe, width, op, value, cond,
                               reinterpret_cast<std::uint64_t*>(word));
    if (rc != 0) {
      const auto err = static_cast<cudaError_t>(rc);
      *e = std::string("launching the atomic's kernel: ") + cudaGetErrorName(err) + ": " + cudaGetErrorString(err);
      return false;
    }
    return c.ok("cuMemcpyAsync",
                c.drv().cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(old), word, sizeof *old, c.stream()), e) &&
           c.ok("cuStreamSynchronize", c.drv().cuStreamSynchronize(c.stream()), e);
  });
}

// Whether this context's device may read device memory of device `owner` (another device): peer
// capability, then the mapping for this device. cuMem memory answers cuMemGetAccess for this
// device (its access descriptors); other allocations (cuMemAlloc, pools) the access flags of the
// current context's device (cuPointerGetAttribute, CU_POINTER_ATTRIBUTE_ACCESS_FLAGS), which cover
// enabled peer access. A driver that answers neither leaves peer capability to decide: whether peer
// access is enabled cannot be asked otherwise without changing it (cuCtxEnablePeerAccess).
bool peer_access(const Context& c, const void* addr, int owner, int* access, std::string* e) {
  const Driver& d = c.drv();
  CUdevice dev = 0;
  int can = 0;
  if (!c.ok("cuDeviceGet", d.cuDeviceGet(&dev, owner), e) ||
      !c.ok("cuDeviceCanAccessPeer", d.cuDeviceCanAccessPeer(&can, c.device(), dev), e))
    return false;
  if (!can) {
    *access = SHMEM_CUDA_ACCESS_NO_PEER;
    return true;
  }
  const auto ptr = reinterpret_cast<CUdeviceptr>(addr);
  CUmemLocation here{};
  here.type = CU_MEM_LOCATION_TYPE_DEVICE;
  here.id = c.ordinal();
  unsigned long long prot = 0;
  if (d.cuMemGetAccess(&prot, &here, ptr) == CUDA_SUCCESS) {
    *access = (prot & CU_MEM_ACCESS_FLAGS_PROT_READ) ? SHMEM_CUDA_ACCESS_OK : SHMEM_CUDA_ACCESS_NOT_MAPPED;
    return true;
  }
  unsigned long long flags = 0;  // an enum: whatever width the driver writes, the low bits are its value
  if (d.cuPointerGetAttribute(&flags, CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, ptr) == CUDA_SUCCESS) {
    *access = (flags & CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READ) ? SHMEM_CUDA_ACCESS_OK : SHMEM_CUDA_ACCESS_NOT_MAPPED;
    return true;
  }
  *access = SHMEM_CUDA_ACCESS_OK;
  return true;
}

int p_kernel_access(void* ctx, const void* addr, int* access, int* device, char* err, std::size_t err_len) {
  return guarded(err, err_len, [&](std::string* e) {
    const Context& c = as_ctx(ctx);
    const KeepCurrent keep(c);
    if (!c.make_current(e)) return false;
    unsigned int type = 0;
    CUdeviceptr dptr = 0;
    unsigned long long managed = 0;  // a bool: whatever width the driver writes, zero stays zero
    int ordinal = -1;
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
                                   CU_POINTER_ATTRIBUTE_IS_MANAGED, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
    void* data[] = {&type, &dptr, &managed, &ordinal};
    // Plain host memory is no error here: every attribute stays zero.
    if (!c.ok("cuPointerGetAttributes",
              c.drv().cuPointerGetAttributes(4, attrs, data, reinterpret_cast<CUdeviceptr>(addr)), e))
      return false;
    *device = type == CU_MEMORYTYPE_DEVICE ? ordinal : -1;
    if (managed == 0 && type == CU_MEMORYTYPE_DEVICE && ordinal != c.ordinal())
      return peer_access(c, addr, ordinal, access, e);
    bool reach = managed != 0 || type == CU_MEMORYTYPE_DEVICE ||
                 (type == CU_MEMORYTYPE_HOST && dptr == reinterpret_cast<CUdeviceptr>(addr));
    if (!reach && type == 0) {  // not CUDA memory: only where the device reads pageable memory
      int pageable = 0;
      if (!c.ok("cuDeviceGetAttribute",
                c.drv().cuDeviceGetAttribute(&pageable, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, c.device()), e))
        return false;
      reach = pageable != 0;
    }
    *access = reach ? SHMEM_CUDA_ACCESS_OK : SHMEM_CUDA_ACCESS_PAGEABLE;
    return true;
  });
}

constexpr shmem_cuda_plugin kTable = {
    SHMEM_PLUGIN_HEAD(SHMEM_PLUGIN_KIND_CUDA, SHMEM_CUDA_PLUGIN_ABI_VERSION, shmem_cuda_plugin),
    p_open,
    p_close,
    p_heap_create,
    p_heap_map,
    p_heap_destroy,
    p_copy,
    p_copy_2d,
    p_memset8,
    p_host_alloc,
    p_host_free,
    p_device_alloc,
    p_device_free,
    p_stream_sync,
    p_stream_op,
    p_atomic,
    p_kernel_access};

}  // namespace
}  // namespace shmem::cuda

extern "C" __attribute__((visibility("default"))) const shmem_plugin_head* shmem_plugin_table() {
  return &shmem::cuda::kTable.head;
}
