/*
 * shmem/shmem_coll_legacy.h - the active-set-based collectives and their library constants,
 * deprecated since OpenSHMEM 1.5 and still required by 1.6 (backmatter.tex, "Deprecated API").
 * Part of <shmem.h>; include that.
 *
 * An active set is PE_start, PE_start + 2^logPE_stride, ... (PE_size PEs). pSync is a symmetric
 * array of longs, every element SHMEM_SYNC_VALUE before first use; the library leaves it so.
 * Sources: shmem_barrier.tex, shmem_sync.tex, shmem_broadcast.tex, shmem_collect.tex,
 * shmem_alltoall.tex, shmem_alltoalls.tex, shmem_reductions.tex (asetreducetypes),
 * library_constants.tex.
 */
#ifndef SHMEM_SHMEM_COLL_LEGACY_H
#define SHMEM_SHMEM_COLL_LEGACY_H

#ifndef SHMEM_H
#error "include <shmem.h> instead of <shmem/shmem_coll_legacy.h>"
#endif

/* ---- library constants --------------------------------------------------------------------
 * One pSync size fits every routine. pWrk is accepted and never read (the algorithms need no
 * work array), so SHMEM_REDUCE_MIN_WRKDATA_SIZE only keeps programs that size pWrk compiling. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 240
#define SHMEM_BARRIER_SYNC_SIZE 240
#define SHMEM_BCAST_SYNC_SIZE 240
#define SHMEM_COLLECT_SYNC_SIZE 240
#define SHMEM_REDUCE_SYNC_SIZE 240
#define SHMEM_ALLTOALL_SYNC_SIZE 240
#define SHMEM_ALLTOALLS_SYNC_SIZE 240
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 8
/* Deprecated (1.3) spellings. */
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

#ifdef __cplusplus
extern "C" {
#endif

/* shmem_barrier = shmem_quiet + active-set shmem_sync. In C11, shmem_sync(team) also names the
 * team-based sync (a generic macro in shmem/shmem_generic_coll.h). */
SHMEM_API SHMEM_DEPRECATED void shmem_barrier(int PE_start, int logPE_stride, int PE_size,
                                              long* pSync) SHMEM_NOEXCEPT;
SHMEM_API SHMEM_DEPRECATED void shmem_sync(int PE_start, int logPE_stride, int PE_size, long* pSync) SHMEM_NOEXCEPT;

/* Fixed-size data movement: elements of SIZE bits (32 or 64). For broadcast, dest is not
 * written on the root (the active-set semantics); PE_root is an index into the active set. */
#define SHMEM_DECL_COLL_SIZED_(S)                                                                              \
  SHMEM_API SHMEM_DEPRECATED void shmem_broadcast##S(void* dest, const void* source, size_t nelems,           \
                                                     int PE_root, int PE_start, int logPE_stride, int PE_size, \
                                                     long* pSync) SHMEM_NOEXCEPT;                              \
  SHMEM_API SHMEM_DEPRECATED void shmem_collect##S(void* dest, const void* source, size_t nelems,             \
                                                   int PE_start, int logPE_stride, int PE_size, long* pSync)   \
      SHMEM_NOEXCEPT;                                                                                          \
  SHMEM_API SHMEM_DEPRECATED void shmem_fcollect##S(void* dest, const void* source, size_t nelems,            \
                                                    int PE_start, int logPE_stride, int PE_size, long* pSync)  \
      SHMEM_NOEXCEPT;                                                                                          \
  SHMEM_API SHMEM_DEPRECATED void shmem_alltoall##S(void* dest, const void* source, size_t nelems,            \
                                                    int PE_start, int logPE_stride, int PE_size, long* pSync)  \
      SHMEM_NOEXCEPT;                                                                                          \
  SHMEM_API SHMEM_DEPRECATED void shmem_alltoalls##S(void* dest, const void* source, ptrdiff_t dst,           \
                                                     ptrdiff_t sst, size_t nelems, int PE_start,               \
                                                     int logPE_stride, int PE_size, long* pSync) SHMEM_NOEXCEPT;
SHMEM_DECL_COLL_SIZED_(32)
SHMEM_DECL_COLL_SIZED_(64)
#undef SHMEM_DECL_COLL_SIZED_

/* shmem_TYPENAME_OP_to_all (asetreducetypes). OPNAME is the whole suffix, e.g. and_to_all. */
#define SHMEM_DECL_TO_ALL_(T, N, OPNAME)                                                                  \
  SHMEM_API SHMEM_DEPRECATED void shmem_##N##_##OPNAME(T* dest, const T* source, int nreduce, int PE_start, \
                                                       int logPE_stride, int PE_size, T* pWrk, long* pSync) \
      SHMEM_NOEXCEPT;
#define SHMEM_DECL_TO_ALL_ARITH_(T, N)    \
  SHMEM_DECL_TO_ALL_(T, N, sum_to_all)    \
  SHMEM_DECL_TO_ALL_(T, N, prod_to_all)
#define SHMEM_DECL_TO_ALL_REAL_(T, N)   \
  SHMEM_DECL_TO_ALL_(T, N, max_to_all)  \
  SHMEM_DECL_TO_ALL_(T, N, min_to_all)  \
  SHMEM_DECL_TO_ALL_ARITH_(T, N)
#define SHMEM_DECL_TO_ALL_INT_(T, N)    \
  SHMEM_DECL_TO_ALL_(T, N, and_to_all)  \
  SHMEM_DECL_TO_ALL_(T, N, or_to_all)   \
  SHMEM_DECL_TO_ALL_(T, N, xor_to_all)  \
  SHMEM_DECL_TO_ALL_REAL_(T, N)
SHMEM_TO_ALL_INT_TYPE_TABLE(SHMEM_DECL_TO_ALL_INT_)
SHMEM_TO_ALL_REAL_TYPE_TABLE(SHMEM_DECL_TO_ALL_REAL_)
SHMEM_REDUCE_COMPLEX_TYPE_TABLE(SHMEM_DECL_TO_ALL_ARITH_)
#undef SHMEM_DECL_TO_ALL_INT_
#undef SHMEM_DECL_TO_ALL_REAL_
#undef SHMEM_DECL_TO_ALL_ARITH_
#undef SHMEM_DECL_TO_ALL_

#ifdef __cplusplus
}
#endif

#endif /* SHMEM_SHMEM_COLL_LEGACY_H */
