/*
 * shmem/shmem_coll.h - OpenSHMEM 1.6 team-based collectives. Part of <shmem.h>; include that.
 *
 *   shmem_[TYPENAME_]{broadcast,collect,fcollect,alltoall,alltoalls}, and the *mem forms
 *       TYPE: the standard RMA types (shmem_broadcast.tex, shmem_collect.tex, shmem_alltoall.tex,
 *       shmem_alltoalls.tex); nelems counts elements (bytes for *mem)
 *   shmem_TYPENAME_{and,or,xor,max,min,sum,prod}_reduce      (shmem_reductions.tex)
 *   shmem_TYPENAME_sum_{inscan,exscan}                       (shmem_scan.tex, new in 1.6)
 *       TYPE: per operation, Table teamreducetypes (see shmem/shmem_types.h)
 *
 * All are collective over `team` and return 0 on successful local completion, nonzero otherwise.
 * The spec leaves the behaviour for SHMEM_TEAM_INVALID undefined; this library returns nonzero
 * without communicating. The deprecated active-set forms are in shmem/shmem_coll_legacy.h.
 */
#ifndef SHMEM_SHMEM_COLL_H
#define SHMEM_SHMEM_COLL_H

#ifndef SHMEM_H
#error "include <shmem.h> instead of <shmem/shmem_coll.h>"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- data movement: standard RMA types --------------------------------------------------------- */
#define SHMEM_DECL_COLL_(T, N)                                                                              \
  SHMEM_API int shmem_##N##_broadcast(shmem_team_t team, T* dest, const T* source, size_t nelems,           \
                                      int PE_root) SHMEM_NOEXCEPT;                                          \
  SHMEM_API int shmem_##N##_collect(shmem_team_t team, T* dest, const T* source, size_t nelems)             \
      SHMEM_NOEXCEPT;                                                                                       \
  SHMEM_API int shmem_##N##_fcollect(shmem_team_t team, T* dest, const T* source, size_t nelems)            \
      SHMEM_NOEXCEPT;                                                                                       \
  SHMEM_API int shmem_##N##_alltoall(shmem_team_t team, T* dest, const T* source, size_t nelems)            \
      SHMEM_NOEXCEPT;                                                                                       \
  SHMEM_API int shmem_##N##_alltoalls(shmem_team_t team, T* dest, const T* source, ptrdiff_t dst,           \
                                      ptrdiff_t sst, size_t nelems) SHMEM_NOEXCEPT;
SHMEM_RMA_TYPE_TABLE(SHMEM_DECL_COLL_)
#undef SHMEM_DECL_COLL_

SHMEM_API int shmem_broadcastmem(shmem_team_t team, void* dest, const void* source, size_t nelems,
                                 int PE_root) SHMEM_NOEXCEPT;
SHMEM_API int shmem_collectmem(shmem_team_t team, void* dest, const void* source, size_t nelems) SHMEM_NOEXCEPT;
SHMEM_API int shmem_fcollectmem(shmem_team_t team, void* dest, const void* source, size_t nelems) SHMEM_NOEXCEPT;
SHMEM_API int shmem_alltoallmem(shmem_team_t team, void* dest, const void* source, size_t nelems) SHMEM_NOEXCEPT;
SHMEM_API int shmem_alltoallsmem(shmem_team_t team, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
                                 size_t nelems) SHMEM_NOEXCEPT;

/* ---- reductions and scans ---------------------------------------------------------------------
 * OPNAME is the whole suffix (and_reduce, not and: and/or/xor are operator names in C++). */
#define SHMEM_DECL_REDUCE_(T, N, OPNAME)                                                                \
  SHMEM_API int shmem_##N##_##OPNAME(shmem_team_t team, T* dest, const T* source, size_t nreduce) \
      SHMEM_NOEXCEPT;
#define SHMEM_DECL_REDUCE_BIT_(T, N)      \
  SHMEM_DECL_REDUCE_(T, N, and_reduce)    \
  SHMEM_DECL_REDUCE_(T, N, or_reduce)     \
  SHMEM_DECL_REDUCE_(T, N, xor_reduce)
#define SHMEM_DECL_REDUCE_MINMAX_(T, N)   \
  SHMEM_DECL_REDUCE_(T, N, max_reduce)    \
  SHMEM_DECL_REDUCE_(T, N, min_reduce)
#define SHMEM_DECL_REDUCE_SUM_(T, N)     \
  SHMEM_DECL_REDUCE_(T, N, sum_reduce)   \
  SHMEM_DECL_REDUCE_(T, N, prod_reduce)  \
  SHMEM_DECL_REDUCE_(T, N, sum_inscan)   \
  SHMEM_DECL_REDUCE_(T, N, sum_exscan)
SHMEM_REDUCE_BIT_TYPE_TABLE(SHMEM_DECL_REDUCE_BIT_)
SHMEM_REDUCE_MINMAX_TYPE_TABLE(SHMEM_DECL_REDUCE_MINMAX_)
SHMEM_REDUCE_SUM_TYPE_TABLE(SHMEM_DECL_REDUCE_SUM_)
#undef SHMEM_DECL_REDUCE_BIT_
#undef SHMEM_DECL_REDUCE_MINMAX_
#undef SHMEM_DECL_REDUCE_SUM_
#undef SHMEM_DECL_REDUCE_

#ifdef __cplusplus
}
#endif

#endif /* SHMEM_SHMEM_COLL_H */
