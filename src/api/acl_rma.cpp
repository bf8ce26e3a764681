// RMA of aclshmem.h: aclshmem_TYPENAME_{put,get}[_nbi], _iput/_iget, _p/_g for Ascend SHMEM's host
// type list, aclshmem_{put,get}BITS[_nbi], aclshmem_{iput,iget}BITS and aclshmem_{put,get}mem[_nbi].
// Each is one call to the shmem::api helper that shmem.h's routine of the same kind uses (default
// context, checked-mode argument checks), generated from the tables of aclshmem/aclshmem_types.h.
#include "api/acl_shim.hpp"

namespace api = shmem::api;

extern "C" {

#define ACL_DEF_RMA_(T, NAME)                                                                          \
  void aclshmem_##NAME##_put(T* dest, const T* source, size_t nelems, int pe) noexcept {               \
    api::put(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(T), pe);                       \
  }                                                                                                    \
  void aclshmem_##NAME##_get(T* dest, const T* source, size_t nelems, int pe) noexcept {               \
    api::get(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(T), pe);                       \
  }                                                                                                    \
  void aclshmem_##NAME##_put_nbi(T* dest, const T* source, size_t nelems, int pe) noexcept {           \
    api::put_nbi(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(T), pe);                   \
  }                                                                                                    \
  void aclshmem_##NAME##_get_nbi(T* dest, const T* source, size_t nelems, int pe) noexcept {           \
    api::get_nbi(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(T), pe);                   \
  }                                                                                                    \
  void aclshmem_##NAME##_iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                              int pe) noexcept {                                                       \
    api::iput(__func__, SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, sizeof(T), pe);             \
  }                                                                                                    \
  void aclshmem_##NAME##_iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                              int pe) noexcept {                                                       \
    api::iget(__func__, SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, sizeof(T), pe);             \
  }                                                                                                    \
  void aclshmem_##NAME##_p(T* dest, const T value, int pe) noexcept {                                  \
    api::p<T>(__func__, SHMEM_CTX_DEFAULT, dest, value, pe);                                           \
  }                                                                                                    \
  T aclshmem_##NAME##_g(const T* source, int pe) noexcept { return api::g<T>(__func__, SHMEM_CTX_DEFAULT, source, pe); }
ACLSHMEM_HOST_TYPE_TABLE(ACL_DEF_RMA_)
#undef ACL_DEF_RMA_

#define ACL_DEF_RMA_SIZED_(BITS)                                                                          \
  void aclshmem_put##BITS(void* dest, const void* source, uint32_t nelems, int pe) noexcept {              \
    api::put(__func__, SHMEM_CTX_DEFAULT, dest, source, size_t{nelems} * ((BITS) / 8), pe);               \
  }                                                                                                       \
  void aclshmem_get##BITS(void* dest, const void* source, uint32_t nelems, int pe) noexcept {              \
    api::get(__func__, SHMEM_CTX_DEFAULT, dest, source, size_t{nelems} * ((BITS) / 8), pe);               \
  }                                                                                                       \
  void aclshmem_put##BITS##_nbi(void* dest, const void* source, uint32_t nelems, int pe) noexcept {       \
    api::put_nbi(__func__, SHMEM_CTX_DEFAULT, dest, source, size_t{nelems} * ((BITS) / 8), pe);           \
  }                                                                                                       \
  void aclshmem_get##BITS##_nbi(void* dest, const void* source, uint32_t nelems, int pe) noexcept {       \
    api::get_nbi(__func__, SHMEM_CTX_DEFAULT, dest, source, size_t{nelems} * ((BITS) / 8), pe);           \
  }                                                                                                       \
  void aclshmem_iput##BITS(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                           int pe) noexcept {                                                             \
    api::iput(__func__, SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, (BITS) / 8, pe);               \
  }                                                                                                       \
  void aclshmem_iget##BITS(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                           int pe) noexcept {                                                             \
    api::iget(__func__, SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, (BITS) / 8, pe);               \
  }
ACLSHMEM_SIZE_TABLE(ACL_DEF_RMA_SIZED_)
#undef ACL_DEF_RMA_SIZED_

void aclshmem_putmem(void* dest, const void* source, size_t nbytes, int pe) noexcept {
  api::put(__func__, SHMEM_CTX_DEFAULT, dest, source, nbytes, pe);
}
void aclshmem_getmem(void* dest, const void* source, size_t nbytes, int pe) noexcept {
  api::get(__func__, SHMEM_CTX_DEFAULT, dest, source, nbytes, pe);
}
void aclshmem_putmem_nbi(void* dest, const void* source, size_t nbytes, int pe) noexcept {
  api::put_nbi(__func__, SHMEM_CTX_DEFAULT, dest, source, nbytes, pe);
}
void aclshmem_getmem_nbi(void* dest, const void* source, size_t nbytes, int pe) noexcept {
  api::get_nbi(__func__, SHMEM_CTX_DEFAULT, dest, source, nbytes, pe);
}

}  // extern "C"
