/*
 * aclshmem.h - the host API of Ascend SHMEM, name for name, so that programs
 * written for it recompile unchanged: aclshmem_* / aclshmemx_* routines, ACLSHMEM* constants,
 * Ascend SHMEM's types and signatures (int32 signals, out-pointer results for wait/test, int team
 * handles, int-returning finalize, Ascend SHMEM's error codes).
 *
 * Every routine is a thin shim over the same runtime as shmem.h: a program may use both
 * headers' routines on the same symmetric memory. Differences from Ascend SHMEM, what is not
 * supported on this platform and why, are in docs/aclshmem.md. In short:
 *   - host and device memory types both map to the one symmetric heap;
 *   - Ascend engine configuration (MTE/SDMA/RDMA/UDMA windows, FFTS) and in-kernel profiling
 *     exist and return ACLSHMEM_NOT_SUPPORTED (util_get_ffts_config returns 0, Ascend SHMEM's "no
 *     FFTS base needed");
 *   - the *_on_stream routines and aclshmemx_handle_wait run on the stream engine of shmemx.h:
 *     an aclrtStream is a shmemx_stream_t (made by shmemx_stream_create, cast to aclrtStream),
 *     NULL the library's default stream;
 *   - Ascend SHMEM's `#define shmem_xxx aclshmem_xxx` aliases are left out: they would replace the
 *     OpenSHMEM routines of shmem.h.
 *
 * C++ (14 and later) is Ascend SHMEM's language and the primary one here; the header also compiles
 * as C11 (no default arguments or default member initialisers there). Standard headers only.
 * Every typed family is declared by expanding a table of aclshmem/aclshmem_types.h.
 */
#ifndef ACLSHMEM_H
#define ACLSHMEM_H

#include <stddef.h>
#include <stdint.h>

#include "aclshmem/aclshmem_defs.h"
#include "aclshmem/aclshmem_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- initialisation, bootstrap, finalisation ---------------------------------------------- */
/* Collective over the job. flags is one ACLSHMEMX_INIT_WITH_* mode. Returns ACLSHMEM_SUCCESS or
 * an error code (the reason is logged). */
ACLSHMEM_HOST_API int aclshmemx_init_attr(aclshmemx_bootstrap_t bootstrap_flags,
                                          aclshmemx_init_attr_t* attributes) ACLSHMEM_NOEXCEPT;
/* On PE 0 only, before aclshmemx_init_attr: starts PE 0's store and describes it in *uid. */
ACLSHMEM_HOST_API int aclshmemx_get_uniqueid(aclshmemx_uniqueid_t* uid) ACLSHMEM_NOEXCEPT;
/* Fills attr for ACLSHMEMX_INIT_WITH_UNIQUEID (attr->comm_args = uid). */
ACLSHMEM_HOST_API int aclshmemx_set_attr_uniqueid_args(int my_pe, int n_pes, int64_t local_mem_size,
                                                       aclshmemx_uniqueid_t* uid,
                                                       aclshmemx_init_attr_t* attr) ACLSHMEM_NOEXCEPT;
/* ACLSHMEM_STATUS_NOT_INITIALIZED or ACLSHMEM_STATUS_IS_INITIALIZED (for the current instance). */
ACLSHMEM_HOST_API int aclshmemx_init_status(void) ACLSHMEM_NOEXCEPT;
/* Finalises the current instance (collective). */
ACLSHMEM_HOST_API int aclshmem_finalize(void) ACLSHMEM_NOEXCEPT;
/* Finalises instance instance_id (collective over its PEs). */
ACLSHMEM_HOST_API int aclshmemx_finalize(uint64_t instance_id) ACLSHMEM_NOEXCEPT;
/* Ends every PE of the job with status (a warning and nothing else before initialisation). */
ACLSHMEM_HOST_API void aclshmem_global_exit(int status) ACLSHMEM_NOEXCEPT;

ACLSHMEM_HOST_API void aclshmem_info_get_version(int* major, int* minor) ACLSHMEM_NOEXCEPT;
/* Copies ACLSHMEM_VENDOR_STRING; name must hold ACLSHMEM_MAX_NAME_LEN characters. */
ACLSHMEM_HOST_API void aclshmem_info_get_name(char* name) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API int aclshmem_my_pe(void) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API int aclshmem_n_pes(void) ACLSHMEM_NOEXCEPT;

/* ---- instances ---------------------------------------------------------------------------- */
/* The current instance; the pointer stays valid for the life of the process. */
ACLSHMEM_HOST_API aclshmem_instance_ctx* aclshmemx_instance_ctx_get(void) ACLSHMEM_NOEXCEPT;
/* Makes instance_id (initialised by aclshmemx_init_attr) serve every following call. */
ACLSHMEM_HOST_API int aclshmemx_instance_ctx_set(uint64_t instance_id) ACLSHMEM_NOEXCEPT;

/* ---- bootstrap store TLS (before aclshmemx_init_attr; an error afterwards) ------------------ */
/* TLS is on by default. tls_info: Ascend SHMEM's "key: value;" option string (tlsCaFile, tlsCaPath,
 * tlsCert, tlsCrlFile, tlsCrlPath, tlsPk, tlsPkPwd, packagePath), tls_info_len its length (at
 * most ACLSHMEM_MAX_TLS_INFO_LEN; a NUL before it ends the string). */
ACLSHMEM_HOST_API int32_t aclshmemx_set_conf_store_tls(bool enable, const char* tls_info,
                                                      const uint32_t tls_info_len) ACLSHMEM_NOEXCEPT;
/* Private key (PEM content, not a path) and its password; with decrypt_handler the password is
 * ciphertext that the handler turns into plain text. */
ACLSHMEM_HOST_API int32_t aclshmemx_set_config_store_tls_key(const char* tls_pk, const uint32_t tls_pk_len,
                                                            const char* tls_pk_pw, const uint32_t tls_pk_pw_len,
                                                            const aclshmem_decrypt_handler decrypt_handler)
    ACLSHMEM_NOEXCEPT;

/* ---- symmetric memory (collective; HOST_SIDE and DEVICE_SIDE are the same heap) ------------ */
ACLSHMEM_HOST_API void* aclshmem_malloc(size_t size) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API void* aclshmem_calloc(size_t nmemb, size_t size) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API void* aclshmem_align(size_t alignment, size_t size) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API void aclshmem_free(void* ptr) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API void* aclshmemx_malloc(size_t size, aclshmem_mem_type_t mem_type ACLSHMEM_DEFAULT_ARG(DEVICE_SIDE))
    ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API void* aclshmemx_calloc(size_t nmemb, size_t size,
                                         aclshmem_mem_type_t mem_type ACLSHMEM_DEFAULT_ARG(DEVICE_SIDE))
    ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API void* aclshmemx_align(size_t alignment, size_t size,
                                        aclshmem_mem_type_t mem_type ACLSHMEM_DEFAULT_ARG(DEVICE_SIDE))
    ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API void aclshmemx_free(void* ptr, aclshmem_mem_type_t mem_type ACLSHMEM_DEFAULT_ARG(DEVICE_SIDE))
    ACLSHMEM_NOEXCEPT;
/* Start of this PE's symmetric heap (where allocations come from). */
ACLSHMEM_HOST_API void* aclshmemx_get_heap_base(aclshmem_mem_type_t mem_type ACLSHMEM_DEFAULT_ARG(DEVICE_SIDE))
    ACLSHMEM_NOEXCEPT;
/* The address of symmetric object ptr on pe, usable here; NULL if pe's memory is not mapped. */
ACLSHMEM_HOST_API void* aclshmem_ptr(const void* ptr, int pe) ACLSHMEM_NOEXCEPT;

/* ---- teams -------------------------------------------------------------------------------- */
/* Collective over the parent team (every parent PE calls, in the same order). PEs outside the
 * new team get ACLSHMEM_TEAM_INVALID and 0. */
ACLSHMEM_HOST_API int aclshmem_team_split_strided(aclshmem_team_t parent_team, int pe_start, int pe_stride,
                                                  int pe_size, aclshmem_team_t* new_team) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API int aclshmem_team_split_2d(aclshmem_team_t parent_team, int x_range, aclshmem_team_t* x_team,
                                             aclshmem_team_t* y_team) ACLSHMEM_NOEXCEPT;
/* -1 when src_pe is not in src_team, the PE is not in dest_team, or a team is invalid. */
ACLSHMEM_HOST_API int aclshmem_team_translate_pe(aclshmem_team_t src_team, int src_pe,
                                                 aclshmem_team_t dest_team) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API int aclshmem_team_my_pe(aclshmem_team_t team) ACLSHMEM_NOEXCEPT; /* -1 if invalid */
ACLSHMEM_HOST_API int aclshmem_team_n_pes(aclshmem_team_t team) ACLSHMEM_NOEXCEPT; /* -1 if invalid */
ACLSHMEM_HOST_API int aclshmem_team_get_config(aclshmem_team_t team, aclshmem_team_config_t* config) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API void aclshmem_team_destroy(aclshmem_team_t team) ACLSHMEM_NOEXCEPT;

/* ---- RMA ------------------------------------------------------------------------------------
 * Blocking calls are complete on return; the _nbi forms complete at the next barrier (on this
 * platform they are complete on return as well). dest (put) or source (get) is symmetric. */
#define ACLSHMEM_DECL_RMA_(T, NAME)                                                                          \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_put(T* dest, const T* source, size_t nelems, int pe)              \
      ACLSHMEM_NOEXCEPT;                                                                                     \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_get(T* dest, const T* source, size_t nelems, int pe)              \
      ACLSHMEM_NOEXCEPT;                                                                                     \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_put_nbi(T* dest, const T* source, size_t nelems, int pe)          \
      ACLSHMEM_NOEXCEPT;                                                                                     \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_get_nbi(T* dest, const T* source, size_t nelems, int pe)          \
      ACLSHMEM_NOEXCEPT;                                                                                     \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,      \
                                                size_t nelems, int pe) ACLSHMEM_NOEXCEPT;                    \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,      \
                                                size_t nelems, int pe) ACLSHMEM_NOEXCEPT;                    \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_p(T* dest, const T value, int pe) ACLSHMEM_NOEXCEPT;              \
  ACLSHMEM_HOST_API T aclshmem_##NAME##_g(const T* source, int pe) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_TYPE_TABLE(ACLSHMEM_DECL_RMA_)
#undef ACLSHMEM_DECL_RMA_

/* Sized forms: nelems elements of BITS bits. */
#define ACLSHMEM_DECL_RMA_SIZED_(BITS)                                                                       \
  ACLSHMEM_HOST_API void aclshmem_put##BITS(void* dest, const void* source, uint32_t nelems, int pe)         \
      ACLSHMEM_NOEXCEPT;                                                                                     \
  ACLSHMEM_HOST_API void aclshmem_get##BITS(void* dest, const void* source, uint32_t nelems, int pe)         \
      ACLSHMEM_NOEXCEPT;                                                                                     \
  ACLSHMEM_HOST_API void aclshmem_put##BITS##_nbi(void* dest, const void* source, uint32_t nelems, int pe)   \
      ACLSHMEM_NOEXCEPT;                                                                                     \
  ACLSHMEM_HOST_API void aclshmem_get##BITS##_nbi(void* dest, const void* source, uint32_t nelems, int pe)   \
      ACLSHMEM_NOEXCEPT;                                                                                     \
  ACLSHMEM_HOST_API void aclshmem_iput##BITS(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,   \
                                             size_t nelems, int pe) ACLSHMEM_NOEXCEPT;                       \
  ACLSHMEM_HOST_API void aclshmem_iget##BITS(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,   \
                                             size_t nelems, int pe) ACLSHMEM_NOEXCEPT;
ACLSHMEM_SIZE_TABLE(ACLSHMEM_DECL_RMA_SIZED_)
#undef ACLSHMEM_DECL_RMA_SIZED_

ACLSHMEM_HOST_API void aclshmem_putmem(void* dest, const void* source, size_t nbytes, int pe) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API void aclshmem_getmem(void* dest, const void* source, size_t nbytes, int pe) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API void aclshmem_putmem_nbi(void* dest, const void* source, size_t nbytes, int pe) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API void aclshmem_getmem_nbi(void* dest, const void* source, size_t nbytes, int pe) ACLSHMEM_NOEXCEPT;

/* ---- put with signal (int32 signals; sig_op ACLSHMEM_SIGNAL_SET or _ADD) ---------------------
 * The data is delivered before the signal update on pe. The typed forms take the signal word as
 * void* (Ascend SHMEM spells it uint8_t*; an int32_t* works too); it must be a symmetric int32_t. */
#define ACLSHMEM_DECL_PUT_SIGNAL_(T, NAME)                                                                   \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_put_signal(T* dest, const T* source, size_t nelems, void* sig_addr, \
                                                      int32_t signal, int sig_op, int pe) ACLSHMEM_NOEXCEPT; \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_put_signal_nbi(T* dest, const T* source, size_t nelems,           \
                                                          void* sig_addr, int32_t signal, int sig_op, int pe) \
      ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_TYPE_TABLE(ACLSHMEM_DECL_PUT_SIGNAL_)
#undef ACLSHMEM_DECL_PUT_SIGNAL_

#define ACLSHMEM_DECL_PUT_SIGNAL_SIZED_(BITS)                                                               \
  ACLSHMEM_HOST_API void aclshmem_put##BITS##_signal(void* dest, const void* source, size_t nelems,         \
                                                     int32_t* sig_addr, int32_t signal, int sig_op, int pe) \
      ACLSHMEM_NOEXCEPT;                                                                                    \
  ACLSHMEM_HOST_API void aclshmem_put##BITS##_signal_nbi(void* dest, const void* source, size_t nelems,     \
                                                         int32_t* sig_addr, int32_t signal, int sig_op,     \
                                                         int pe) ACLSHMEM_NOEXCEPT;
ACLSHMEM_SIZE_TABLE(ACLSHMEM_DECL_PUT_SIGNAL_SIZED_)
#undef ACLSHMEM_DECL_PUT_SIGNAL_SIZED_

ACLSHMEM_HOST_API void aclshmemx_putmem_signal(void* dest, const void* source, size_t nbytes, void* sig_addr,
                                               int32_t signal, int sig_op, int pe) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API void aclshmemx_putmem_signal_nbi(void* dest, const void* source, size_t nbytes, void* sig_addr,
                                                   int32_t signal, int sig_op, int pe) ACLSHMEM_NOEXCEPT;
/* Waits until the local signal word satisfies (cmp, cmp_value). */
ACLSHMEM_HOST_API void aclshmem_signal_wait_until(int32_t* sig_addr, int cmp, int32_t cmp_value) ACLSHMEM_NOEXCEPT;

/* ---- ordering and synchronisation --------------------------------------------------------- */
/* barrier: every earlier RMA/signal of every member is complete and visible, then all meet.
 * sync is the same (as in Ascend SHMEM). An invalid team is refused with an error message. */
ACLSHMEM_HOST_API void aclshmem_barrier(aclshmem_team_t team) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API void aclshmem_barrier_all(void) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API void aclshmem_sync(aclshmem_team_t team) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API void aclshmem_sync_all(void) ACLSHMEM_NOEXCEPT;

/* ---- stream-ordered calls -------------------------------------------------------------------
 * `stream` is a stream of shmemx.h: a shmemx_stream_t made by shmemx_stream_create and cast to
 * aclrtStream, or NULL for the library's default stream (CANN's aclrtCreateStream streams do not
 * exist here). Each call enqueues and returns at once; the operations run in submission order,
 * each complete before the next starts, and read or write their buffers when they run: keep
 * them alive until shmemx_stream_synchronize(stream) (the counterpart of aclrtSynchronizeStream).
 * A bad argument (PE, address, sig_op, cmp, team) is logged when the operation runs, the
 * operation is skipped, and the stream's next synchronize returns the error. */
ACLSHMEM_HOST_API void aclshmemx_putmem_on_stream(void* dst, void* src, size_t elem_size, int32_t pe,
                                                  aclrtStream stream) ACLSHMEM_NOEXCEPT; /* elem_size: bytes */
ACLSHMEM_HOST_API void aclshmemx_getmem_on_stream(void* dst, void* src, size_t elem_size, int32_t pe,
                                                  aclrtStream stream) ACLSHMEM_NOEXCEPT;
/* int32 signal words (4-byte aligned, symmetric); sig_op ACLSHMEM_SIGNAL_SET or _ADD. */
ACLSHMEM_HOST_API void aclshmemx_signal_op_on_stream(int32_t* sig_addr, int32_t signal, int sig_op, int pe,
                                                     aclrtStream stream) ACLSHMEM_NOEXCEPT;
/* The stream waits until the local *sig_addr satisfies (cmp, cmp_val): later work on it starts
 * only then, while the host goes on. */
ACLSHMEM_HOST_API void aclshmemx_signal_wait_until_on_stream(int32_t* sig_addr, int cmp, int32_t cmp_val,
                                                             aclrtStream stream) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API void aclshmemx_quiet_on_stream(aclrtStream stream) ACLSHMEM_NOEXCEPT;
/* quiet + team sync, as aclshmem_barrier, in stream order. */
ACLSHMEM_HOST_API void aclshmemx_barrier_on_stream(aclshmem_team_t team, aclrtStream stream) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API void aclshmemx_barrier_all_on_stream(aclrtStream stream) ACLSHMEM_NOEXCEPT;
/* Ascend SHMEM's RDMA completion: every earlier operation of every member of handle.team_id
 * complete, then the members meet (a barrier over that team on the stream). Returns
 * ACLSHMEM_SUCCESS, or ACLSHMEM_INVALID_PARAM (nothing enqueued, a message logged) for a team that
 * is not valid here, ACLSHMEM_NOT_INITED before initialisation. */
ACLSHMEM_HOST_API int32_t aclshmemx_handle_wait(aclshmem_handle_t handle, aclrtStream stream) ACLSHMEM_NOEXCEPT;

/* ---- point-to-point wait / test (results through Ascend SHMEM's out-pointers) ------------------
 * status[i] != 0 excludes element i (NULL: all included). _any stores the index found, or
 * SIZE_MAX when no element is eligible; _some stores how many indices it wrote; _test stores 1
 * when the condition holds, else 0. */
#define ACLSHMEM_DECL_P2P_(T, NAME)                                                                           \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_wait_until(T* ivar, int cmp, T cmp_value) ACLSHMEM_NOEXCEPT;       \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_wait(T* ivar, T cmp_value) ACLSHMEM_NOEXCEPT;                      \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_wait_until_all(T* ivars, size_t nelems, const int* status, int cmp, \
                                                          T cmp_value) ACLSHMEM_NOEXCEPT;                     \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_wait_until_any(T* ivars, size_t nelems, const int* status, int cmp, \
                                                          T cmp_value, size_t* res_out) ACLSHMEM_NOEXCEPT;    \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_wait_until_some(T* ivars, size_t nelems, size_t* indices,          \
                                                           const int* status, int cmp, T cmp_value,           \
                                                           size_t* res_out) ACLSHMEM_NOEXCEPT;                \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_wait_until_all_vector(T* ivars, size_t nelems, const int* status,  \
                                                                 int cmp, const T* cmp_values)                \
      ACLSHMEM_NOEXCEPT;                                                                                      \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_wait_until_any_vector(T* ivars, size_t nelems, const int* status,  \
                                                                 int cmp, const T* cmp_values,                \
                                                                 size_t* res_out) ACLSHMEM_NOEXCEPT;          \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_wait_until_some_vector(T* ivars, size_t nelems, size_t* indices,   \
                                                                  const int* status, int cmp,                 \
                                                                  const T* cmp_values, size_t* res_out)       \
      ACLSHMEM_NOEXCEPT;                                                                                      \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_test(T* ivar, int cmp, T cmp_value, int* res_out) ACLSHMEM_NOEXCEPT; \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_test_any(T* ivars, size_t nelems, const int* status, int cmp,      \
                                                    T cmp_value, size_t* res_out) ACLSHMEM_NOEXCEPT;          \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_test_some(T* ivars, size_t nelems, size_t* indices,                \
                                                     const int* status, int cmp, T cmp_value, size_t* res_out) \
      ACLSHMEM_NOEXCEPT;                                                                                      \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_test_all_vector(T* ivars, size_t nelems, const int* status, int cmp, \
                                                           const T* cmp_values, int* res_out) ACLSHMEM_NOEXCEPT; \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_test_any_vector(T* ivars, size_t nelems, const int* status, int cmp, \
                                                           const T* cmp_values, size_t* res_out)              \
      ACLSHMEM_NOEXCEPT;                                                                                      \
  ACLSHMEM_HOST_API void aclshmem_##NAME##_test_some_vector(T* ivars, size_t nelems, size_t* indices,         \
                                                            const int* status, int cmp, const T* cmp_values,  \
                                                            size_t* res_out) ACLSHMEM_NOEXCEPT;
ACLSHMEM_P2P_SYNC_TYPE_TABLE(ACLSHMEM_DECL_P2P_)
#undef ACLSHMEM_DECL_P2P_

/* ---- logging ------------------------------------------------------------------------------- */
/* 0 debug, 1 info, 2 warn, 3 error (4 fatal). SHMEM_LOG_LEVEL in the environment wins. */
ACLSHMEM_HOST_API int32_t aclshmemx_set_log_level(int level) ACLSHMEM_NOEXCEPT;
/* Sends every log line to func (NULL restores the default sink). */
ACLSHMEM_HOST_API int32_t aclshmemx_set_extern_logger(aclshmem_extern_logger_t func) ACLSHMEM_NOEXCEPT;

/* ---- Ascend-only engine and profiling calls -------------------------------------------------
 * They exist so Ascend SHMEM programs compile; on this platform they change nothing, log a warning and
 * return ACLSHMEM_NOT_SUPPORTED (aclshmemx_show_prof, which returns nothing, only warns). */
ACLSHMEM_HOST_API int32_t aclshmemx_set_mte_config(uint64_t ub_offset, uint32_t ub_size,
                                                   uint32_t sync_id) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API int32_t aclshmemx_set_sdma_config(uint64_t ub_offset, uint32_t ub_size,
                                                    uint32_t sync_id) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API int32_t aclshmemx_set_rdma_config(uint64_t ub_offset, uint32_t ub_size,
                                                    uint32_t sync_id) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API int32_t aclshmemx_set_udma_config(uint64_t ub_offset, uint32_t ub_size,
                                                    uint32_t sync_id) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API int32_t aclshmemx_get_prof(aclshmem_prof_pe_t** out, bool verbose) ACLSHMEM_NOEXCEPT;
ACLSHMEM_HOST_API void aclshmemx_show_prof(void) ACLSHMEM_NOEXCEPT;

#ifdef __cplusplus
} /* extern "C" */
#endif

/* The cross-core synchronisation base that A2/A3 kernels need before in-kernel barriers. No
 * such base exists here: 0, as Ascend SHMEM returns where none is needed (Ascend950). */
static inline uint64_t util_get_ffts_config(void) { return 0; }
#ifndef shmemx_get_ffts_config
#define shmemx_get_ffts_config util_get_ffts_config
#endif

#endif /* ACLSHMEM_H */
