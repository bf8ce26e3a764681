// libshmem_fakecuda.so: a stand-in CUDA driver on host memory, so that the CUDA plugin's heap
// logic runs (and is tested) on machines without a GPU: SHMEM_CUDA_DRIVER=<this library>.
// Allocations are memfds; a reservation is a PROT_NONE range; a mapping is the memfd mapped
// PROT_NONE into that range, exactly where the device would see it, so a host load or store
// of "GPU" memory faults here as on a real GPU. Copies go through a private read/write view
// of the same memfd (as the copy engine would). Only what the plugin uses is provided, through
// cuGetProcAddress_v2, with the real signatures (static_asserts below).
//   FAKECUDA_DEVICES       devices (default 1; 0: cuInit fails with CUDA_ERROR_NO_DEVICE)
//   FAKECUDA_NO_PEER=1     devices cannot access each other's memory
//   FAKECUDA_MEMORY        bytes of memory per device (default 4 GiB)
//   FAKECUDA_GRANULARITY   allocation granularity (default 2 MiB)
//   FAKECUDA_PAGEABLE=1    devices access pageable host memory (HMM)
// Memory belongs to a device: cuMemCreate's location, cuMemAlloc's current context. Another
// device reads it (cuPointerGetAttribute's ACCESS_FLAGS, cuMemGetAccess) only where cuMemSetAccess
// granted it (cuMem memory) or cuCtxEnablePeerAccess enabled the owner's context (cuMemAlloc).
#include <cuda.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <type_traits>

#include "fakecuda.h"

namespace {

std::size_t env_size(const char* name, std::size_t dflt) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 0) : dflt;
}
int devices() { return static_cast<int>(env_size("FAKECUDA_DEVICES", 1)); }
std::size_t memory() { return env_size("FAKECUDA_MEMORY", std::size_t{4} << 30); }
std::size_t granularity() { return env_size("FAKECUDA_GRANULARITY", std::size_t{2} << 20); }

constexpr std::size_t kDirtyBytes = std::size_t{64} << 20;

struct Alloc {
  int fd;
  std::size_t size;
  int device;             // whose memory it is (-1: unknown)
  bool imported = false;  // another process's: not counted in used[]
};
struct Mapping {
  std::size_t size;
  char* shadow;               // the driver's own read/write view
  bool access;                // cuMemSetAccess granted (to some device)
  bool owned;                 // a cuMemAlloc block (the fake made its memfd)
  int device;                 // whose memory it is (-1: unknown)
  std::uint64_t devices = 0;  // cuMem memory: the devices cuMemSetAccess granted, a bit each
};

struct State {
  std::mutex mu;
  bool initialised = false;
  std::set<Alloc*> allocs;
  std::map<std::uintptr_t, std::size_t> reservations;
  std::map<std::uintptr_t, Mapping> mappings;
  std::set<void*> host;
  std::map<void*, std::size_t> host_size;
  std::set<CUstream> streams;
  std::set<std::pair<int, int>> peers;  // cuCtxEnablePeerAccess: (device of the current context, peer's)
  CUresult lost = CUDA_SUCCESS;         // fakecuda_lose_contexts
  std::map<CUstream, CUresult> failed;  // fakecuda_fail_stream
  int retained[64] = {};
  std::size_t used[64] = {};
};
State& st() {
  static State* s = new State();
  return *s;
}
thread_local CUcontext t_current = nullptr;

CUcontext ctx_of(int device) { return reinterpret_cast<CUcontext>(static_cast<std::uintptr_t>(0x1000 + device)); }
int device_of(CUcontext c) { return c ? static_cast<int>(reinterpret_cast<std::uintptr_t>(c) - 0x1000) : -1; }

// The mapping holding p, or nullptr.
Mapping* mapping_at(CUdeviceptr p) {
  auto m = st().mappings.upper_bound(p);
  if (m == st().mappings.begin() || p >= std::prev(m)->first + std::prev(m)->second.size) return nullptr;
  return &std::prev(m)->second;
}

// The device an allocation's memfd belongs to ("fakecuda-dev<N>"; imported ones carry it in their
// name), -1 when it does not say.
int memfd_device(int fd) {
  char link[128] = "";
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (::readlink(path.c_str(), link, sizeof link - 1) < 0) return -1;
  const char* at = std::strstr(link, "fakecuda-dev");
  return at ? std::atoi(at + std::strlen("fakecuda-dev")) : -1;
}

// The host view of [p, p + n): inside one accessible mapping, or ordinary host memory.
// nullptr: device memory that is unmapped, inaccessible, or crosses a mapping's end.
char* view(CUdeviceptr p, std::size_t n) {
  State& s = st();
  auto it = s.mappings.upper_bound(p);
  if (it != s.mappings.begin()) {
    --it;
    if (p < it->first + it->second.size) {
      if (!it->second.access || p + n > it->first + it->second.size) return nullptr;
      return it->second.shadow + (p - it->first);
    }
  }
  auto r = s.reservations.upper_bound(p);
  if (r != s.reservations.begin()) {
    --r;
    if (p < r->first + r->second) return nullptr;  // reserved but not mapped there
  }
  return reinterpret_cast<char*>(p);
}

CUresult need_ctx() { return t_current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT; }

CUresult fk_cuInit(unsigned int) {
  std::lock_guard<std::mutex> l(st().mu);
  if (devices() <= 0) return CUDA_ERROR_NO_DEVICE;
  st().initialised = true;
  return CUDA_SUCCESS;
}
CUresult fk_cuDriverGetVersion(int* v) {
  *v = 13000;
  return CUDA_SUCCESS;
}
CUresult fk_cuDeviceGetCount(int* n) {
  if (!st().initialised) return CUDA_ERROR_NOT_INITIALIZED;
  *n = devices();
  return CUDA_SUCCESS;
}
CUresult fk_cuDeviceGet(CUdevice* d, int ordinal) {
  if (ordinal < 0 || ordinal >= devices()) return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}
CUresult fk_cuDeviceGetName(char* name, int len, CUdevice d) {
  std::snprintf(name, static_cast<std::size_t>(len), "Fake GPU %d", d);
  return CUDA_SUCCESS;
}
CUresult fk_cuDeviceGetUuid(CUuuid* u, CUdevice d) {
  std::memset(u->bytes, 0, sizeof u->bytes);
  std::memcpy(u->bytes, "FAKECUDA", 8);
  u->bytes[15] = static_cast<char>(d);
  return CUDA_SUCCESS;
}
CUresult fk_cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice) {
  const char* pageable = std::getenv("FAKECUDA_PAGEABLE");
  *v = a == CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED ||
       a == CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED ||
       (a == CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS && pageable && *pageable == '1');
  return CUDA_SUCCESS;
}
bool can_access_peer(CUdevice a, CUdevice b) {
  const char* no = std::getenv("FAKECUDA_NO_PEER");
  return a != b && !(no && *no == '1');
}
CUresult fk_cuDeviceCanAccessPeer(int* can, CUdevice a, CUdevice b) {
  *can = can_access_peer(a, b);
  return CUDA_SUCCESS;
}
CUresult fk_cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags) {
  if (need_ctx() != CUDA_SUCCESS || peer == t_current || device_of(peer) < 0 || device_of(peer) >= devices())
    return CUDA_ERROR_INVALID_CONTEXT;
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (!can_access_peer(device_of(t_current), device_of(peer))) return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
  std::lock_guard<std::mutex> l(st().mu);
  return st().peers.emplace(device_of(t_current), device_of(peer)).second ? CUDA_SUCCESS
                                                                          : CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
}
CUresult fk_cuDeviceTotalMem(std::size_t* bytes, CUdevice) {
  *bytes = memory();
  return CUDA_SUCCESS;
}
CUresult fk_cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) {
  std::lock_guard<std::mutex> l(st().mu);
  if (d < 0 || d >= devices()) return CUDA_ERROR_INVALID_DEVICE;
  ++st().retained[d];
  *c = ctx_of(d);
  return CUDA_SUCCESS;
}
CUresult fk_cuDevicePrimaryCtxRelease(CUdevice d) {
  std::lock_guard<std::mutex> l(st().mu);
  if (d < 0 || d >= devices() || st().retained[d] == 0) return CUDA_ERROR_INVALID_CONTEXT;
  --st().retained[d];
  return CUDA_SUCCESS;
}
CUresult fk_cuCtxSetCurrent(CUcontext c) {
  t_current = c;
  return CUDA_SUCCESS;
}
CUresult fk_cuCtxGetCurrent(CUcontext* c) {
  *c = t_current;
  return CUDA_SUCCESS;
}
CUresult fk_cuMemGetAllocationGranularity(std::size_t* g, const CUmemAllocationProp*,
                                          CUmemAllocationGranularity_flags) {
  *g = granularity();
  return CUDA_SUCCESS;
}
CUresult fk_cuMemAddressReserve(CUdeviceptr* p, std::size_t size, std::size_t align, CUdeviceptr, unsigned long long) {
  if (size == 0 || size % granularity() != 0) return CUDA_ERROR_INVALID_VALUE;
  if (align == 0) align = granularity();
  void* m = ::mmap(nullptr, size + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
  const auto raw = reinterpret_cast<std::uintptr_t>(m);
  const std::uintptr_t at = (raw + align - 1) / align * align;
  if (at > raw) ::munmap(m, at - raw);
  if (raw + align > at) ::munmap(reinterpret_cast<void*>(at + size), raw + align - at);
  std::lock_guard<std::mutex> l(st().mu);
  st().reservations[at] = size;
  *p = at;
  return CUDA_SUCCESS;
}
CUresult fk_cuMemAddressFree(CUdeviceptr p, std::size_t size) {
  std::lock_guard<std::mutex> l(st().mu);
  auto it = st().reservations.find(p);
  if (it == st().reservations.end() || it->second != size) return CUDA_ERROR_INVALID_VALUE;
  auto m = st().mappings.lower_bound(p);
  if (m != st().mappings.end() && m->first < p + size) return CUDA_ERROR_INVALID_VALUE;  // still mapped
  ::munmap(reinterpret_cast<void*>(p), size);
  st().reservations.erase(it);
  return CUDA_SUCCESS;
}
CUresult fk_cuMemCreate(CUmemGenericAllocationHandle* h, std::size_t size, const CUmemAllocationProp* prop,
                        unsigned long long) {
  if (need_ctx() != CUDA_SUCCESS) return CUDA_ERROR_INVALID_CONTEXT;
  if (size == 0 || size % granularity() != 0 || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED ||
      prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE || prop->location.id < 0 || prop->location.id >= devices() ||
      !(prop->requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
    return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> l(st().mu);
  std::size_t& used = st().used[prop->location.id];
  if (used + size > memory()) return CUDA_ERROR_OUT_OF_MEMORY;
  const std::string name = "fakecuda-dev" + std::to_string(prop->location.id);
  const int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(size)) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
  // Device memory comes with the last user's bytes: so must this (the first 64 MiB), so that
  // whatever the library must zero is seen not to be zero until it does.
  if (void* m = ::mmap(nullptr, std::min(size, kDirtyBytes), PROT_WRITE, MAP_SHARED, fd, 0); m != MAP_FAILED) {
    std::memset(m, 0xa5, std::min(size, kDirtyBytes));
    ::munmap(m, std::min(size, kDirtyBytes));
  }
  used += size;
  auto* a = new Alloc{fd, size, prop->location.id};
  st().allocs.insert(a);
  *h = reinterpret_cast<CUmemGenericAllocationHandle>(a);
  return CUDA_SUCCESS;
}
Alloc* find(CUmemGenericAllocationHandle h) {
  auto* a = reinterpret_cast<Alloc*>(h);
  return st().allocs.count(a) ? a : nullptr;
}
CUresult fk_cuMemRelease(CUmemGenericAllocationHandle h) {
  std::lock_guard<std::mutex> l(st().mu);
  Alloc* a = find(h);
  if (!a) return CUDA_ERROR_INVALID_HANDLE;
  if (!a->imported) st().used[a->device] -= a->size;
  ::close(a->fd);
  st().allocs.erase(a);
  delete a;
  return CUDA_SUCCESS;
}
CUresult fk_cuMemExportToShareableHandle(void* out, CUmemGenericAllocationHandle h, CUmemAllocationHandleType type,
                                         unsigned long long) {
  std::lock_guard<std::mutex> l(st().mu);
  Alloc* a = find(h);
  if (!a || type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_INVALID_VALUE;
  *static_cast<int*>(out) = ::fcntl(a->fd, F_DUPFD_CLOEXEC, 0);
  return CUDA_SUCCESS;
}
CUresult fk_cuMemImportFromShareableHandle(CUmemGenericAllocationHandle* h, void* os, CUmemAllocationHandleType type) {
  if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_INVALID_VALUE;
  const int fd = static_cast<int>(reinterpret_cast<std::uintptr_t>(os));
  struct stat sb {};
  if (::fstat(fd, &sb) != 0) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> l(st().mu);
  auto* a = new Alloc{::fcntl(fd, F_DUPFD_CLOEXEC, 0), static_cast<std::size_t>(sb.st_size), -1};
  a->device = memfd_device(a->fd);
  a->imported = true;
  st().allocs.insert(a);
  *h = reinterpret_cast<CUmemGenericAllocationHandle>(a);
  return CUDA_SUCCESS;
}
CUresult map_fd(CUdeviceptr p, std::size_t size, int fd, std::size_t offset, bool owned, int device) {
  State& s = st();
  auto r = s.reservations.upper_bound(p);
  if (!owned) {
    if (r == s.reservations.begin()) return CUDA_ERROR_INVALID_VALUE;
    --r;
    if (p < r->first || p + size > r->first + r->second) return CUDA_ERROR_INVALID_VALUE;
    auto m = s.mappings.lower_bound(p);
    if (m != s.mappings.end() && m->first < p + size) return CUDA_ERROR_INVALID_VALUE;
    if (m != s.mappings.begin() && (--m)->first + m->second.size > p) return CUDA_ERROR_INVALID_VALUE;
  }
  void* dev =
      ::mmap(reinterpret_cast<void*>(p), size, PROT_NONE, MAP_SHARED | MAP_FIXED, fd, static_cast<off_t>(offset));
  void* shadow = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(offset));
  if (dev == MAP_FAILED || shadow == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
  s.mappings[p] = Mapping{size, static_cast<char*>(shadow), owned, owned, device};
  return CUDA_SUCCESS;
}
CUresult fk_cuMemMap(CUdeviceptr p, std::size_t size, std::size_t offset, CUmemGenericAllocationHandle h,
                     unsigned long long) {
  std::lock_guard<std::mutex> l(st().mu);
  Alloc* a = find(h);
  if (!a || offset + size > a->size) return CUDA_ERROR_INVALID_VALUE;
  return map_fd(p, size, a->fd, offset, false, a->device);
}
CUresult fk_cuMemUnmap(CUdeviceptr p, std::size_t size) {
  std::lock_guard<std::mutex> l(st().mu);
  auto it = st().mappings.find(p);
  if (it == st().mappings.end() || it->second.size != size || it->second.owned) return CUDA_ERROR_INVALID_VALUE;
  ::munmap(it->second.shadow, size);
  ::mmap(reinterpret_cast<void*>(p), size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
  st().mappings.erase(it);
  return CUDA_SUCCESS;
}
CUresult fk_cuMemSetAccess(CUdeviceptr p, std::size_t size, const CUmemAccessDesc* desc, std::size_t count) {
  std::lock_guard<std::mutex> l(st().mu);
  if (count == 0) return CUDA_ERROR_INVALID_VALUE;
  std::uint64_t granted = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE || desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE ||
        desc[i].location.id < 0 || desc[i].location.id >= devices())
      return CUDA_ERROR_INVALID_VALUE;
    granted |= std::uint64_t{1} << desc[i].location.id;
  }
  // The whole range must be mapped, without gaps.
  CUdeviceptr at = p;
  while (at < p + size) {
    auto it = st().mappings.find(at);
    if (it == st().mappings.end()) return CUDA_ERROR_INVALID_VALUE;
    at += it->second.size;
  }
  for (auto it = st().mappings.find(p); it != st().mappings.end() && it->first < p + size; ++it) {
    it->second.access = true;
    it->second.devices |= granted;
  }
  return CUDA_SUCCESS;
}
// cuMem memory only (a cuMemAlloc block is "not a valid mapping" here, as on the driver).
CUresult fk_cuMemGetAccess(unsigned long long* flags, const CUmemLocation* location, CUdeviceptr p) {
  std::lock_guard<std::mutex> l(st().mu);
  const Mapping* m = mapping_at(p);
  if (!m || m->owned || location->type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
  *flags = (m->devices >> location->id) & 1 ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE : CU_MEM_ACCESS_FLAGS_PROT_NONE;
  return CUDA_SUCCESS;
}
CUresult copy(CUdeviceptr dst, CUdeviceptr src, std::size_t n, CUstream s) {
  if (need_ctx() != CUDA_SUCCESS) return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard<std::mutex> l(st().mu);
  if (s && !st().streams.count(s)) return CUDA_ERROR_INVALID_HANDLE;
  char* d = view(dst, n);
  char* v = view(src, n);
  if (!d || !v) return CUDA_ERROR_INVALID_VALUE;
  std::memmove(d, v, n);
  return CUDA_SUCCESS;
}
CUresult fk_cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, std::size_t n, CUstream s) { return copy(dst, src, n, s); }
CUresult fk_cuMemcpy2DAsync(const CUDA_MEMCPY2D* m, CUstream s) {
  auto addr = [](CUmemorytype t, const void* host, CUdeviceptr dev) {
    return t == CU_MEMORYTYPE_HOST ? reinterpret_cast<CUdeviceptr>(host) : dev;
  };
  if (m->srcPitch < m->WidthInBytes || m->dstPitch < m->WidthInBytes) return CUDA_ERROR_INVALID_VALUE;
  const CUdeviceptr src = addr(m->srcMemoryType, m->srcHost, m->srcDevice) + m->srcXInBytes + m->srcY * m->srcPitch;
  const CUdeviceptr dst = addr(m->dstMemoryType, m->dstHost, m->dstDevice) + m->dstXInBytes + m->dstY * m->dstPitch;
  for (std::size_t row = 0; row < m->Height; ++row)
    if (CUresult r = copy(dst + row * m->dstPitch, src + row * m->srcPitch, m->WidthInBytes, s); r != CUDA_SUCCESS)
      return r;
  return CUDA_SUCCESS;
}
CUresult fk_cuMemsetD8Async(CUdeviceptr dst, unsigned char v, std::size_t n, CUstream s) {
  if (need_ctx() != CUDA_SUCCESS) return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard<std::mutex> l(st().mu);
  if (s && !st().streams.count(s)) return CUDA_ERROR_INVALID_HANDLE;
  char* d = view(dst, n);
  if (!d) return CUDA_ERROR_INVALID_VALUE;
  std::memset(d, v, n);
  return CUDA_SUCCESS;
}
CUresult fk_cuMemHostAlloc(void** p, std::size_t size, unsigned int) {
  if (need_ctx() != CUDA_SUCCESS) return CUDA_ERROR_INVALID_CONTEXT;
  void* m = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
  std::lock_guard<std::mutex> l(st().mu);
  st().host.insert(m);
  st().host_size[m] = size;
  *p = m;
  return CUDA_SUCCESS;
}
CUresult fk_cuMemFreeHost(void* p) {
  std::lock_guard<std::mutex> l(st().mu);
  if (!st().host.count(p)) return CUDA_ERROR_INVALID_VALUE;
  ::munmap(p, st().host_size[p]);
  st().host.erase(p);
  st().host_size.erase(p);
  return CUDA_SUCCESS;
}
CUresult fk_cuMemHostGetDevicePointer(CUdeviceptr* d, void* p, unsigned int) {
  std::lock_guard<std::mutex> l(st().mu);
  if (!st().host.count(p)) return CUDA_ERROR_INVALID_VALUE;
  *d = reinterpret_cast<CUdeviceptr>(p);  // unified addressing: the same address
  return CUDA_SUCCESS;
}
CUresult fk_cuMemAlloc(CUdeviceptr* d, std::size_t size) {
  if (need_ctx() != CUDA_SUCCESS) return CUDA_ERROR_INVALID_CONTEXT;
  const std::size_t bytes = (size + 4095) / 4096 * 4096;
  const int device = device_of(t_current);
  const std::string name = "fakecuda-dev" + std::to_string(device);
  const int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(bytes)) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
  void* at = ::mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  std::lock_guard<std::mutex> l(st().mu);
  const CUresult r = at == MAP_FAILED ? CUDA_ERROR_OUT_OF_MEMORY
                                      : map_fd(reinterpret_cast<CUdeviceptr>(at), bytes, fd, 0, true, device);
  ::close(fd);  // the mappings hold the memory
  if (r == CUDA_SUCCESS) *d = reinterpret_cast<CUdeviceptr>(at);
  return r;
}
CUresult fk_cuMemFree(CUdeviceptr d) {
  std::lock_guard<std::mutex> l(st().mu);
  auto it = st().mappings.find(d);
  if (it == st().mappings.end() || !it->second.owned) return CUDA_ERROR_INVALID_VALUE;
  ::munmap(it->second.shadow, it->second.size);
  ::munmap(reinterpret_cast<void*>(d), it->second.size);
  st().mappings.erase(it);
  return CUDA_SUCCESS;
}
// Device memory: any mapping (heaps, cuMemAlloc), of its device; host memory: cuMemHostAlloc
// blocks, mapped at the same address. Anything else (pageable memory) gets the defaults, zero, as
// from the driver.
bool host_block(CUdeviceptr p) {
  for (const auto& [base, size] : st().host_size)
    if (p >= reinterpret_cast<CUdeviceptr>(base) && p < reinterpret_cast<CUdeviceptr>(base) + size) return true;
  return false;
}
CUresult fk_cuPointerGetAttributes(unsigned int n, CUpointer_attribute* attrs, void** data, CUdeviceptr p) {
  std::lock_guard<std::mutex> l(st().mu);
  const Mapping* m = mapping_at(p);
  unsigned int type = m ? CU_MEMORYTYPE_DEVICE : 0;
  int device = m ? m->device : 0;
  if (host_block(p)) type = CU_MEMORYTYPE_HOST, device = std::max(0, device_of(t_current));
  for (unsigned int i = 0; i < n; ++i) {
    switch (attrs[i]) {
      case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *static_cast<unsigned int*>(data[i]) = type; break;
      case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *static_cast<CUdeviceptr*>(data[i]) = type ? p : 0; break;
      case CU_POINTER_ATTRIBUTE_IS_MANAGED: *static_cast<bool*>(data[i]) = false; break;
      case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *static_cast<int*>(data[i]) = device; break;
      default: return CUDA_ERROR_INVALID_VALUE;
    }
  }
  return CUDA_SUCCESS;
}
// ACCESS_FLAGS only: what the current context's device may do with the memory (its own device
// memory; another device's where cuMemSetAccess granted it (cuMem) or peer access to the owner's
// context is enabled (cuMemAlloc); pinned host memory).
CUresult fk_cuPointerGetAttribute(void* data, CUpointer_attribute attr, CUdeviceptr p) {
  if (attr != CU_POINTER_ATTRIBUTE_ACCESS_FLAGS) return CUDA_ERROR_INVALID_VALUE;
  if (need_ctx() != CUDA_SUCCESS) return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard<std::mutex> l(st().mu);
  const int here = device_of(t_current);
  const Mapping* m = mapping_at(p);
  bool can = false;
  if (m && m->owned)
    can = m->device == here || st().peers.count({here, m->device}) != 0;
  else if (m)
    can = ((m->devices >> here) & 1) != 0;
  else if (host_block(p))
    can = true;
  else
    return CUDA_ERROR_INVALID_VALUE;  // not CUDA memory
  *static_cast<unsigned int*>(data) =
      can ? CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE : CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE;
  return CUDA_SUCCESS;
}
CUresult fk_cuStreamCreate(CUstream* s, unsigned int) {
  if (need_ctx() != CUDA_SUCCESS) return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard<std::mutex> l(st().mu);
  *s = reinterpret_cast<CUstream>(new char);
  st().streams.insert(*s);
  return CUDA_SUCCESS;
}
CUresult fk_cuStreamDestroy(CUstream s) {
  std::lock_guard<std::mutex> l(st().mu);
  if (!st().streams.erase(s)) return CUDA_ERROR_INVALID_HANDLE;
  delete reinterpret_cast<char*>(s);
  return CUDA_SUCCESS;
}
// Work completes when enqueued, so a stream is always idle: synchronize and query agree.
CUresult fk_cuStreamSynchronize(CUstream s) {
  if (need_ctx() != CUDA_SUCCESS) return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard<std::mutex> l(st().mu);
  if (st().lost != CUDA_SUCCESS) return st().lost;
  if (auto f = st().failed.find(s); f != st().failed.end()) return f->second;
  return !s || st().streams.count(s) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
CUresult fk_cuStreamQuery(CUstream s) {
  if (need_ctx() != CUDA_SUCCESS) return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard<std::mutex> l(st().mu);
  if (st().lost != CUDA_SUCCESS) return st().lost;
  return !s || st().streams.count(s) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
const char* error_name(CUresult r) {
  switch (r) {
    case CUDA_SUCCESS: return "CUDA_SUCCESS";
    case CUDA_ERROR_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
    case CUDA_ERROR_OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
    case CUDA_ERROR_NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
    case CUDA_ERROR_NO_DEVICE: return "CUDA_ERROR_NO_DEVICE";
    case CUDA_ERROR_INVALID_DEVICE: return "CUDA_ERROR_INVALID_DEVICE";
    case CUDA_ERROR_INVALID_CONTEXT: return "CUDA_ERROR_INVALID_CONTEXT";
    case CUDA_ERROR_INVALID_HANDLE: return "CUDA_ERROR_INVALID_HANDLE";
    case CUDA_ERROR_ILLEGAL_ADDRESS: return "CUDA_ERROR_ILLEGAL_ADDRESS";
    case CUDA_ERROR_LAUNCH_FAILED: return "CUDA_ERROR_LAUNCH_FAILED";
    case CUDA_ERROR_PEER_ACCESS_UNSUPPORTED: return "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED";
    case CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED: return "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED";
    default: return nullptr;
  }
}
CUresult fk_cuGetErrorName(CUresult r, const char** s) {
  *s = error_name(r);
  return *s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult fk_cuGetErrorString(CUresult r, const char** s) {
  *s = r == CUDA_ERROR_NO_DEVICE ? "no CUDA-capable device is detected" : error_name(r) ? "fake driver error" : nullptr;
  return *s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

struct Entry {
  const char* name;
  void* fn;
};
#define FAKE_ENTRY(name)                                                                      \
  static_assert(std::is_same_v<decltype(&fk_##name), decltype(&::name)>, #name " signature"); \
  entries[n++] = Entry{#name, reinterpret_cast<void*>(&fk_##name)};

const Entry* table(int* count) {
  static Entry entries[64];
  static int n = [] {
    int n = 0;
    // clang-format off
    FAKE_ENTRY(cuInit)
    FAKE_ENTRY(cuDriverGetVersion)
    FAKE_ENTRY(cuDeviceGetCount)
    FAKE_ENTRY(cuDeviceGet)
    FAKE_ENTRY(cuDeviceGetName)
    FAKE_ENTRY(cuDeviceGetUuid)
    FAKE_ENTRY(cuDeviceGetAttribute)
    FAKE_ENTRY(cuDeviceCanAccessPeer)
    FAKE_ENTRY(cuCtxEnablePeerAccess)
    FAKE_ENTRY(cuDeviceTotalMem)
    FAKE_ENTRY(cuDevicePrimaryCtxRetain)
    FAKE_ENTRY(cuDevicePrimaryCtxRelease)
    FAKE_ENTRY(cuCtxSetCurrent)
    FAKE_ENTRY(cuCtxGetCurrent)
    FAKE_ENTRY(cuMemGetAllocationGranularity)
    FAKE_ENTRY(cuMemAddressReserve)
    FAKE_ENTRY(cuMemAddressFree)
    FAKE_ENTRY(cuMemCreate)
    FAKE_ENTRY(cuMemRelease)
    FAKE_ENTRY(cuMemExportToShareableHandle)
    FAKE_ENTRY(cuMemImportFromShareableHandle)
    FAKE_ENTRY(cuMemMap)
    FAKE_ENTRY(cuMemUnmap)
    FAKE_ENTRY(cuMemSetAccess)
    FAKE_ENTRY(cuMemGetAccess)
    FAKE_ENTRY(cuMemcpyAsync)
    FAKE_ENTRY(cuMemcpy2DAsync)
    FAKE_ENTRY(cuMemsetD8Async)
    FAKE_ENTRY(cuMemHostAlloc)
    FAKE_ENTRY(cuMemFreeHost)
    FAKE_ENTRY(cuMemHostGetDevicePointer)
    FAKE_ENTRY(cuMemAlloc)
    FAKE_ENTRY(cuMemFree)
    FAKE_ENTRY(cuPointerGetAttribute)
    FAKE_ENTRY(cuPointerGetAttributes)
    FAKE_ENTRY(cuStreamCreate)
    FAKE_ENTRY(cuStreamDestroy)
    FAKE_ENTRY(cuStreamSynchronize)
    FAKE_ENTRY(cuStreamQuery)
    FAKE_ENTRY(cuGetErrorName)
    FAKE_ENTRY(cuGetErrorString)
    // clang-format on
    return n;
  }();
  *count = n;
  return entries;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int, cuuint64_t,
                                                                    CUdriverProcAddressQueryResult* status) {
  int n = 0;
  const Entry* e = table(&n);
  for (int i = 0; i < n; ++i)
    if (std::strcmp(e[i].name, symbol) == 0) {
      *pfn = e[i].fn;
      if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
      return CUDA_SUCCESS;
    }
  *pfn = nullptr;
  if (status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}

__attribute__((visibility("default"))) void fakecuda_live(FakeCudaLive* out) {
  std::lock_guard<std::mutex> l(st().mu);
  State& s = st();
  out->allocations = static_cast<int>(s.allocs.size());
  out->reservations = static_cast<int>(s.reservations.size());
  out->mappings = static_cast<int>(s.mappings.size());
  out->host_allocations = static_cast<int>(s.host.size());
  out->streams = static_cast<int>(s.streams.size());
  out->retained = 0;
  for (int r : s.retained) out->retained += r;
}

__attribute__((visibility("default"))) void fakecuda_lose_contexts(int r) {
  std::lock_guard<std::mutex> l(st().mu);
  st().lost = static_cast<CUresult>(r);
}

__attribute__((visibility("default"))) void fakecuda_fail_stream(void* s, int r) {
  std::lock_guard<std::mutex> l(st().mu);
  if (r == CUDA_SUCCESS)
    st().failed.erase(static_cast<CUstream>(s));
  else
    st().failed[static_cast<CUstream>(s)] = static_cast<CUresult>(r);
}

__attribute__((visibility("default"))) void* fakecuda_host_view(const void* device_address, size_t bytes) {
  std::lock_guard<std::mutex> l(st().mu);
  char* v = view(reinterpret_cast<CUdeviceptr>(device_address), bytes);
  return v == device_address ? nullptr : v;  // device memory only
}

}  // extern "C"
