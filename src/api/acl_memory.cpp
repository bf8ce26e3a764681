// Symmetric memory of aclshmem.h: aclshmem_malloc / calloc / align / free, the aclshmemx_ forms
// with a memory type, aclshmemx_get_heap_base and aclshmem_ptr. Device memory (DEVICE_SIDE, and
// the untyped names, which are device memory in Ascend SHMEM) is the one symmetric heap, shared with
// HOST_SIDE, unless SHMEM_ACL_DEVICE=cuda: then it is the GPU heap of the CUDA backend
// (docs/aclshmem.md). The core allocators are collective and log the reason when they return NULL.
#include <cstdint>
#include <cstring>

#include "api/acl_shim.hpp"
#include "core/gpu_heap.hpp"
#include "core/heap_allocator.hpp"
#include "core/runtime.hpp"

namespace core = shmem::core;

namespace {

// An unknown memory type is refused (NULL) rather than guessed. C callers may pass any int, which
// can lie outside the C++ enum's range, so the value is taken by reference and read as an int.
bool mem_type_ok(const char* f, const aclshmem_mem_type_t& type) noexcept {
  int v;
  static_assert(sizeof v == sizeof type);
  std::memcpy(&v, &type, sizeof v);
  if (v == HOST_SIDE || v == DEVICE_SIDE) return true;
  ACL_FAIL(ACLSHMEM_INVALID_PARAM, f, "mem_type=%d is neither HOST_SIDE (%d) nor DEVICE_SIDE (%d)", v, HOST_SIDE,
           DEVICE_SIDE);
  return false;
}

// Whether `type` memory is the GPU heap: device memory under SHMEM_ACL_DEVICE=cuda.
bool on_gpu(const char* f, int type) noexcept {
  return type == DEVICE_SIDE && core::rt(f).config().acl_device == shmem::AclDeviceMode::kCuda;
}

void* acl_alloc(const char* f, int type, std::size_t alignment, std::size_t size, bool zero) noexcept {
  if (on_gpu(f, type)) return core::gpu_alloc(alignment, size, zero, f);
  if (zero) return core::calloc(1, size, f);
  return alignment == shmem::HeapAllocator::kMinAlign ? core::malloc(size, f) : core::align(alignment, size, f);
}

std::size_t product(const char* f, std::size_t n, std::size_t size) noexcept {
  if (n != 0 && size > SIZE_MAX / n) {
    // Every PE sees the same overflow: none allocates (SIZE_MAX fails everywhere alike).
    ACL_FAIL(ACLSHMEM_INVALID_PARAM, f, "nmemb=%zu * size=%zu overflows", n, size);
    return SIZE_MAX;
  }
  return n * size;
}

// Frees by where ptr lies, so a pointer from either heap goes back to its own.
void acl_free(const char* f, void* ptr) noexcept {
  shmem::Runtime& r = core::rt(f);
  if (ptr && r.gpu() && r.gpu()->contains(ptr))
    core::gpu_free(ptr, f);
  else
    core::free(ptr, f);
}

constexpr std::size_t kAlign = shmem::HeapAllocator::kMinAlign;

}  // namespace

extern "C" {

void* aclshmem_malloc(size_t size) noexcept { return acl_alloc(__func__, DEVICE_SIDE, kAlign, size, false); }
void* aclshmem_calloc(size_t nmemb, size_t size) noexcept {
  return acl_alloc(__func__, DEVICE_SIDE, kAlign, product(__func__, nmemb, size), true);
}
void* aclshmem_align(size_t alignment, size_t size) noexcept {
  return acl_alloc(__func__, DEVICE_SIDE, alignment, size, false);
}
void aclshmem_free(void* ptr) noexcept { acl_free(__func__, ptr); }

// The type is checked on every PE alike, so a refusal stays collective (nobody allocates).
void* aclshmemx_malloc(size_t size, aclshmem_mem_type_t mem_type) noexcept {
  return mem_type_ok(__func__, mem_type) ? acl_alloc(__func__, mem_type, kAlign, size, false) : nullptr;
}
void* aclshmemx_calloc(size_t nmemb, size_t size, aclshmem_mem_type_t mem_type) noexcept {
  return mem_type_ok(__func__, mem_type) ? acl_alloc(__func__, mem_type, kAlign, product(__func__, nmemb, size), true)
                                         : nullptr;
}
void* aclshmemx_align(size_t alignment, size_t size, aclshmem_mem_type_t mem_type) noexcept {
  return mem_type_ok(__func__, mem_type) ? acl_alloc(__func__, mem_type, alignment, size, false) : nullptr;
}
void aclshmemx_free(void* ptr, aclshmem_mem_type_t mem_type) noexcept {
  if (mem_type_ok(__func__, mem_type)) acl_free(__func__, ptr);
}

// Under SHMEM_ACL_DEVICE=cuda the device heap's base exists once the GPU heap does (its first
// allocation); NULL before.
void* aclshmemx_get_heap_base(aclshmem_mem_type_t mem_type) noexcept {
  if (!mem_type_ok(__func__, mem_type)) return nullptr;
  shmem::Runtime& r = core::rt(__func__);
  if (on_gpu(__func__, mem_type)) return r.gpu() ? r.gpu()->user_base() : nullptr;
  return r.route(r.my_pe()).heap + shmem::kInternalBytes;  // user objects start after the internal area
}

// As in Ascend SHMEM, an invalid PE or address is an answer (NULL), not an error.
void* aclshmem_ptr(const void* ptr, int pe) noexcept { return core::hot::ptr(ptr, pe); }

}  // extern "C"
