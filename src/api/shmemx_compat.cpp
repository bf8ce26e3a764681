// Sandia OpenSHMEM's shmemx_ names for routines that OpenSHMEM 1.5/1.6 standardised, so that
// programs written for it build unchanged: shmemx_[ctx_]TYPENAME_{ibput,ibget},
// shmemx_[ctx_]{ibput,ibget}SIZE, shmemx_[ctx_]signal_{add,set}, shmemx_TYPENAME_sum_{inscan,exscan}.
// Each is the standard routine under another name (same helpers; messages name the shmemx_
// routine). Generated from the type tables like the standard names.
#include <shmemx.h>

#include "coll/reduce_ops.hpp"
#include "api/team_shim.hpp"

namespace api = shmem::api;
namespace coll = shmem::coll;

using api::signal_update;

extern "C" {

#define SHMEMX_DEF_IB_(NAME, T, ELEM)                                                                    \
  void shmemx_##NAME##_ibput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,       \
                             size_t nblocks, int pe) noexcept {                                          \
    api::ibput(__func__, SHMEM_CTX_DEFAULT, dest, source, dst, sst, bsize, nblocks, ELEM, pe);           \
  }                                                                                                      \
  void shmemx_ctx_##NAME##_ibput(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, \
                                 size_t bsize, size_t nblocks, int pe) noexcept {                        \
    api::ibput(__func__, ctx, dest, source, dst, sst, bsize, nblocks, ELEM, pe);                         \
  }                                                                                                      \
  void shmemx_##NAME##_ibget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,       \
                             size_t nblocks, int pe) noexcept {                                          \
    api::ibget(__func__, SHMEM_CTX_DEFAULT, dest, source, dst, sst, bsize, nblocks, ELEM, pe);           \
  }                                                                                                      \
  void shmemx_ctx_##NAME##_ibget(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, \
                                 size_t bsize, size_t nblocks, int pe) noexcept {                        \
    api::ibget(__func__, ctx, dest, source, dst, sst, bsize, nblocks, ELEM, pe);                         \
  }
#define SHMEMX_DEF_IB_TYPED_(T, N) SHMEMX_DEF_IB_(N, T, sizeof(T))
SHMEM_RMA_TYPE_TABLE(SHMEMX_DEF_IB_TYPED_)
#undef SHMEMX_DEF_IB_TYPED_

// shmemx_ibputSIZE: the names have no underscore before SIZE, so they are spelled here.
#define SHMEMX_DEF_IB_SIZED_(S)                                                                          \
  void shmemx_ibput##S(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,       \
                       size_t nblocks, int pe) noexcept {                                                \
    api::ibput(__func__, SHMEM_CTX_DEFAULT, dest, source, dst, sst, bsize, nblocks, S / 8, pe);          \
  }                                                                                                      \
  void shmemx_ctx_ibput##S(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, \
                           size_t bsize, size_t nblocks, int pe) noexcept {                              \
    api::ibput(__func__, ctx, dest, source, dst, sst, bsize, nblocks, S / 8, pe);                        \
  }                                                                                                      \
  void shmemx_ibget##S(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,       \
                       size_t nblocks, int pe) noexcept {                                                \
    api::ibget(__func__, SHMEM_CTX_DEFAULT, dest, source, dst, sst, bsize, nblocks, S / 8, pe);          \
  }                                                                                                      \
  void shmemx_ctx_ibget##S(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, \
                           size_t bsize, size_t nblocks, int pe) noexcept {                              \
    api::ibget(__func__, ctx, dest, source, dst, sst, bsize, nblocks, S / 8, pe);                        \
  }
SHMEM_RMA_SIZE_TABLE(SHMEMX_DEF_IB_SIZED_)
#undef SHMEMX_DEF_IB_SIZED_
#undef SHMEMX_DEF_IB_

void shmemx_signal_add(uint64_t* sig_addr, uint64_t signal, int pe) noexcept {
  signal_update(__func__, SHMEM_CTX_DEFAULT, sig_addr, signal, SHMEM_SIGNAL_ADD, pe);
}
void shmemx_ctx_signal_add(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe) noexcept {
  signal_update(__func__, ctx, sig_addr, signal, SHMEM_SIGNAL_ADD, pe);
}
void shmemx_signal_set(uint64_t* sig_addr, uint64_t signal, int pe) noexcept {
  signal_update(__func__, SHMEM_CTX_DEFAULT, sig_addr, signal, SHMEM_SIGNAL_SET, pe);
}
void shmemx_ctx_signal_set(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe) noexcept {
  signal_update(__func__, ctx, sig_addr, signal, SHMEM_SIGNAL_SET, pe);
}

#define SHMEMX_DEF_SCAN_(T, N)                                                                              \
  int shmemx_##N##_sum_inscan(shmem_team_t team, T* dest, const T* source, size_t nelems) noexcept {      \
    return api::reduce(__func__, team, dest, source, nelems, sizeof(T), &coll::combine<T, coll::OpSum>, true, \
                       false);                                                                              \
  }                                                                                                         \
  int shmemx_##N##_sum_exscan(shmem_team_t team, T* dest, const T* source, size_t nelems) noexcept {      \
    return api::reduce(__func__, team, dest, source, nelems, sizeof(T), &coll::combine<T, coll::OpSum>, true, \
                       true);                                                                               \
  }
SHMEM_REDUCE_SUM_TYPE_TABLE(SHMEMX_DEF_SCAN_)
#undef SHMEMX_DEF_SCAN_

}  // extern "C"
