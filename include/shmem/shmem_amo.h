/*
 * shmem/shmem_amo.h - OpenSHMEM 1.6 atomic memory operations. Part of <shmem.h>; include that.
 *
 * Generated from the AMO type tables in shmem/shmem_types.h:
 *   standard types: compare_swap, fetch_inc, inc, fetch_add, add (+ _nbi fetching forms)
 *   extended types: fetch, set, swap (+ fetch_nbi, swap_nbi)
 *   bitwise types:  fetch_{and,or,xor}, {and,or,xor} (+ fetch_{and,or,xor}_nbi)
 * and the deprecated 1.4 names (shmem_TYPENAME_{cswap,finc,inc,fadd,add,fetch,set,swap}).
 */
#ifndef SHMEM_SHMEM_AMO_H
#define SHMEM_SHMEM_AMO_H

#ifndef SHMEM_H
#error "include <shmem.h> instead of <shmem/shmem_amo.h>"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* One fetching op with an operand: shmem_[ctx_]TYPENAME_OP(dest, value, pe) -> TYPE, OP spelled
 * in full (atomic_and, not and: and/or/xor are operator names in C++). */
#define SHMEM_DECL_AMO_FETCH_OP_(T, N, OP)                                                       \
  SHMEM_API T shmem_##N##_##OP(T* dest, T value, int pe) SHMEM_NOEXCEPT;                         \
  SHMEM_API T shmem_ctx_##N##_##OP(shmem_ctx_t ctx, T* dest, T value, int pe) SHMEM_NOEXCEPT;    \
  SHMEM_API void shmem_##N##_##OP##_nbi(T* fetch, T* dest, T value, int pe) SHMEM_NOEXCEPT;      \
  SHMEM_API void shmem_ctx_##N##_##OP##_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value, int pe) \
      SHMEM_NOEXCEPT;
/* One non-fetching op with an operand: shmem_[ctx_]TYPENAME_OP(dest, value, pe). */
#define SHMEM_DECL_AMO_POST_OP_(T, N, OP)                                   \
  SHMEM_API void shmem_##N##_##OP(T* dest, T value, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_ctx_##N##_##OP(shmem_ctx_t ctx, T* dest, T value, int pe) SHMEM_NOEXCEPT;

#define SHMEM_DECL_AMO_STD_(T, N)                                                                    \
  SHMEM_API T shmem_##N##_atomic_compare_swap(T* dest, T cond, T value, int pe) SHMEM_NOEXCEPT;      \
  SHMEM_API T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T* dest, T cond, T value, int pe) \
      SHMEM_NOEXCEPT;                                                                                \
  SHMEM_API void shmem_##N##_atomic_compare_swap_nbi(T* fetch, T* dest, T cond, T value, int pe)     \
      SHMEM_NOEXCEPT;                                                                                \
  SHMEM_API void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T cond, \
                                                         T value, int pe) SHMEM_NOEXCEPT;            \
  SHMEM_API T shmem_##N##_atomic_fetch_inc(T* dest, int pe) SHMEM_NOEXCEPT;                          \
  SHMEM_API T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T* dest, int pe) SHMEM_NOEXCEPT;     \
  SHMEM_API void shmem_##N##_atomic_fetch_inc_nbi(T* fetch, T* dest, int pe) SHMEM_NOEXCEPT;         \
  SHMEM_API void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T* fetch, T* dest, int pe)    \
      SHMEM_NOEXCEPT;                                                                                \
  SHMEM_API void shmem_##N##_atomic_inc(T* dest, int pe) SHMEM_NOEXCEPT;                             \
  SHMEM_API void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T* dest, int pe) SHMEM_NOEXCEPT;        \
  SHMEM_DECL_AMO_FETCH_OP_(T, N, atomic_fetch_add)                                                   \
  SHMEM_DECL_AMO_POST_OP_(T, N, atomic_add)
SHMEM_AMO_STD_TYPE_TABLE(SHMEM_DECL_AMO_STD_)
#undef SHMEM_DECL_AMO_STD_

#define SHMEM_DECL_AMO_EXT_(T, N)                                                                     \
  SHMEM_API T shmem_##N##_atomic_fetch(const T* source, int pe) SHMEM_NOEXCEPT;                       \
  SHMEM_API T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T* source, int pe) SHMEM_NOEXCEPT;  \
  SHMEM_API void shmem_##N##_atomic_fetch_nbi(T* fetch, const T* source, int pe) SHMEM_NOEXCEPT;      \
  SHMEM_API void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T* fetch, const T* source, int pe) \
      SHMEM_NOEXCEPT;                                                                                 \
  SHMEM_DECL_AMO_POST_OP_(T, N, atomic_set)                                                           \
  SHMEM_DECL_AMO_FETCH_OP_(T, N, atomic_swap)
SHMEM_AMO_EXT_TYPE_TABLE(SHMEM_DECL_AMO_EXT_)
#undef SHMEM_DECL_AMO_EXT_

#define SHMEM_DECL_AMO_BIT_(T, N)                  \
  SHMEM_DECL_AMO_FETCH_OP_(T, N, atomic_fetch_and) \
  SHMEM_DECL_AMO_POST_OP_(T, N, atomic_and)        \
  SHMEM_DECL_AMO_FETCH_OP_(T, N, atomic_fetch_or)  \
  SHMEM_DECL_AMO_POST_OP_(T, N, atomic_or)         \
  SHMEM_DECL_AMO_FETCH_OP_(T, N, atomic_fetch_xor) \
  SHMEM_DECL_AMO_POST_OP_(T, N, atomic_xor)
SHMEM_AMO_BIT_TYPE_TABLE(SHMEM_DECL_AMO_BIT_)
#undef SHMEM_DECL_AMO_BIT_

#undef SHMEM_DECL_AMO_FETCH_OP_
#undef SHMEM_DECL_AMO_POST_OP_

/* ---- deprecated (1.4) names ---------------------------------------------------------------- */
#define SHMEM_DECL_AMO_DEPRECATED_STD_(T, N)                                                       \
  SHMEM_API SHMEM_DEPRECATED T shmem_##N##_cswap(T* dest, T cond, T value, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API SHMEM_DEPRECATED T shmem_##N##_finc(T* dest, int pe) SHMEM_NOEXCEPT;                   \
  SHMEM_API SHMEM_DEPRECATED void shmem_##N##_inc(T* dest, int pe) SHMEM_NOEXCEPT;                 \
  SHMEM_API SHMEM_DEPRECATED T shmem_##N##_fadd(T* dest, T value, int pe) SHMEM_NOEXCEPT;          \
  SHMEM_API SHMEM_DEPRECATED void shmem_##N##_add(T* dest, T value, int pe) SHMEM_NOEXCEPT;
SHMEM_AMO_DEPRECATED_STD_TYPE_TABLE(SHMEM_DECL_AMO_DEPRECATED_STD_)
#undef SHMEM_DECL_AMO_DEPRECATED_STD_

#define SHMEM_DECL_AMO_DEPRECATED_EXT_(T, N)                                                \
  SHMEM_API SHMEM_DEPRECATED T shmem_##N##_fetch(const T* dest, int pe) SHMEM_NOEXCEPT;     \
  SHMEM_API SHMEM_DEPRECATED void shmem_##N##_set(T* dest, T value, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API SHMEM_DEPRECATED T shmem_##N##_swap(T* dest, T value, int pe) SHMEM_NOEXCEPT;
SHMEM_AMO_DEPRECATED_EXT_TYPE_TABLE(SHMEM_DECL_AMO_DEPRECATED_EXT_)
#undef SHMEM_DECL_AMO_DEPRECATED_EXT_

#ifdef __cplusplus
}
#endif

#endif /* SHMEM_SHMEM_AMO_H */
