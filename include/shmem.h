/*
 * shmem.h - OpenSHMEM 1.6 C API: setup, memory, RMA, AMO, signals, ordering, point-to-point
 * synchronization, locks (this file and shmem/shmem_{amo,sync}.h), teams and contexts
 * (shmem/shmem_team.h), team-based collectives (shmem/shmem_coll.h), the deprecated
 * active-set collectives (shmem/shmem_coll_legacy.h), and the generic names as C11 _Generic
 * macros or C++ overloads (shmem/shmem_generic*.h).
 *
 * Compiles as C99, C11 and C++ (17 and later); includes standard headers only. Every typed
 * family is declared by expanding a type table from shmem/shmem_types.h, never written out per
 * type.
 */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#include "shmem/shmem_types.h"

/* ---- attributes -------------------------------------------------------------------------- */
#if defined(__GNUC__) || defined(__clang__)
#define SHMEM_API __attribute__((visibility("default")))
#define SHMEM_NORETURN __attribute__((noreturn))
#else
#define SHMEM_API
#define SHMEM_NORETURN
#endif
/* Deprecated routines are marked only on request, so programs that still use them build clean. */
#if defined(SHMEM_WARN_DEPRECATED) && (defined(__GNUC__) || defined(__clang__))
#define SHMEM_DEPRECATED __attribute__((deprecated))
#else
#define SHMEM_DEPRECATED
#endif
/* The library never lets an exception cross the C boundary; C++ callers may rely on that. */
#if defined(__cplusplus)
#define SHMEM_NOEXCEPT noexcept
#else
#define SHMEM_NOEXCEPT
#endif

/* ---- library constants (library_constants.tex) ------------------------------------------- */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 6
#define SHMEM_MAX_NAME_LEN 64
#define SHMEM_VENDOR_STRING "shmem 0.1.0"

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

/* Deprecated (1.3) spellings. */
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

/* ---- communication contexts (context_intro.tex, library_handles.tex) ----------------------
 * shmem_ctx_t is an opaque pointer. SHMEM_CTX_DEFAULT is the null handle: the library maps a
 * null context to the default context, so zero-initialised handles are usable. The spec lets a
 * handle be a link-time constant, and SHMEM_CTX_INVALID must compare unequal to every valid
 * context, so it is the all-ones address, which no context object can have. */
typedef struct shmem_ctx_opaque* shmem_ctx_t;
#define SHMEM_CTX_DEFAULT ((shmem_ctx_t)0)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)(intptr_t)-1)
#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

/* Sessions (1.6, shmem_ctx_session_start.tex, shmem_ctx_session_config_t.tex). */
#define SHMEM_CTX_SESSION_BATCH (1L << 0)
#define SHMEM_CTX_SESSION_SAME_AMO (1L << 1)
#define SHMEM_CTX_SESSION_TOTAL_OPS (1L << 0)
typedef struct {
  size_t total_ops; /* default SIZE_MAX: not specified */
} shmem_ctx_session_config_t;

#ifdef __cplusplus
extern "C" {
#endif

/* ---- library setup, exit, and query ------------------------------------------------------ */
SHMEM_API void shmem_init(void) SHMEM_NOEXCEPT;
SHMEM_API int shmem_init_thread(int requested, int* provided) SHMEM_NOEXCEPT;
SHMEM_API void shmem_query_thread(int* provided) SHMEM_NOEXCEPT;
SHMEM_API void shmem_query_initialized(int* initialized) SHMEM_NOEXCEPT;
SHMEM_API void shmem_finalize(void) SHMEM_NOEXCEPT;
SHMEM_API SHMEM_NORETURN void shmem_global_exit(int status) SHMEM_NOEXCEPT;
SHMEM_API int shmem_my_pe(void) SHMEM_NOEXCEPT;
SHMEM_API int shmem_n_pes(void) SHMEM_NOEXCEPT;
SHMEM_API int shmem_pe_accessible(int pe) SHMEM_NOEXCEPT;
SHMEM_API int shmem_addr_accessible(const void* addr, int pe) SHMEM_NOEXCEPT;
SHMEM_API void* shmem_ptr(const void* dest, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_info_get_version(int* major, int* minor) SHMEM_NOEXCEPT;
SHMEM_API void shmem_info_get_name(char* name) SHMEM_NOEXCEPT;
SHMEM_API void shmem_pcontrol(const int level, ...) SHMEM_NOEXCEPT;
/* Deprecated (1.2). */
SHMEM_API SHMEM_DEPRECATED void start_pes(int npes) SHMEM_NOEXCEPT;
SHMEM_API SHMEM_DEPRECATED int _my_pe(void) SHMEM_NOEXCEPT;
SHMEM_API SHMEM_DEPRECATED int _num_pes(void) SHMEM_NOEXCEPT;

/* ---- memory management ------------------------------------------------------------------- */
SHMEM_API void* shmem_malloc(size_t size) SHMEM_NOEXCEPT;
SHMEM_API void shmem_free(void* ptr) SHMEM_NOEXCEPT;
SHMEM_API void* shmem_realloc(void* ptr, size_t size) SHMEM_NOEXCEPT;
SHMEM_API void* shmem_align(size_t alignment, size_t size) SHMEM_NOEXCEPT;
SHMEM_API void* shmem_malloc_with_hints(size_t size, long hints) SHMEM_NOEXCEPT;
SHMEM_API void* shmem_calloc(size_t count, size_t size) SHMEM_NOEXCEPT;
/* Deprecated (1.2). */
SHMEM_API SHMEM_DEPRECATED void* shmalloc(size_t size) SHMEM_NOEXCEPT;
SHMEM_API SHMEM_DEPRECATED void shfree(void* ptr) SHMEM_NOEXCEPT;
SHMEM_API SHMEM_DEPRECATED void* shrealloc(void* ptr, size_t size) SHMEM_NOEXCEPT;
SHMEM_API SHMEM_DEPRECATED void* shmemalign(size_t alignment, size_t size) SHMEM_NOEXCEPT;

/* ---- RMA: typed (standard RMA types) ----------------------------------------------------- */
#define SHMEM_DECL_RMA_(T, N)                                                                               \
  SHMEM_API void shmem_##N##_put(T* dest, const T* source, size_t nelems, int pe) SHMEM_NOEXCEPT;           \
  SHMEM_API void shmem_ctx_##N##_put(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe)      \
      SHMEM_NOEXCEPT;                                                                                       \
  SHMEM_API void shmem_##N##_get(T* dest, const T* source, size_t nelems, int pe) SHMEM_NOEXCEPT;           \
  SHMEM_API void shmem_ctx_##N##_get(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe)      \
      SHMEM_NOEXCEPT;                                                                                       \
  SHMEM_API void shmem_##N##_put_nbi(T* dest, const T* source, size_t nelems, int pe) SHMEM_NOEXCEPT;       \
  SHMEM_API void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe)  \
      SHMEM_NOEXCEPT;                                                                                       \
  SHMEM_API void shmem_##N##_get_nbi(T* dest, const T* source, size_t nelems, int pe) SHMEM_NOEXCEPT;       \
  SHMEM_API void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe)  \
      SHMEM_NOEXCEPT;                                                                                       \
  SHMEM_API void shmem_##N##_p(T* dest, T value, int pe) SHMEM_NOEXCEPT;                                    \
  SHMEM_API void shmem_ctx_##N##_p(shmem_ctx_t ctx, T* dest, T value, int pe) SHMEM_NOEXCEPT;               \
  SHMEM_API T shmem_##N##_g(const T* source, int pe) SHMEM_NOEXCEPT;                                        \
  SHMEM_API T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T* source, int pe) SHMEM_NOEXCEPT;                   \
  SHMEM_API void shmem_##N##_iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,    \
                                  int pe) SHMEM_NOEXCEPT;                                                   \
  SHMEM_API void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst,             \
                                      ptrdiff_t sst, size_t nelems, int pe) SHMEM_NOEXCEPT;                 \
  SHMEM_API void shmem_##N##_iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,    \
                                  int pe) SHMEM_NOEXCEPT;                                                   \
  SHMEM_API void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst,             \
                                      ptrdiff_t sst, size_t nelems, int pe) SHMEM_NOEXCEPT;                 \
  SHMEM_API void shmem_##N##_ibput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,    \
                                   size_t nblocks, int pe) SHMEM_NOEXCEPT;                                  \
  SHMEM_API void shmem_ctx_##N##_ibput(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst,            \
                                       ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_##N##_ibget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,    \
                                   size_t nblocks, int pe) SHMEM_NOEXCEPT;                                  \
  SHMEM_API void shmem_ctx_##N##_ibget(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst,            \
                                       ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmem_##N##_put_signal(T* dest, const T* source, size_t nelems, uint64_t* sig_addr,        \
                                        uint64_t signal, int sig_op, int pe) SHMEM_NOEXCEPT;                \
  SHMEM_API void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems,       \
                                            uint64_t* sig_addr, uint64_t signal, int sig_op, int pe)        \
      SHMEM_NOEXCEPT;                                                                                       \
  SHMEM_API void shmem_##N##_put_signal_nbi(T* dest, const T* source, size_t nelems, uint64_t* sig_addr,    \
                                            uint64_t signal, int sig_op, int pe) SHMEM_NOEXCEPT;            \
  SHMEM_API void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems,   \
                                                uint64_t* sig_addr, uint64_t signal, int sig_op, int pe)    \
      SHMEM_NOEXCEPT;
SHMEM_RMA_TYPE_TABLE(SHMEM_DECL_RMA_)
#undef SHMEM_DECL_RMA_

/* ---- RMA: sized (SIZE in bits) and untyped (mem) ----------------------------------------- */
#define SHMEM_DECL_RMA_SIZED_(S)                                                                            \
  SHMEM_API void shmem_put##S(void* dest, const void* source, size_t nelems, int pe) SHMEM_NOEXCEPT;        \
  SHMEM_API void shmem_ctx_put##S(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe)   \
      SHMEM_NOEXCEPT;                                                                                       \
  SHMEM_API void shmem_get##S(void* dest, const void* source, size_t nelems, int pe) SHMEM_NOEXCEPT;        \
  SHMEM_API void shmem_ctx_get##S(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe)   \
      SHMEM_NOEXCEPT;                                                                                       \
  SHMEM_API void shmem_put##S##_nbi(void* dest, const void* source, size_t nelems, int pe) SHMEM_NOEXCEPT;  \
  SHMEM_API void shmem_ctx_put##S##_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,     \
                                        int pe) SHMEM_NOEXCEPT;                                             \
  SHMEM_API void shmem_get##S##_nbi(void* dest, const void* source, size_t nelems, int pe) SHMEM_NOEXCEPT;  \
  SHMEM_API void shmem_ctx_get##S##_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,     \
                                        int pe) SHMEM_NOEXCEPT;                                             \
  SHMEM_API void shmem_iput##S(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                               int pe) SHMEM_NOEXCEPT;                                                      \
  SHMEM_API void shmem_ctx_iput##S(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst,          \
                                   ptrdiff_t sst, size_t nelems, int pe) SHMEM_NOEXCEPT;                    \
  SHMEM_API void shmem_iget##S(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                               int pe) SHMEM_NOEXCEPT;                                                      \
  SHMEM_API void shmem_ctx_iget##S(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst,          \
                                   ptrdiff_t sst, size_t nelems, int pe) SHMEM_NOEXCEPT;                    \
  SHMEM_API void shmem_ibput##S(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, \
                                size_t nblocks, int pe) SHMEM_NOEXCEPT;                                     \
  SHMEM_API void shmem_ctx_ibput##S(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst,         \
                                    ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) SHMEM_NOEXCEPT;    \
  SHMEM_API void shmem_ibget##S(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, \
                                size_t nblocks, int pe) SHMEM_NOEXCEPT;                                     \
  SHMEM_API void shmem_ctx_ibget##S(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst,         \
                                    ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) SHMEM_NOEXCEPT;    \
  SHMEM_API void shmem_put##S##_signal(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,   \
                                       uint64_t signal, int sig_op, int pe) SHMEM_NOEXCEPT;                 \
  SHMEM_API void shmem_ctx_put##S##_signal(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,  \
                                           uint64_t* sig_addr, uint64_t signal, int sig_op, int pe)         \
      SHMEM_NOEXCEPT;                                                                                       \
  SHMEM_API void shmem_put##S##_signal_nbi(void* dest, const void* source, size_t nelems,                   \
                                           uint64_t* sig_addr, uint64_t signal, int sig_op, int pe)         \
      SHMEM_NOEXCEPT;                                                                                       \
  SHMEM_API void shmem_ctx_put##S##_signal_nbi(shmem_ctx_t ctx, void* dest, const void* source,             \
                                               size_t nelems, uint64_t* sig_addr, uint64_t signal,          \
                                               int sig_op, int pe) SHMEM_NOEXCEPT;
SHMEM_RMA_SIZE_TABLE(SHMEM_DECL_RMA_SIZED_)
#undef SHMEM_DECL_RMA_SIZED_

SHMEM_API void shmem_putmem(void* dest, const void* source, size_t nelems, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_putmem(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,
                                int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_getmem(void* dest, const void* source, size_t nelems, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_getmem(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,
                                int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_putmem_nbi(void* dest, const void* source, size_t nelems, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,
                                    int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_getmem_nbi(void* dest, const void* source, size_t nelems, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,
                                    int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_putmem_signal(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,
                                   uint64_t signal, int sig_op, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,
                                       uint64_t* sig_addr, uint64_t signal, int sig_op,
                                       int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_putmem_signal_nbi(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,
                                       uint64_t signal, int sig_op, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,
                                           uint64_t* sig_addr, uint64_t signal, int sig_op,
                                           int pe) SHMEM_NOEXCEPT;

/* ---- signals ----------------------------------------------------------------------------- */
SHMEM_API uint64_t shmem_signal_fetch(const uint64_t* sig_addr) SHMEM_NOEXCEPT;
SHMEM_API uint64_t shmem_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value) SHMEM_NOEXCEPT;
SHMEM_API void shmem_signal_add(uint64_t* sig_addr, uint64_t signal, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal,
                                    int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_signal_set(uint64_t* sig_addr, uint64_t signal, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal,
                                    int pe) SHMEM_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#include "shmem/shmem_team.h"
#include "shmem/shmem_amo.h"
#include "shmem/shmem_sync.h"
#include "shmem/shmem_coll.h"
#include "shmem/shmem_coll_legacy.h"
/* Last: in C11 some generic names are also names of deprecated functions declared above. */
#include "shmem/shmem_generic.h"

#endif /* SHMEM_H */
