/*
 * shmem/shmem_sync.h - OpenSHMEM 1.6 memory ordering, barrier_all/sync_all, sessions,
 * point-to-point synchronization and distributed locks. Part of <shmem.h>; include that.
 */
#ifndef SHMEM_SHMEM_SYNC_H
#define SHMEM_SHMEM_SYNC_H

#ifndef SHMEM_H
#error "include <shmem.h> instead of <shmem/shmem_sync.h>"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- memory ordering and whole-program synchronization ------------------------------------ */
SHMEM_API void shmem_quiet(void) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_quiet(shmem_ctx_t ctx) SHMEM_NOEXCEPT;
SHMEM_API void shmem_fence(void) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_fence(shmem_ctx_t ctx) SHMEM_NOEXCEPT;
SHMEM_API void shmem_pe_quiet(const int* target_pes, size_t npes) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int* target_pes, size_t npes) SHMEM_NOEXCEPT;
SHMEM_API void shmem_barrier_all(void) SHMEM_NOEXCEPT;
SHMEM_API void shmem_sync_all(void) SHMEM_NOEXCEPT;

/* ---- sessions (1.6): hints only -------------------------------------------------------------- */
SHMEM_API void shmem_ctx_session_start(shmem_ctx_t ctx, long options,
                                       const shmem_ctx_session_config_t* config,
                                       long config_mask) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_session_stop(shmem_ctx_t ctx) SHMEM_NOEXCEPT;

/* ---- point-to-point synchronization --------------------------------------------------------- */
/* Single-variable forms: the point-to-point synchronization types. */
#define SHMEM_DECL_P2P_(T, N)                                                          \
  SHMEM_API void shmem_##N##_wait_until(T* ivar, int cmp, T cmp_value) SHMEM_NOEXCEPT; \
  SHMEM_API int shmem_##N##_test(T* ivar, int cmp, T cmp_value) SHMEM_NOEXCEPT;
SHMEM_P2P_TYPE_TABLE(SHMEM_DECL_P2P_)
#undef SHMEM_DECL_P2P_

/* Multiple-variable forms: the standard AMO types, and short / unsigned short (an extension). */
#define SHMEM_DECL_P2P_MULTI_(T, N)                                                                          \
  SHMEM_API void shmem_##N##_wait_until_all(T* ivars, size_t nelems, const int* status, int cmp,             \
                                            T cmp_value) SHMEM_NOEXCEPT;                                     \
  SHMEM_API size_t shmem_##N##_wait_until_any(T* ivars, size_t nelems, const int* status, int cmp,           \
                                              T cmp_value) SHMEM_NOEXCEPT;                                   \
  SHMEM_API size_t shmem_##N##_wait_until_some(T* ivars, size_t nelems, size_t* indices, const int* status,  \
                                               int cmp, T cmp_value) SHMEM_NOEXCEPT;                         \
  SHMEM_API void shmem_##N##_wait_until_all_vector(T* ivars, size_t nelems, const int* status, int cmp,      \
                                                   const T* cmp_values) SHMEM_NOEXCEPT;                      \
  SHMEM_API size_t shmem_##N##_wait_until_any_vector(T* ivars, size_t nelems, const int* status, int cmp,    \
                                                     const T* cmp_values) SHMEM_NOEXCEPT;                    \
  SHMEM_API size_t shmem_##N##_wait_until_some_vector(T* ivars, size_t nelems, size_t* indices,              \
                                                      const int* status, int cmp, const T* cmp_values)       \
      SHMEM_NOEXCEPT;                                                                                        \
  SHMEM_API int shmem_##N##_test_all(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value)       \
      SHMEM_NOEXCEPT;                                                                                        \
  SHMEM_API size_t shmem_##N##_test_any(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value)    \
      SHMEM_NOEXCEPT;                                                                                        \
  SHMEM_API size_t shmem_##N##_test_some(T* ivars, size_t nelems, size_t* indices, const int* status,        \
                                         int cmp, T cmp_value) SHMEM_NOEXCEPT;                               \
  SHMEM_API int shmem_##N##_test_all_vector(T* ivars, size_t nelems, const int* status, int cmp,             \
                                            const T* cmp_values) SHMEM_NOEXCEPT;                             \
  SHMEM_API size_t shmem_##N##_test_any_vector(T* ivars, size_t nelems, const int* status, int cmp,          \
                                               const T* cmp_values) SHMEM_NOEXCEPT;                          \
  SHMEM_API size_t shmem_##N##_test_some_vector(T* ivars, size_t nelems, size_t* indices, const int* status, \
                                                int cmp, const T* cmp_values) SHMEM_NOEXCEPT;
SHMEM_P2P_MULTI_TYPE_TABLE(SHMEM_DECL_P2P_MULTI_)
#undef SHMEM_DECL_P2P_MULTI_

/* Deprecated (1.4): shmem_wait_until on long, shmem_wait, shmem_TYPENAME_wait (== wait_until
 * with SHMEM_CMP_NE). */
SHMEM_API SHMEM_DEPRECATED void shmem_wait_until(long* ivar, int cmp, long cmp_value) SHMEM_NOEXCEPT;
SHMEM_API SHMEM_DEPRECATED void shmem_wait(long* ivar, long cmp_value) SHMEM_NOEXCEPT;
#define SHMEM_DECL_WAIT_DEPRECATED_(T, N) \
  SHMEM_API SHMEM_DEPRECATED void shmem_##N##_wait(T* ivar, T cmp_value) SHMEM_NOEXCEPT;
SHMEM_WAIT_DEPRECATED_TYPE_TABLE(SHMEM_DECL_WAIT_DEPRECATED_)
#undef SHMEM_DECL_WAIT_DEPRECATED_

/* ---- distributed locks (a symmetric long initialised to 0) ---------------------------------- */
SHMEM_API void shmem_set_lock(long* lock) SHMEM_NOEXCEPT;
SHMEM_API void shmem_clear_lock(long* lock) SHMEM_NOEXCEPT;
SHMEM_API int shmem_test_lock(long* lock) SHMEM_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* SHMEM_SHMEM_SYNC_H */
