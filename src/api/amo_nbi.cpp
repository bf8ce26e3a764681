// Nonblocking fetching atomics (1.5): the old value lands in *fetch by the next quiet.
//   standard types: atomic_{compare_swap, fetch_inc, fetch_add}_nbi
//   extended types: atomic_{fetch, swap}_nbi
//   bitwise types:  atomic_fetch_{and, or, xor}_nbi
#include "api/shim.hpp"

namespace api = shmem::api;
using Op = shmem::core::AmoOp;

extern "C" {

// void shmem_[ctx_]N_atomic_NAME_nbi(fetch, dest, value, pe)
#define SHMEM_DEF_AMO_NBI_(T, N, NAME, OP)                                                          \
  void shmem_##N##_##NAME##_nbi(T* fetch, T* dest, T value, int pe) noexcept {                      \
    api::amo_nbi<T>(__func__, SHMEM_CTX_DEFAULT, Op::OP, fetch, dest, value, pe);                   \
  }                                                                                                 \
  void shmem_ctx_##N##_##NAME##_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value, int pe) noexcept { \
    api::amo_nbi<T>(__func__, ctx, Op::OP, fetch, dest, value, pe);                                 \
  }

#define SHMEM_DEF_AMO_STD_NBI_(T, N)                                                                \
  void shmem_##N##_atomic_compare_swap_nbi(T* fetch, T* dest, T cond, T value, int pe) noexcept {   \
    api::amo_nbi<T>(__func__, SHMEM_CTX_DEFAULT, Op::kCompareSwap, fetch, dest, value, cond, pe);   \
  }                                                                                                 \
  void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T cond, T value, \
                                               int pe) noexcept {                                   \
    api::amo_nbi<T>(__func__, ctx, Op::kCompareSwap, fetch, dest, value, cond, pe);                 \
  }                                                                                                 \
  void shmem_##N##_atomic_fetch_inc_nbi(T* fetch, T* dest, int pe) noexcept {                       \
    api::amo_nbi<T>(__func__, SHMEM_CTX_DEFAULT, Op::kFetchInc, fetch, dest, pe);                   \
  }                                                                                                 \
  void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T* fetch, T* dest, int pe) noexcept {  \
    api::amo_nbi<T>(__func__, ctx, Op::kFetchInc, fetch, dest, pe);                                 \
  }                                                                                                 \
  SHMEM_DEF_AMO_NBI_(T, N, atomic_fetch_add, kFetchAdd)
SHMEM_AMO_STD_TYPE_TABLE(SHMEM_DEF_AMO_STD_NBI_)
#undef SHMEM_DEF_AMO_STD_NBI_

#define SHMEM_DEF_AMO_EXT_NBI_(T, N)                                                                   \
  void shmem_##N##_atomic_fetch_nbi(T* fetch, const T* source, int pe) noexcept {                      \
    api::amo_nbi<T>(__func__, SHMEM_CTX_DEFAULT, Op::kFetch, fetch, source, pe);                       \
  }                                                                                                    \
  void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T* fetch, const T* source, int pe) noexcept { \
    api::amo_nbi<T>(__func__, ctx, Op::kFetch, fetch, source, pe);                                     \
  }                                                                                                    \
  SHMEM_DEF_AMO_NBI_(T, N, atomic_swap, kSwap)
SHMEM_AMO_EXT_TYPE_TABLE(SHMEM_DEF_AMO_EXT_NBI_)
#undef SHMEM_DEF_AMO_EXT_NBI_

#define SHMEM_DEF_AMO_BIT_NBI_(T, N)                    \
  SHMEM_DEF_AMO_NBI_(T, N, atomic_fetch_and, kFetchAnd) \
  SHMEM_DEF_AMO_NBI_(T, N, atomic_fetch_or, kFetchOr)   \
  SHMEM_DEF_AMO_NBI_(T, N, atomic_fetch_xor, kFetchXor)
SHMEM_AMO_BIT_TYPE_TABLE(SHMEM_DEF_AMO_BIT_NBI_)
#undef SHMEM_DEF_AMO_BIT_NBI_

#undef SHMEM_DEF_AMO_NBI_

}  // extern "C"
