// Deprecated (1.4) atomic names, kept because older programs call them:
//   shmem_TYPENAME_{cswap, finc, inc, fadd, add} for int, long, long long
//   shmem_TYPENAME_{fetch, set, swap}            for float, double, int, long, long long
// Each is identical to its shmem_TYPENAME_atomic_* replacement on the default context.
#include "api/shim.hpp"

namespace api = shmem::api;
using Op = shmem::core::AmoOp;

extern "C" {

#define SHMEM_DEF_AMO_DEPRECATED_STD_(T, N)                                                   \
  T shmem_##N##_cswap(T* dest, T cond, T value, int pe) noexcept {                            \
    return api::amo<Op::kCompareSwap, T>(__func__, SHMEM_CTX_DEFAULT, dest, value, cond, pe); \
  }                                                                                           \
  T shmem_##N##_finc(T* dest, int pe) noexcept {                                              \
    return api::amo<Op::kFetchInc, T>(__func__, SHMEM_CTX_DEFAULT, dest, pe);                 \
  }                                                                                           \
  void shmem_##N##_inc(T* dest, int pe) noexcept {                                            \
    api::amo<Op::kInc, T>(__func__, SHMEM_CTX_DEFAULT, dest, pe);                             \
  }                                                                                           \
  T shmem_##N##_fadd(T* dest, T value, int pe) noexcept {                                     \
    return api::amo<Op::kFetchAdd, T>(__func__, SHMEM_CTX_DEFAULT, dest, value, pe);          \
  }                                                                                           \
  void shmem_##N##_add(T* dest, T value, int pe) noexcept {                                   \
    api::amo<Op::kAdd, T>(__func__, SHMEM_CTX_DEFAULT, dest, value, pe);                      \
  }
SHMEM_AMO_DEPRECATED_STD_TYPE_TABLE(SHMEM_DEF_AMO_DEPRECATED_STD_)
#undef SHMEM_DEF_AMO_DEPRECATED_STD_

#define SHMEM_DEF_AMO_DEPRECATED_EXT_(T, N)                                      \
  T shmem_##N##_fetch(const T* dest, int pe) noexcept {                          \
    return api::amo<Op::kFetch, T>(__func__, SHMEM_CTX_DEFAULT, dest, pe);       \
  }                                                                              \
  void shmem_##N##_set(T* dest, T value, int pe) noexcept {                      \
    api::amo<Op::kSet, T>(__func__, SHMEM_CTX_DEFAULT, dest, value, pe);         \
  }                                                                              \
  T shmem_##N##_swap(T* dest, T value, int pe) noexcept {                        \
    return api::amo<Op::kSwap, T>(__func__, SHMEM_CTX_DEFAULT, dest, value, pe); \
  }
SHMEM_AMO_DEPRECATED_EXT_TYPE_TABLE(SHMEM_DEF_AMO_DEPRECATED_EXT_)
#undef SHMEM_DEF_AMO_DEPRECATED_EXT_

}  // extern "C"
