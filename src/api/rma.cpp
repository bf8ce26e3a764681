// Typed contiguous RMA for every standard RMA type: shmem_[ctx_]TYPENAME_{put,get,put_nbi,
// get_nbi,p,g}. Generated from SHMEM_RMA_TYPE_TABLE; long double moves as sizeof(long double)
// bytes like every other type.
#include "api/shim.hpp"

namespace api = shmem::api;

extern "C" {

#define SHMEM_DEF_RMA_(T, N)                                                                                \
  void shmem_##N##_put(T* dest, const T* source, size_t nelems, int pe) noexcept {                          \
    api::put(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(T), pe);                            \
  }                                                                                                         \
  void shmem_ctx_##N##_put(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe) noexcept {     \
    api::put(__func__, ctx, dest, source, nelems * sizeof(T), pe);                                          \
  }                                                                                                         \
  void shmem_##N##_get(T* dest, const T* source, size_t nelems, int pe) noexcept {                          \
    api::get(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(T), pe);                            \
  }                                                                                                         \
  void shmem_ctx_##N##_get(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe) noexcept {     \
    api::get(__func__, ctx, dest, source, nelems * sizeof(T), pe);                                          \
  }                                                                                                         \
  void shmem_##N##_put_nbi(T* dest, const T* source, size_t nelems, int pe) noexcept {                      \
    api::put_nbi(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(T), pe);                        \
  }                                                                                                         \
  void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe) noexcept { \
    api::put_nbi(__func__, ctx, dest, source, nelems * sizeof(T), pe);                                      \
  }                                                                                                         \
  void shmem_##N##_get_nbi(T* dest, const T* source, size_t nelems, int pe) noexcept {                      \
    api::get_nbi(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(T), pe);                        \
  }                                                                                                         \
  void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe) noexcept { \
    api::get_nbi(__func__, ctx, dest, source, nelems * sizeof(T), pe);                                      \
  }                                                                                                         \
  void shmem_##N##_p(T* dest, T value, int pe) noexcept {                                                   \
    api::p<T>(__func__, SHMEM_CTX_DEFAULT, dest, value, pe);                                                \
  }                                                                                                         \
  void shmem_ctx_##N##_p(shmem_ctx_t ctx, T* dest, T value, int pe) noexcept {                              \
    api::p<T>(__func__, ctx, dest, value, pe);                                                              \
  }                                                                                                         \
  T shmem_##N##_g(const T* source, int pe) noexcept {                                                       \
    return api::g<T>(__func__, SHMEM_CTX_DEFAULT, source, pe);                                              \
  }                                                                                                         \
  T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T* source, int pe) noexcept {                                  \
    return api::g<T>(__func__, ctx, source, pe);                                                            \
  }
SHMEM_RMA_TYPE_TABLE(SHMEM_DEF_RMA_)
#undef SHMEM_DEF_RMA_

}  // extern "C"
