// Blocking atomics: every type x op of the spec's AMO tables, default and ctx forms.
//   standard types: atomic_{compare_swap, fetch_inc, inc, fetch_add, add}
//   extended types: atomic_{fetch, set, swap}
//   bitwise types:  atomic_{fetch_and, and, fetch_or, or, fetch_xor, xor}
#include "api/shim.hpp"

namespace api = shmem::api;
using Op = shmem::core::AmoOp;

extern "C" {

// TYPE shmem_[ctx_]N_NAME(dest, value, pe) and void shmem_[ctx_]N_NAME(dest, value, pe)
#define SHMEM_DEF_AMO_FETCH_(T, N, NAME, OP)                                     \
  T shmem_##N##_##NAME(T* dest, T value, int pe) noexcept {                      \
    return api::amo<Op::OP, T>(__func__, SHMEM_CTX_DEFAULT, dest, value, pe);    \
  }                                                                              \
  T shmem_ctx_##N##_##NAME(shmem_ctx_t ctx, T* dest, T value, int pe) noexcept { \
    return api::amo<Op::OP, T>(__func__, ctx, dest, value, pe);                  \
  }
#define SHMEM_DEF_AMO_POST_(T, N, NAME, OP)                                         \
  void shmem_##N##_##NAME(T* dest, T value, int pe) noexcept {                      \
    api::amo<Op::OP, T>(__func__, SHMEM_CTX_DEFAULT, dest, value, pe);              \
  }                                                                                 \
  void shmem_ctx_##N##_##NAME(shmem_ctx_t ctx, T* dest, T value, int pe) noexcept { \
    api::amo<Op::OP, T>(__func__, ctx, dest, value, pe);                            \
  }

#define SHMEM_DEF_AMO_STD_(T, N)                                                                      \
  T shmem_##N##_atomic_compare_swap(T* dest, T cond, T value, int pe) noexcept {                      \
    return api::amo<Op::kCompareSwap, T>(__func__, SHMEM_CTX_DEFAULT, dest, value, cond, pe);         \
  }                                                                                                   \
  T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T* dest, T cond, T value, int pe) noexcept { \
    return api::amo<Op::kCompareSwap, T>(__func__, ctx, dest, value, cond, pe);                       \
  }                                                                                                   \
  T shmem_##N##_atomic_fetch_inc(T* dest, int pe) noexcept {                                          \
    return api::amo<Op::kFetchInc, T>(__func__, SHMEM_CTX_DEFAULT, dest, pe);                         \
  }                                                                                                   \
  T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T* dest, int pe) noexcept {                     \
    return api::amo<Op::kFetchInc, T>(__func__, ctx, dest, pe);                                       \
  }                                                                                                   \
  void shmem_##N##_atomic_inc(T* dest, int pe) noexcept {                                             \
    api::amo<Op::kInc, T>(__func__, SHMEM_CTX_DEFAULT, dest, pe);                                     \
  }                                                                                                   \
  void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T* dest, int pe) noexcept {                        \
    api::amo<Op::kInc, T>(__func__, ctx, dest, pe);                                                   \
  }                                                                                                   \
  SHMEM_DEF_AMO_FETCH_(T, N, atomic_fetch_add, kFetchAdd)                                             \
  SHMEM_DEF_AMO_POST_(T, N, atomic_add, kAdd)
SHMEM_AMO_STD_TYPE_TABLE(SHMEM_DEF_AMO_STD_)
#undef SHMEM_DEF_AMO_STD_

#define SHMEM_DEF_AMO_EXT_(T, N)                                                      \
  T shmem_##N##_atomic_fetch(const T* source, int pe) noexcept {                      \
    return api::amo<Op::kFetch, T>(__func__, SHMEM_CTX_DEFAULT, source, pe);          \
  }                                                                                   \
  T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T* source, int pe) noexcept { \
    return api::amo<Op::kFetch, T>(__func__, ctx, source, pe);                        \
  }                                                                                   \
  SHMEM_DEF_AMO_POST_(T, N, atomic_set, kSet)                                         \
  SHMEM_DEF_AMO_FETCH_(T, N, atomic_swap, kSwap)
SHMEM_AMO_EXT_TYPE_TABLE(SHMEM_DEF_AMO_EXT_)
#undef SHMEM_DEF_AMO_EXT_

#define SHMEM_DEF_AMO_BIT_(T, N)                          \
  SHMEM_DEF_AMO_FETCH_(T, N, atomic_fetch_and, kFetchAnd) \
  SHMEM_DEF_AMO_POST_(T, N, atomic_and, kAnd)             \
  SHMEM_DEF_AMO_FETCH_(T, N, atomic_fetch_or, kFetchOr)   \
  SHMEM_DEF_AMO_POST_(T, N, atomic_or, kOr)               \
  SHMEM_DEF_AMO_FETCH_(T, N, atomic_fetch_xor, kFetchXor) \
  SHMEM_DEF_AMO_POST_(T, N, atomic_xor, kXor)
SHMEM_AMO_BIT_TYPE_TABLE(SHMEM_DEF_AMO_BIT_)
#undef SHMEM_DEF_AMO_BIT_

#undef SHMEM_DEF_AMO_FETCH_
#undef SHMEM_DEF_AMO_POST_

}  // extern "C"
