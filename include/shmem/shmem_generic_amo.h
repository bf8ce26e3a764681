/*
 * shmem/shmem_generic_amo.h - generic atomic and point-to-point synchronization names.
 *   extended AMO types:  shmem_atomic_{fetch,set,swap}, shmem_atomic_{fetch,swap}_nbi
 *   standard AMO types:  shmem_atomic_{compare_swap,fetch_inc,inc,fetch_add,add},
 *                        shmem_atomic_{compare_swap,fetch_inc,fetch_add}_nbi
 *   bitwise AMO types:   shmem_atomic_{fetch_and,and,fetch_or,or,fetch_xor,xor},
 *                        shmem_atomic_fetch_{and,or,xor}_nbi
 *   (all of the above with an optional leading context)
 *   deprecated (1.4):    shmem_{fetch,set,swap} and shmem_{cswap,finc,inc,fadd,add}
 *   p2p sync types:      shmem_wait_until, shmem_test
 *   standard AMO types:  shmem_{wait_until,test}_{all,any,some}[_vector]
 * Selection is by the first non-context argument (dest, source, fetch or ivar[s]).
 * Included by shmem/shmem_generic.h.
 */
#ifndef SHMEM_SHMEM_GENERIC_AMO_H
#define SHMEM_SHMEM_GENERIC_AMO_H

#if defined(SHMEM_HAVE_C11_GENERIC_)

#define SHMEM_G_AMO_(TABLE, S, ...) SHMEM_G_CTX_(TABLE, SHMEM_G_ASSOC_, S, __VA_ARGS__)
#define shmem_atomic_fetch(...) \
  SHMEM_G_CTX_(SHMEM_AMO_EXT_TYPE_TABLE_BASE_A, SHMEM_G_ASSOC_C_, _atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...) SHMEM_G_AMO_(SHMEM_AMO_EXT_TYPE_TABLE_BASE_A, _atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...) SHMEM_G_AMO_(SHMEM_AMO_EXT_TYPE_TABLE_BASE_A, _atomic_swap, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) SHMEM_G_AMO_(SHMEM_AMO_EXT_TYPE_TABLE_BASE_A, _atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) SHMEM_G_AMO_(SHMEM_AMO_EXT_TYPE_TABLE_BASE_A, _atomic_swap_nbi, __VA_ARGS__)

#define shmem_atomic_compare_swap(...) \
  SHMEM_G_AMO_(SHMEM_AMO_STD_TYPE_TABLE_BASE_A, _atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) SHMEM_G_AMO_(SHMEM_AMO_STD_TYPE_TABLE_BASE_A, _atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...) SHMEM_G_AMO_(SHMEM_AMO_STD_TYPE_TABLE_BASE_A, _atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) SHMEM_G_AMO_(SHMEM_AMO_STD_TYPE_TABLE_BASE_A, _atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...) SHMEM_G_AMO_(SHMEM_AMO_STD_TYPE_TABLE_BASE_A, _atomic_add, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) \
  SHMEM_G_AMO_(SHMEM_AMO_STD_TYPE_TABLE_BASE_A, _atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) \
  SHMEM_G_AMO_(SHMEM_AMO_STD_TYPE_TABLE_BASE_A, _atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) \
  SHMEM_G_AMO_(SHMEM_AMO_STD_TYPE_TABLE_BASE_A, _atomic_fetch_add_nbi, __VA_ARGS__)

#define shmem_atomic_fetch_and(...) SHMEM_G_AMO_(SHMEM_AMO_BIT_TYPE_TABLE_BASE_A, _atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_and(...) SHMEM_G_AMO_(SHMEM_AMO_BIT_TYPE_TABLE_BASE_A, _atomic_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) SHMEM_G_AMO_(SHMEM_AMO_BIT_TYPE_TABLE_BASE_A, _atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_or(...) SHMEM_G_AMO_(SHMEM_AMO_BIT_TYPE_TABLE_BASE_A, _atomic_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) SHMEM_G_AMO_(SHMEM_AMO_BIT_TYPE_TABLE_BASE_A, _atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_xor(...) SHMEM_G_AMO_(SHMEM_AMO_BIT_TYPE_TABLE_BASE_A, _atomic_xor, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) \
  SHMEM_G_AMO_(SHMEM_AMO_BIT_TYPE_TABLE_BASE_A, _atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) \
  SHMEM_G_AMO_(SHMEM_AMO_BIT_TYPE_TABLE_BASE_A, _atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) \
  SHMEM_G_AMO_(SHMEM_AMO_BIT_TYPE_TABLE_BASE_A, _atomic_fetch_xor_nbi, __VA_ARGS__)

/* Deprecated (1.4) generic names: no context form. */
#define shmem_fetch(...) \
  SHMEM_G_ON1_(SHMEM_AMO_DEPRECATED_EXT_TYPE_TABLE_A, SHMEM_G_ASSOC_C_, _fetch, __VA_ARGS__)
#define shmem_set(...) SHMEM_G_ON1_(SHMEM_AMO_DEPRECATED_EXT_TYPE_TABLE_A, SHMEM_G_ASSOC_, _set, __VA_ARGS__)
#define shmem_swap(...) SHMEM_G_ON1_(SHMEM_AMO_DEPRECATED_EXT_TYPE_TABLE_A, SHMEM_G_ASSOC_, _swap, __VA_ARGS__)
#define shmem_cswap(...) SHMEM_G_ON1_(SHMEM_AMO_DEPRECATED_STD_TYPE_TABLE_A, SHMEM_G_ASSOC_, _cswap, __VA_ARGS__)
#define shmem_finc(...) SHMEM_G_ON1_(SHMEM_AMO_DEPRECATED_STD_TYPE_TABLE_A, SHMEM_G_ASSOC_, _finc, __VA_ARGS__)
#define shmem_inc(...) SHMEM_G_ON1_(SHMEM_AMO_DEPRECATED_STD_TYPE_TABLE_A, SHMEM_G_ASSOC_, _inc, __VA_ARGS__)
#define shmem_fadd(...) SHMEM_G_ON1_(SHMEM_AMO_DEPRECATED_STD_TYPE_TABLE_A, SHMEM_G_ASSOC_, _fadd, __VA_ARGS__)
#define shmem_add(...) SHMEM_G_ON1_(SHMEM_AMO_DEPRECATED_STD_TYPE_TABLE_A, SHMEM_G_ASSOC_, _add, __VA_ARGS__)

/* Point-to-point synchronization. shmem_wait_until also names the deprecated long-typed C
 * function, which the long selection replaces with the identical shmem_long_wait_until. */
#define SHMEM_G_P2P_(S, ...) SHMEM_G_ON1_(SHMEM_P2P_TYPE_TABLE_BASE_A, SHMEM_G_ASSOC_, S, __VA_ARGS__)
#define SHMEM_G_P2P_MULTI_(S, ...) SHMEM_G_ON1_(SHMEM_P2P_MULTI_TYPE_TABLE_BASE_A, SHMEM_G_ASSOC_, S, __VA_ARGS__)
#define shmem_wait_until(...) SHMEM_G_P2P_(_wait_until, __VA_ARGS__)
#define shmem_test(...) SHMEM_G_P2P_(_test, __VA_ARGS__)
#define shmem_wait_until_all(...) SHMEM_G_P2P_MULTI_(_wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...) SHMEM_G_P2P_MULTI_(_wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...) SHMEM_G_P2P_MULTI_(_wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...) SHMEM_G_P2P_MULTI_(_wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...) SHMEM_G_P2P_MULTI_(_wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...) SHMEM_G_P2P_MULTI_(_wait_until_some_vector, __VA_ARGS__)
#define shmem_test_all(...) SHMEM_G_P2P_MULTI_(_test_all, __VA_ARGS__)
#define shmem_test_any(...) SHMEM_G_P2P_MULTI_(_test_any, __VA_ARGS__)
#define shmem_test_some(...) SHMEM_G_P2P_MULTI_(_test_some, __VA_ARGS__)
#define shmem_test_all_vector(...) SHMEM_G_P2P_MULTI_(_test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...) SHMEM_G_P2P_MULTI_(_test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...) SHMEM_G_P2P_MULTI_(_test_some_vector, __VA_ARGS__)

#elif defined(SHMEM_HAVE_CXX_OVERLOADS_)

extern "C++" {
/* One line per operation: NAME, then the typed default-context and context functions. */
#define SHMEM_CXX_AMO_EXT_(T, N)                                                                           \
  SHMEM_CXX_FWD_CTX_(T, shmem_atomic_fetch, shmem_##N##_atomic_fetch, shmem_ctx_##N##_atomic_fetch,        \
                     (const T* source, int pe), (source, pe))                                              \
  SHMEM_CXX_FWD_CTX_(void, shmem_atomic_set, shmem_##N##_atomic_set, shmem_ctx_##N##_atomic_set,           \
                     (T * dest, T value, int pe), (dest, value, pe))                                       \
  SHMEM_CXX_FWD_CTX_(T, shmem_atomic_swap, shmem_##N##_atomic_swap, shmem_ctx_##N##_atomic_swap,           \
                     (T * dest, T value, int pe), (dest, value, pe))                                       \
  SHMEM_CXX_FWD_CTX_(void, shmem_atomic_fetch_nbi, shmem_##N##_atomic_fetch_nbi,                           \
                     shmem_ctx_##N##_atomic_fetch_nbi, (T * fetch, const T* source, int pe),               \
                     (fetch, source, pe))                                                                  \
  SHMEM_CXX_FWD_CTX_(void, shmem_atomic_swap_nbi, shmem_##N##_atomic_swap_nbi,                             \
                     shmem_ctx_##N##_atomic_swap_nbi, (T * fetch, T * dest, T value, int pe),              \
                     (fetch, dest, value, pe))
SHMEM_AMO_EXT_TYPE_TABLE_BASE(SHMEM_CXX_AMO_EXT_)
#undef SHMEM_CXX_AMO_EXT_

#define SHMEM_CXX_AMO_STD_(T, N)                                                                           \
  SHMEM_CXX_FWD_CTX_(T, shmem_atomic_compare_swap, shmem_##N##_atomic_compare_swap,                        \
                     shmem_ctx_##N##_atomic_compare_swap, (T * dest, T cond, T value, int pe),             \
                     (dest, cond, value, pe))                                                              \
  SHMEM_CXX_FWD_CTX_(T, shmem_atomic_fetch_inc, shmem_##N##_atomic_fetch_inc,                              \
                     shmem_ctx_##N##_atomic_fetch_inc, (T * dest, int pe), (dest, pe))                     \
  SHMEM_CXX_FWD_CTX_(void, shmem_atomic_inc, shmem_##N##_atomic_inc, shmem_ctx_##N##_atomic_inc,           \
                     (T * dest, int pe), (dest, pe))                                                       \
  SHMEM_CXX_FWD_CTX_(T, shmem_atomic_fetch_add, shmem_##N##_atomic_fetch_add,                              \
                     shmem_ctx_##N##_atomic_fetch_add, (T * dest, T value, int pe), (dest, value, pe))     \
  SHMEM_CXX_FWD_CTX_(void, shmem_atomic_add, shmem_##N##_atomic_add, shmem_ctx_##N##_atomic_add,           \
                     (T * dest, T value, int pe), (dest, value, pe))                                       \
  SHMEM_CXX_FWD_CTX_(void, shmem_atomic_compare_swap_nbi, shmem_##N##_atomic_compare_swap_nbi,             \
                     shmem_ctx_##N##_atomic_compare_swap_nbi,                                              \
                     (T * fetch, T * dest, T cond, T value, int pe), (fetch, dest, cond, value, pe))       \
  SHMEM_CXX_FWD_CTX_(void, shmem_atomic_fetch_inc_nbi, shmem_##N##_atomic_fetch_inc_nbi,                   \
                     shmem_ctx_##N##_atomic_fetch_inc_nbi, (T * fetch, T * dest, int pe),                  \
                     (fetch, dest, pe))                                                                    \
  SHMEM_CXX_FWD_CTX_(void, shmem_atomic_fetch_add_nbi, shmem_##N##_atomic_fetch_add_nbi,                   \
                     shmem_ctx_##N##_atomic_fetch_add_nbi, (T * fetch, T * dest, T value, int pe),         \
                     (fetch, dest, value, pe))
SHMEM_AMO_STD_TYPE_TABLE_BASE(SHMEM_CXX_AMO_STD_)
#undef SHMEM_CXX_AMO_STD_

/* fetch_OP (returns the old value), OP, fetch_OP_nbi for OP in and/or/xor. */
#define SHMEM_CXX_AMO_BITOP_(T, FETCH, CFETCH, POST, CPOST, NBI, CNBI, FNAME, PNAME, NNAME)               \
  SHMEM_CXX_FWD_CTX_(T, FNAME, FETCH, CFETCH, (T * dest, T value, int pe), (dest, value, pe))              \
  SHMEM_CXX_FWD_CTX_(void, PNAME, POST, CPOST, (T * dest, T value, int pe), (dest, value, pe))             \
  SHMEM_CXX_FWD_CTX_(void, NNAME, NBI, CNBI, (T * fetch, T * dest, T value, int pe), (fetch, dest, value, pe))
#define SHMEM_CXX_AMO_BIT_(T, N)                                                                           \
  SHMEM_CXX_AMO_BITOP_(T, shmem_##N##_atomic_fetch_and, shmem_ctx_##N##_atomic_fetch_and,                  \
                       shmem_##N##_atomic_and, shmem_ctx_##N##_atomic_and, shmem_##N##_atomic_fetch_and_nbi, \
                       shmem_ctx_##N##_atomic_fetch_and_nbi, shmem_atomic_fetch_and, shmem_atomic_and,     \
                       shmem_atomic_fetch_and_nbi)                                                         \
  SHMEM_CXX_AMO_BITOP_(T, shmem_##N##_atomic_fetch_or, shmem_ctx_##N##_atomic_fetch_or,                    \
                       shmem_##N##_atomic_or, shmem_ctx_##N##_atomic_or, shmem_##N##_atomic_fetch_or_nbi,  \
                       shmem_ctx_##N##_atomic_fetch_or_nbi, shmem_atomic_fetch_or, shmem_atomic_or,        \
                       shmem_atomic_fetch_or_nbi)                                                          \
  SHMEM_CXX_AMO_BITOP_(T, shmem_##N##_atomic_fetch_xor, shmem_ctx_##N##_atomic_fetch_xor,                  \
                       shmem_##N##_atomic_xor, shmem_ctx_##N##_atomic_xor, shmem_##N##_atomic_fetch_xor_nbi, \
                       shmem_ctx_##N##_atomic_fetch_xor_nbi, shmem_atomic_fetch_xor, shmem_atomic_xor,     \
                       shmem_atomic_fetch_xor_nbi)
SHMEM_AMO_BIT_TYPE_TABLE_BASE(SHMEM_CXX_AMO_BIT_)
#undef SHMEM_CXX_AMO_BIT_
#undef SHMEM_CXX_AMO_BITOP_

/* Deprecated (1.4) generic names. */
#define SHMEM_CXX_AMO_DEP_EXT_(T, N)                                                                 \
  SHMEM_CXX_FWD_(T, shmem_fetch, shmem_##N##_fetch, (const T* dest, int pe), (dest, pe))             \
  SHMEM_CXX_FWD_(void, shmem_set, shmem_##N##_set, (T * dest, T value, int pe), (dest, value, pe))   \
  SHMEM_CXX_FWD_(T, shmem_swap, shmem_##N##_swap, (T * dest, T value, int pe), (dest, value, pe))
SHMEM_AMO_DEPRECATED_EXT_TYPE_TABLE(SHMEM_CXX_AMO_DEP_EXT_)
#undef SHMEM_CXX_AMO_DEP_EXT_
#define SHMEM_CXX_AMO_DEP_STD_(T, N)                                                                   \
  SHMEM_CXX_FWD_(T, shmem_cswap, shmem_##N##_cswap, (T * dest, T cond, T value, int pe),               \
                 (dest, cond, value, pe))                                                              \
  SHMEM_CXX_FWD_(T, shmem_finc, shmem_##N##_finc, (T * dest, int pe), (dest, pe))                      \
  SHMEM_CXX_FWD_(void, shmem_inc, shmem_##N##_inc, (T * dest, int pe), (dest, pe))                     \
  SHMEM_CXX_FWD_(T, shmem_fadd, shmem_##N##_fadd, (T * dest, T value, int pe), (dest, value, pe))      \
  SHMEM_CXX_FWD_(void, shmem_add, shmem_##N##_add, (T * dest, T value, int pe), (dest, value, pe))
SHMEM_AMO_DEPRECATED_STD_TYPE_TABLE(SHMEM_CXX_AMO_DEP_STD_)
#undef SHMEM_CXX_AMO_DEP_STD_

/* shmem_wait_until is a template: the deprecated C function shmem_wait_until(long *, int, long)
 * already has the long signature, which an overload could not repeat. The comparison value is
 * not used for deduction, so shmem_wait_until(&short_var, SHMEM_CMP_EQ, 1) works; for long the
 * C function is chosen, which is shmem_long_wait_until. */
namespace shmem_generic_detail {
template <class T>
struct wait_until_fn {};
#define SHMEM_CXX_WAIT_UNTIL_(T, N)                                                                    \
  template <>                                                                                          \
  struct wait_until_fn<T> {                                                                            \
    using value_type = T;                                                                              \
    static void call(T* ivar, int cmp, T cmp_value) noexcept { shmem_##N##_wait_until(ivar, cmp, cmp_value); } \
  };
SHMEM_P2P_TYPE_TABLE_BASE(SHMEM_CXX_WAIT_UNTIL_)
#undef SHMEM_CXX_WAIT_UNTIL_
}  // namespace shmem_generic_detail
template <class T>
inline void shmem_wait_until(T* ivar, int cmp,
                             typename shmem_generic_detail::wait_until_fn<T>::value_type cmp_value) noexcept {
  shmem_generic_detail::wait_until_fn<T>::call(ivar, cmp, cmp_value);
}

#define SHMEM_CXX_TEST_(T, N) \
  SHMEM_CXX_FWD_(int, shmem_test, shmem_##N##_test, (T * ivar, int cmp, T cmp_value), (ivar, cmp, cmp_value))
SHMEM_P2P_TYPE_TABLE_BASE(SHMEM_CXX_TEST_)
#undef SHMEM_CXX_TEST_

/* Multi-element forms: R NAME(ivars, nelems, [indices,] status, cmp, cmp_value | cmp_values). */
#define SHMEM_CXX_P2P_MULTI_(T, N)                                                                        \
  SHMEM_CXX_FWD_(void, shmem_wait_until_all, shmem_##N##_wait_until_all,                                  \
                 (T * ivars, size_t nelems, const int* status, int cmp, T cmp_value),                     \
                 (ivars, nelems, status, cmp, cmp_value))                                                 \
  SHMEM_CXX_FWD_(size_t, shmem_wait_until_any, shmem_##N##_wait_until_any,                                \
                 (T * ivars, size_t nelems, const int* status, int cmp, T cmp_value),                     \
                 (ivars, nelems, status, cmp, cmp_value))                                                 \
  SHMEM_CXX_FWD_(size_t, shmem_wait_until_some, shmem_##N##_wait_until_some,                              \
                 (T * ivars, size_t nelems, size_t* indices, const int* status, int cmp, T cmp_value),    \
                 (ivars, nelems, indices, status, cmp, cmp_value))                                        \
  SHMEM_CXX_FWD_(void, shmem_wait_until_all_vector, shmem_##N##_wait_until_all_vector,                    \
                 (T * ivars, size_t nelems, const int* status, int cmp, const T* cmp_values),             \
                 (ivars, nelems, status, cmp, cmp_values))                                                \
  SHMEM_CXX_FWD_(size_t, shmem_wait_until_any_vector, shmem_##N##_wait_until_any_vector,                  \
                 (T * ivars, size_t nelems, const int* status, int cmp, const T* cmp_values),             \
                 (ivars, nelems, status, cmp, cmp_values))                                                \
  SHMEM_CXX_FWD_(size_t, shmem_wait_until_some_vector, shmem_##N##_wait_until_some_vector,                \
                 (T * ivars, size_t nelems, size_t* indices, const int* status, int cmp,                  \
                  const T* cmp_values),                                                                   \
                 (ivars, nelems, indices, status, cmp, cmp_values))                                       \
  SHMEM_CXX_FWD_(int, shmem_test_all, shmem_##N##_test_all,                                               \
                 (T * ivars, size_t nelems, const int* status, int cmp, T cmp_value),                     \
                 (ivars, nelems, status, cmp, cmp_value))                                                 \
  SHMEM_CXX_FWD_(size_t, shmem_test_any, shmem_##N##_test_any,                                            \
                 (T * ivars, size_t nelems, const int* status, int cmp, T cmp_value),                     \
                 (ivars, nelems, status, cmp, cmp_value))                                                 \
  SHMEM_CXX_FWD_(size_t, shmem_test_some, shmem_##N##_test_some,                                          \
                 (T * ivars, size_t nelems, size_t* indices, const int* status, int cmp, T cmp_value),    \
                 (ivars, nelems, indices, status, cmp, cmp_value))                                        \
  SHMEM_CXX_FWD_(int, shmem_test_all_vector, shmem_##N##_test_all_vector,                                 \
                 (T * ivars, size_t nelems, const int* status, int cmp, const T* cmp_values),             \
                 (ivars, nelems, status, cmp, cmp_values))                                                \
  SHMEM_CXX_FWD_(size_t, shmem_test_any_vector, shmem_##N##_test_any_vector,                              \
                 (T * ivars, size_t nelems, const int* status, int cmp, const T* cmp_values),             \
                 (ivars, nelems, status, cmp, cmp_values))                                                \
  SHMEM_CXX_FWD_(size_t, shmem_test_some_vector, shmem_##N##_test_some_vector,                            \
                 (T * ivars, size_t nelems, size_t* indices, const int* status, int cmp,                  \
                  const T* cmp_values),                                                                   \
                 (ivars, nelems, indices, status, cmp, cmp_values))
SHMEM_P2P_MULTI_TYPE_TABLE_BASE(SHMEM_CXX_P2P_MULTI_)
#undef SHMEM_CXX_P2P_MULTI_
}  // extern "C++"

#endif

#endif /* SHMEM_SHMEM_GENERIC_AMO_H */
