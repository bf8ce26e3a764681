// Typed strided RMA for every standard RMA type: shmem_[ctx_]TYPENAME_{iput,iget} (element
// strides) and the 1.6 blocked forms shmem_[ctx_]TYPENAME_{ibput,ibget} (bsize-element blocks
// whose starts are dst/sst elements apart). Generated from SHMEM_RMA_TYPE_TABLE.
#include "api/shim.hpp"

namespace api = shmem::api;

extern "C" {

#define SHMEM_DEF_RMA_STRIDED_(T, N)                                                                  \
  void shmem_##N##_iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,        \
                        int pe) noexcept {                                                            \
    api::iput(__func__, SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, sizeof(T), pe);            \
  }                                                                                                   \
  void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,  \
                            size_t nelems, int pe) noexcept {                                         \
    api::iput(__func__, ctx, dest, source, dst, sst, nelems, sizeof(T), pe);                          \
  }                                                                                                   \
  void shmem_##N##_iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,        \
                        int pe) noexcept {                                                            \
    api::iget(__func__, SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, sizeof(T), pe);            \
  }                                                                                                   \
  void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,  \
                            size_t nelems, int pe) noexcept {                                         \
    api::iget(__func__, ctx, dest, source, dst, sst, nelems, sizeof(T), pe);                          \
  }                                                                                                   \
  void shmem_##N##_ibput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,        \
                         size_t nblocks, int pe) noexcept {                                           \
    api::ibput(__func__, SHMEM_CTX_DEFAULT, dest, source, dst, sst, bsize, nblocks, sizeof(T), pe);   \
  }                                                                                                   \
  void shmem_ctx_##N##_ibput(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, \
                             size_t bsize, size_t nblocks, int pe) noexcept {                         \
    api::ibput(__func__, ctx, dest, source, dst, sst, bsize, nblocks, sizeof(T), pe);                 \
  }                                                                                                   \
  void shmem_##N##_ibget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,        \
                         size_t nblocks, int pe) noexcept {                                           \
    api::ibget(__func__, SHMEM_CTX_DEFAULT, dest, source, dst, sst, bsize, nblocks, sizeof(T), pe);   \
  }                                                                                                   \
  void shmem_ctx_##N##_ibget(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, \
                             size_t bsize, size_t nblocks, int pe) noexcept {                         \
    api::ibget(__func__, ctx, dest, source, dst, sst, bsize, nblocks, sizeof(T), pe);                 \
  }
SHMEM_RMA_TYPE_TABLE(SHMEM_DEF_RMA_STRIDED_)
#undef SHMEM_DEF_RMA_STRIDED_

}  // extern "C"
