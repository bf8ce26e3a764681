// Symmetric memory of aclshmem.h: aclshmem_malloc / calloc / align / free, the aclshmemx_ forms
// with a memory type, aclshmemx_get_heap_base and aclshmem_ptr. HOST_SIDE and DEVICE_SIDE are the
// same thing on CPU: the one symmetric heap, which every PE on the host maps. The core
// allocators are collective and log the reason when they return NULL.
#include <cstring>

#include "api/acl_shim.hpp"
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

}  // namespace

extern "C" {

void* aclshmem_malloc(size_t size) noexcept { return core::malloc(size); }
void* aclshmem_calloc(size_t nmemb, size_t size) noexcept { return core::calloc(nmemb, size); }
void* aclshmem_align(size_t alignment, size_t size) noexcept { return core::align(alignment, size); }
void aclshmem_free(void* ptr) noexcept { core::free(ptr); }

// The type is checked on every PE alike, so a refusal stays collective (nobody allocates).
void* aclshmemx_malloc(size_t size, aclshmem_mem_type_t mem_type) noexcept {
  return mem_type_ok(__func__, mem_type) ? core::malloc(size) : nullptr;
}
void* aclshmemx_calloc(size_t nmemb, size_t size, aclshmem_mem_type_t mem_type) noexcept {
  return mem_type_ok(__func__, mem_type) ? core::calloc(nmemb, size) : nullptr;
}
void* aclshmemx_align(size_t alignment, size_t size, aclshmem_mem_type_t mem_type) noexcept {
  return mem_type_ok(__func__, mem_type) ? core::align(alignment, size) : nullptr;
}
void aclshmemx_free(void* ptr, aclshmem_mem_type_t mem_type) noexcept {
  if (mem_type_ok(__func__, mem_type)) core::free(ptr);
}

void* aclshmemx_get_heap_base(aclshmem_mem_type_t mem_type) noexcept {
  if (!mem_type_ok(__func__, mem_type)) return nullptr;
  shmem::Runtime& r = core::rt(__func__);
  return r.route(r.my_pe()).heap + shmem::kInternalBytes;  // user objects start after the internal area
}

// As in Ascend SHMEM, an invalid PE or address is an answer (NULL), not an error.
void* aclshmem_ptr(const void* ptr, int pe) noexcept { return core::hot::ptr(ptr, pe); }

}  // extern "C"
