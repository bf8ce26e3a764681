/*
 * shmem/shmem_generic_coll.h - generic team-based collective names.
 *   standard RMA types:  shmem_{broadcast,collect,fcollect,alltoall,alltoalls}
 *   teamreducetypes:     shmem_{and,or,xor}_reduce, shmem_{max,min}_reduce,
 *                        shmem_{sum,prod}_reduce, shmem_sum_{inscan,exscan} (1.6)
 *   shmem_sync(team)     the team-based sync; shmem_sync(PE_start, logPE_stride, PE_size, pSync)
 *                        still reaches the deprecated active-set routine
 * Selection is by dest (argument 2). Included by shmem/shmem_generic.h.
 */
#ifndef SHMEM_SHMEM_GENERIC_COLL_H
#define SHMEM_SHMEM_GENERIC_COLL_H

#if defined(SHMEM_HAVE_C11_GENERIC_)

#define SHMEM_G_COLL_(TABLE, S, ...) SHMEM_G_ON2_(TABLE, SHMEM_G_ASSOC_, S, __VA_ARGS__)
#define shmem_broadcast(...) SHMEM_G_COLL_(SHMEM_RMA_TYPE_TABLE_BASE_A, _broadcast, __VA_ARGS__)
#define shmem_collect(...) SHMEM_G_COLL_(SHMEM_RMA_TYPE_TABLE_BASE_A, _collect, __VA_ARGS__)
#define shmem_fcollect(...) SHMEM_G_COLL_(SHMEM_RMA_TYPE_TABLE_BASE_A, _fcollect, __VA_ARGS__)
#define shmem_alltoall(...) SHMEM_G_COLL_(SHMEM_RMA_TYPE_TABLE_BASE_A, _alltoall, __VA_ARGS__)
#define shmem_alltoalls(...) SHMEM_G_COLL_(SHMEM_RMA_TYPE_TABLE_BASE_A, _alltoalls, __VA_ARGS__)

#define shmem_and_reduce(...) SHMEM_G_COLL_(SHMEM_REDUCE_BIT_TYPE_TABLE_BASE_A, _and_reduce, __VA_ARGS__)
#define shmem_or_reduce(...) SHMEM_G_COLL_(SHMEM_REDUCE_BIT_TYPE_TABLE_BASE_A, _or_reduce, __VA_ARGS__)
#define shmem_xor_reduce(...) SHMEM_G_COLL_(SHMEM_REDUCE_BIT_TYPE_TABLE_BASE_A, _xor_reduce, __VA_ARGS__)
#define shmem_max_reduce(...) SHMEM_G_COLL_(SHMEM_REDUCE_MINMAX_TYPE_TABLE_BASE_A, _max_reduce, __VA_ARGS__)
#define shmem_min_reduce(...) SHMEM_G_COLL_(SHMEM_REDUCE_MINMAX_TYPE_TABLE_BASE_A, _min_reduce, __VA_ARGS__)
#define shmem_sum_reduce(...) SHMEM_G_COLL_(SHMEM_REDUCE_SUM_TYPE_TABLE_BASE_A, _sum_reduce, __VA_ARGS__)
#define shmem_prod_reduce(...) SHMEM_G_COLL_(SHMEM_REDUCE_SUM_TYPE_TABLE_BASE_A, _prod_reduce, __VA_ARGS__)
#define shmem_sum_inscan(...) SHMEM_G_COLL_(SHMEM_REDUCE_SUM_TYPE_TABLE_BASE_A, _sum_inscan, __VA_ARGS__)
#define shmem_sum_exscan(...) SHMEM_G_COLL_(SHMEM_REDUCE_SUM_TYPE_TABLE_BASE_A, _sum_exscan, __VA_ARGS__)

/* Inside its own expansion, shmem_sync names the function again (macros do not recurse). */
#define shmem_sync(...) \
  _Generic(SHMEM_G_ARG1_(__VA_ARGS__, 0), shmem_team_t: shmem_team_sync, default: shmem_sync)(__VA_ARGS__)

#elif defined(SHMEM_HAVE_CXX_OVERLOADS_)

extern "C++" {
#define SHMEM_CXX_COLL_(T, N)                                                                           \
  SHMEM_CXX_FWD_(int, shmem_broadcast, shmem_##N##_broadcast,                                           \
                 (shmem_team_t team, T * dest, const T* source, size_t nelems, int PE_root),            \
                 (team, dest, source, nelems, PE_root))                                                 \
  SHMEM_CXX_FWD_(int, shmem_collect, shmem_##N##_collect,                                               \
                 (shmem_team_t team, T * dest, const T* source, size_t nelems), (team, dest, source, nelems)) \
  SHMEM_CXX_FWD_(int, shmem_fcollect, shmem_##N##_fcollect,                                             \
                 (shmem_team_t team, T * dest, const T* source, size_t nelems), (team, dest, source, nelems)) \
  SHMEM_CXX_FWD_(int, shmem_alltoall, shmem_##N##_alltoall,                                             \
                 (shmem_team_t team, T * dest, const T* source, size_t nelems), (team, dest, source, nelems)) \
  SHMEM_CXX_FWD_(int, shmem_alltoalls, shmem_##N##_alltoalls,                                           \
                 (shmem_team_t team, T * dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems), \
                 (team, dest, source, dst, sst, nelems))
SHMEM_RMA_TYPE_TABLE_BASE(SHMEM_CXX_COLL_)
#undef SHMEM_CXX_COLL_

/* int NAME(team, dest, source, nreduce) -> FN. */
#define SHMEM_CXX_REDUCE_(T, NAME, FN)                                                          \
  SHMEM_CXX_FWD_(int, NAME, FN, (shmem_team_t team, T * dest, const T* source, size_t nreduce), \
                 (team, dest, source, nreduce))
#define SHMEM_CXX_REDUCE_BIT_(T, N)                                 \
  SHMEM_CXX_REDUCE_(T, shmem_and_reduce, shmem_##N##_and_reduce)    \
  SHMEM_CXX_REDUCE_(T, shmem_or_reduce, shmem_##N##_or_reduce)      \
  SHMEM_CXX_REDUCE_(T, shmem_xor_reduce, shmem_##N##_xor_reduce)
#define SHMEM_CXX_REDUCE_MINMAX_(T, N)                              \
  SHMEM_CXX_REDUCE_(T, shmem_max_reduce, shmem_##N##_max_reduce)    \
  SHMEM_CXX_REDUCE_(T, shmem_min_reduce, shmem_##N##_min_reduce)
#define SHMEM_CXX_REDUCE_SUM_(T, N)                                 \
  SHMEM_CXX_REDUCE_(T, shmem_sum_reduce, shmem_##N##_sum_reduce)    \
  SHMEM_CXX_REDUCE_(T, shmem_prod_reduce, shmem_##N##_prod_reduce)  \
  SHMEM_CXX_REDUCE_(T, shmem_sum_inscan, shmem_##N##_sum_inscan)    \
  SHMEM_CXX_REDUCE_(T, shmem_sum_exscan, shmem_##N##_sum_exscan)
SHMEM_REDUCE_BIT_TYPE_TABLE_BASE(SHMEM_CXX_REDUCE_BIT_)
SHMEM_REDUCE_MINMAX_TYPE_TABLE_BASE(SHMEM_CXX_REDUCE_MINMAX_)
SHMEM_REDUCE_SUM_TYPE_TABLE_BASE(SHMEM_CXX_REDUCE_SUM_)
/* float _Complex* / double _Complex* under GCC (see SHMEM_REDUCE_GNU_COMPLEX_TYPE_TABLE): the
 * generic names only, forwarding to the typed std::complex functions (same layout). The typed
 * names keep one C++ signature each, so that &shmem_complexd_sum_reduce stays unambiguous. */
#define SHMEM_CXX_REDUCE_GNU_COMPLEX_1_(GT, ST, NAME, FN)                                            \
  inline int NAME(shmem_team_t team, GT* dest, const GT* source, size_t nreduce) noexcept {         \
    return FN(team, reinterpret_cast<ST*>(dest), reinterpret_cast<const ST*>(source), nreduce);     \
  }
#define SHMEM_CXX_REDUCE_GNU_COMPLEX_(GT, N, ST)                                               \
  SHMEM_CXX_REDUCE_GNU_COMPLEX_1_(GT, ST, shmem_sum_reduce, shmem_##N##_sum_reduce)            \
  SHMEM_CXX_REDUCE_GNU_COMPLEX_1_(GT, ST, shmem_prod_reduce, shmem_##N##_prod_reduce)          \
  SHMEM_CXX_REDUCE_GNU_COMPLEX_1_(GT, ST, shmem_sum_inscan, shmem_##N##_sum_inscan)            \
  SHMEM_CXX_REDUCE_GNU_COMPLEX_1_(GT, ST, shmem_sum_exscan, shmem_##N##_sum_exscan)
SHMEM_REDUCE_GNU_COMPLEX_TYPE_TABLE(SHMEM_CXX_REDUCE_GNU_COMPLEX_)
#undef SHMEM_CXX_REDUCE_GNU_COMPLEX_
#undef SHMEM_CXX_REDUCE_GNU_COMPLEX_1_
#undef SHMEM_CXX_REDUCE_BIT_
#undef SHMEM_CXX_REDUCE_MINMAX_
#undef SHMEM_CXX_REDUCE_SUM_
#undef SHMEM_CXX_REDUCE_

inline int shmem_sync(shmem_team_t team) noexcept { return shmem_team_sync(team); }
}  // extern "C++"

#endif

#endif /* SHMEM_SHMEM_GENERIC_COLL_H */
