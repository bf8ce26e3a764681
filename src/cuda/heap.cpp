#include "cuda/heap.hpp"

#include <cstdint>
#include <cstring>

namespace shmem::cuda {

std::unique_ptr<Heap> Heap::create(const Context& ctx, std::size_t bytes, int* fd, std::string* error) {
  const Driver& d = ctx.drv();
  if (!ctx.make_current(error)) return nullptr;
  std::size_t total = 0;
  if (!ctx.ok("cuDeviceTotalMem", d.cuDeviceTotalMem(&total, ctx.device()), error)) return nullptr;
  if (bytes > total) {
    *error = "a GPU heap of " + std::to_string(bytes) + " bytes is larger than CUDA device " +
             std::to_string(ctx.ordinal()) + "'s memory (" + std::to_string(total) +
             " bytes): lower SHMEM_CUDA_HEAP_SIZE";
    return nullptr;
  }
  std::unique_ptr<Heap> h(new Heap(ctx, bytes));
  const CUmemAllocationProp prop = heap_properties(ctx.ordinal());
  const CUresult r = d.cuMemCreate(&h->own_, bytes, &prop, 0);
  if (r != CUDA_SUCCESS) {
    h->own_ = 0;
    *error =
        d.describe("cuMemCreate", r) + " for a GPU heap of " + std::to_string(bytes) + " bytes on CUDA device " +
        std::to_string(ctx.ordinal()) +
        (r == CUDA_ERROR_OUT_OF_MEMORY ? ": lower SHMEM_CUDA_HEAP_SIZE (the PEs sharing a GPU each have one)" : "");
    return nullptr;
  }
  int exported = -1;
  if (!ctx.ok("cuMemExportToShareableHandle",
              d.cuMemExportToShareableHandle(&exported, h->own_, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), error))
    return nullptr;
  *fd = exported;
  return h;
}

bool Heap::reachable(const unsigned char* uuid, int local, std::string* error) const {
  const Driver& d = ctx_.drv();
  int count = 0;
  if (!ctx_.ok("cuDeviceGetCount", d.cuDeviceGetCount(&count), error)) return false;
  for (int i = 0; i < count; ++i) {
    CUdevice dev = 0;
    CUuuid u{};
    if (!ctx_.ok("cuDeviceGet", d.cuDeviceGet(&dev, i), error) ||
        !ctx_.ok("cuDeviceGetUuid", d.cuDeviceGetUuid(&u, dev), error))
      return false;
    if (std::memcmp(u.bytes, uuid, sizeof u.bytes) != 0) continue;
    if (dev == ctx_.device()) return true;
    int can = 0;
    if (!ctx_.ok("cuDeviceCanAccessPeer", d.cuDeviceCanAccessPeer(&can, ctx_.device(), dev), error)) return false;
    if (can) return true;
    *error = "CUDA device " + std::to_string(ctx_.ordinal()) + " cannot access the memory of device " +
             std::to_string(i) + " (local PE " + std::to_string(local) +
             "'s GPU): no peer access between them (cuDeviceCanAccessPeer = 0); run the PEs of this node on GPUs "
             "with peer access (NVLink or a PCIe switch), or on one GPU";
    return false;
  }
  *error = "local PE " + std::to_string(local) +
           "'s GPU is not visible in this process: every PE of a node must see "
           "the same GPUs (CUDA_VISIBLE_DEVICES; choose a PE's GPU with SHMEM_CUDA_DEVICE instead)";
  return false;
}

bool Heap::map(int n_local, int my_local, const int* fds, const unsigned char (*uuids)[16], void** base,
               std::string* error) {
  const Driver& d = ctx_.drv();
  if (!ctx_.make_current(error)) return false;
  for (int i = 0; i < n_local; ++i)
    if (!reachable(uuids[i], i, error)) return false;
  const std::size_t range = bytes_ * static_cast<std::size_t>(n_local);
  if (!ctx_.ok("cuMemAddressReserve", d.cuMemAddressReserve(&base_, range, ctx_.granularity(), 0, 0), error)) {
    base_ = 0;
    return false;
  }
  reserved_ = range;
  for (int i = 0; i < n_local; ++i) {
    CUmemGenericAllocationHandle h = own_;
    if (i != my_local) {
      void* os_handle = reinterpret_cast<void*>(static_cast<std::uintptr_t>(fds[i]));
      if (!ctx_.ok("cuMemImportFromShareableHandle",
                   d.cuMemImportFromShareableHandle(&h, os_handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR), error))
        return false;
      imported_.push_back(h);
    }
    const CUdeviceptr at = base_ + bytes_ * static_cast<std::size_t>(i);
    if (!ctx_.ok("cuMemMap", d.cuMemMap(at, bytes_, 0, h, 0), error)) return false;
    mapped_.push_back(at);
  }
  CUmemAccessDesc access{};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = ctx_.ordinal();
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if (!ctx_.ok("cuMemSetAccess", d.cuMemSetAccess(base_, range, &access, 1), error)) return false;
  *base = reinterpret_cast<void*>(base_);
  return true;
}

Heap::~Heap() {
  const Driver& d = ctx_.drv();
  std::string ignored;
  ctx_.make_current(&ignored);
  for (CUdeviceptr at : mapped_) d.cuMemUnmap(at, bytes_);
  if (base_) d.cuMemAddressFree(base_, reserved_);
  for (CUmemGenericAllocationHandle h : imported_) d.cuMemRelease(h);
  if (own_) d.cuMemRelease(own_);
}

}  // namespace shmem::cuda
