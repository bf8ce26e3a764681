// Sized RMA (SIZE = 8, 16, 32, 64, 128 bits): shmem_[ctx_]{put,get}SIZE[_nbi],
// shmem_[ctx_]{iput,iget,ibput,ibget}SIZE, generated from SHMEM_RMA_SIZE_TABLE; and the byte
// forms shmem_[ctx_]{put,get}mem[_nbi]. nelems counts SIZE-bit elements (bytes for *mem).
#include "api/shim.hpp"

namespace api = shmem::api;

extern "C" {

#define SHMEM_DEF_RMA_SIZED_(S)                                                                            \
  void shmem_put##S(void* dest, const void* source, size_t nelems, int pe) noexcept {                      \
    api::put(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems*(S / 8), pe);                               \
  }                                                                                                        \
  void shmem_ctx_put##S(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) noexcept { \
    api::put(__func__, ctx, dest, source, nelems*(S / 8), pe);                                             \
  }                                                                                                        \
  void shmem_get##S(void* dest, const void* source, size_t nelems, int pe) noexcept {                      \
    api::get(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems*(S / 8), pe);                               \
  }                                                                                                        \
  void shmem_ctx_get##S(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) noexcept { \
    api::get(__func__, ctx, dest, source, nelems*(S / 8), pe);                                             \
  }                                                                                                        \
  void shmem_put##S##_nbi(void* dest, const void* source, size_t nelems, int pe) noexcept {                \
    api::put_nbi(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems*(S / 8), pe);                           \
  }                                                                                                        \
  void shmem_ctx_put##S##_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,              \
                              int pe) noexcept {                                                           \
    api::put_nbi(__func__, ctx, dest, source, nelems*(S / 8), pe);                                         \
  }                                                                                                        \
  void shmem_get##S##_nbi(void* dest, const void* source, size_t nelems, int pe) noexcept {                \
    api::get_nbi(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems*(S / 8), pe);                           \
  }                                                                                                        \
  void shmem_ctx_get##S##_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,              \
                              int pe) noexcept {                                                           \
    api::get_nbi(__func__, ctx, dest, source, nelems*(S / 8), pe);                                         \
  }                                                                                                        \
  void shmem_iput##S(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,          \
                     int pe) noexcept {                                                                    \
    api::iput(__func__, SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, S / 8, pe);                     \
  }                                                                                                        \
  void shmem_ctx_iput##S(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,    \
                         size_t nelems, int pe) noexcept {                                                 \
    api::iput(__func__, ctx, dest, source, dst, sst, nelems, S / 8, pe);                                   \
  }                                                                                                        \
  void shmem_iget##S(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,          \
                     int pe) noexcept {                                                                    \
    api::iget(__func__, SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, S / 8, pe);                     \
  }                                                                                                        \
  void shmem_ctx_iget##S(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,    \
                         size_t nelems, int pe) noexcept {                                                 \
    api::iget(__func__, ctx, dest, source, dst, sst, nelems, S / 8, pe);                                   \
  }                                                                                                        \
  void shmem_ibput##S(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,          \
                      size_t nblocks, int pe) noexcept {                                                   \
    api::ibput(__func__, SHMEM_CTX_DEFAULT, dest, source, dst, sst, bsize, nblocks, S / 8, pe);            \
  }                                                                                                        \
  void shmem_ctx_ibput##S(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,   \
                          size_t bsize, size_t nblocks, int pe) noexcept {                                 \
    api::ibput(__func__, ctx, dest, source, dst, sst, bsize, nblocks, S / 8, pe);                          \
  }                                                                                                        \
  void shmem_ibget##S(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,          \
                      size_t nblocks, int pe) noexcept {                                                   \
    api::ibget(__func__, SHMEM_CTX_DEFAULT, dest, source, dst, sst, bsize, nblocks, S / 8, pe);            \
  }                                                                                                        \
  void shmem_ctx_ibget##S(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,   \
                          size_t bsize, size_t nblocks, int pe) noexcept {                                 \
    api::ibget(__func__, ctx, dest, source, dst, sst, bsize, nblocks, S / 8, pe);                          \
  }
SHMEM_RMA_SIZE_TABLE(SHMEM_DEF_RMA_SIZED_)
#undef SHMEM_DEF_RMA_SIZED_

void shmem_putmem(void* dest, const void* source, size_t nelems, int pe) noexcept {
  api::put(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems, pe);
}
void shmem_ctx_putmem(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) noexcept {
  api::put(__func__, ctx, dest, source, nelems, pe);
}
void shmem_getmem(void* dest, const void* source, size_t nelems, int pe) noexcept {
  api::get(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems, pe);
}
void shmem_ctx_getmem(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) noexcept {
  api::get(__func__, ctx, dest, source, nelems, pe);
}
void shmem_putmem_nbi(void* dest, const void* source, size_t nelems, int pe) noexcept {
  api::put_nbi(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems, pe);
}
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) noexcept {
  api::put_nbi(__func__, ctx, dest, source, nelems, pe);
}
void shmem_getmem_nbi(void* dest, const void* source, size_t nelems, int pe) noexcept {
  api::get_nbi(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems, pe);
}
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) noexcept {
  api::get_nbi(__func__, ctx, dest, source, nelems, pe);
}

}  // extern "C"
