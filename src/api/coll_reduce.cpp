// Team-based reductions shmem_TYPENAME_{and,or,xor,max,min,sum,prod}_reduce and the 1.6 scans
// shmem_TYPENAME_sum_{inscan,exscan}, for the types of Table teamreducetypes
// (SHMEM_REDUCE_{BIT,MINMAX,SUM}_TYPE_TABLE). Each passes the core one combine<T, Op> instance.
#include "coll/reduce_ops.hpp"
#include "api/team_shim.hpp"

namespace api = shmem::api;
namespace coll = shmem::coll;

extern "C" {

// int shmem_N_NAME(team, dest, source, nreduce): OP combines, SCAN/EXCL select the scan forms.
#define SHMEM_DEF_REDUCE_(T, N, NAME, OP, SCAN, EXCL)                                                   \
  int shmem_##N##_##NAME(shmem_team_t team, T* dest, const T* source, size_t nreduce) noexcept {     \
    return api::reduce(__func__, team, dest, source, nreduce, sizeof(T), &coll::combine<T, coll::OP>, SCAN, \
                       EXCL);                                                                         \
  }

#define SHMEM_DEF_REDUCE_BIT_(T, N)                                \
  SHMEM_DEF_REDUCE_(T, N, and_reduce, OpAnd, false, false)         \
  SHMEM_DEF_REDUCE_(T, N, or_reduce, OpOr, false, false)           \
  SHMEM_DEF_REDUCE_(T, N, xor_reduce, OpXor, false, false)
SHMEM_REDUCE_BIT_TYPE_TABLE(SHMEM_DEF_REDUCE_BIT_)
#undef SHMEM_DEF_REDUCE_BIT_

#define SHMEM_DEF_REDUCE_MINMAX_(T, N)                             \
  SHMEM_DEF_REDUCE_(T, N, max_reduce, OpMax, false, false)         \
  SHMEM_DEF_REDUCE_(T, N, min_reduce, OpMin, false, false)
SHMEM_REDUCE_MINMAX_TYPE_TABLE(SHMEM_DEF_REDUCE_MINMAX_)
#undef SHMEM_DEF_REDUCE_MINMAX_

#define SHMEM_DEF_REDUCE_SUM_(T, N)                                \
  SHMEM_DEF_REDUCE_(T, N, sum_reduce, OpSum, false, false)         \
  SHMEM_DEF_REDUCE_(T, N, prod_reduce, OpProd, false, false)       \
  SHMEM_DEF_REDUCE_(T, N, sum_inscan, OpSum, true, false)          \
  SHMEM_DEF_REDUCE_(T, N, sum_exscan, OpSum, true, true)
SHMEM_REDUCE_SUM_TYPE_TABLE(SHMEM_DEF_REDUCE_SUM_)
#undef SHMEM_DEF_REDUCE_SUM_

#undef SHMEM_DEF_REDUCE_

}  // extern "C"
