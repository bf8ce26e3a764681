// The deprecated active-set collectives: shmem_barrier, shmem_sync (active-set form),
// shmem_{broadcast,collect,fcollect,alltoall,alltoalls}{32,64}, and shmem_TYPENAME_OP_to_all for
// Table asetreducetypes. Thin adapters over the core's ActiveSet forms; pWrk is never read.
#include "coll/reduce_ops.hpp"
#include "api/team_shim.hpp"
#include "core/coll_check.hpp"

namespace api = shmem::api;
namespace coll = shmem::coll;
namespace core = shmem::core;
using shmem::coll_check::Kind;
using shmem::coll_check::Scope;

// Every *_SYNC_SIZE is the core's pSync size, and SHMEM_SYNC_VALUE its idle value.
static_assert(SHMEM_SYNC_SIZE == core::kSyncSize && SHMEM_BARRIER_SYNC_SIZE == core::kSyncSize &&
              SHMEM_BCAST_SYNC_SIZE == core::kSyncSize && SHMEM_COLLECT_SYNC_SIZE == core::kSyncSize &&
              SHMEM_REDUCE_SYNC_SIZE == core::kSyncSize && SHMEM_ALLTOALL_SYNC_SIZE == core::kSyncSize &&
              SHMEM_ALLTOALLS_SYNC_SIZE == core::kSyncSize);
static_assert(SHMEM_SYNC_VALUE == core::kSyncValue);

namespace {

// The buffers of an active-set collective (see api::check_coll_buffer), `count` elements of `elem` bytes.
void check_buffer(const char* f, const char* arg, const void* p, std::size_t count, std::size_t elem,
                  std::size_t factor = 1) noexcept {
  api::check_coll_buffer(f, arg, p, api::checked_bytes(f, "nelems", count, elem, factor));
}

void aset_broadcast(const char* f, void* dest, const void* source, size_t nelems, std::size_t elem, int root,
                    int start, int log_stride, int size, long* psync) noexcept {
  const core::ActiveSet set = api::active_set(f, start, log_stride, size, psync);
  if (root < 0 || root >= size)
    core::fatal(f, "PE_root=%d is not an index into the active set (0..%d)", root, size - 1);
  check_buffer(f, "dest", dest, nelems, elem);
  check_buffer(f, "source", source, nelems, elem);
  const Scope call(f, Kind::kSetNelemsRoot, *shmem::current_runtime(), start, log_stride, size, nelems, root);
  core::broadcast(set, dest, source, nelems * elem, root);
}

void aset_gather(const char* f, api::Gather kind, void* dest, const void* source, size_t nelems, std::size_t elem,
                 int start, int log_stride, int size, long* psync) noexcept {
  const core::ActiveSet set = api::active_set(f, start, log_stride, size, psync);
  const auto n = static_cast<std::size_t>(size);
  check_buffer(f, "dest", dest, nelems, elem, kind == api::Gather::kCollect ? 1 : n);
  check_buffer(f, "source", source, nelems, elem, kind == api::Gather::kAlltoall ? n : 1);
  // collect: nelems may differ from PE to PE (the check compares the routine only)
  const Scope call(f, kind == api::Gather::kCollect ? Kind::kSet : Kind::kSetNelems, *shmem::current_runtime(), start,
                   log_stride, size, nelems);
  switch (kind) {
    case api::Gather::kCollect:
      return core::collect(set, dest, source, nelems * elem);
    case api::Gather::kFcollect:
      return core::fcollect(set, dest, source, nelems * elem);
    case api::Gather::kAlltoall:
      return core::alltoall(set, dest, source, nelems * elem);
  }
}

void aset_alltoalls(const char* f, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                    std::size_t elem, int start, int log_stride, int size, long* psync) noexcept {
  const core::ActiveSet set = api::active_set(f, start, log_stride, size, psync);
  api::check_stride(f, "dst", dst);
  api::check_stride(f, "sst", sst);
  const std::size_t count = api::checked_bytes(f, "nelems", nelems, static_cast<std::size_t>(size));
  api::check_coll_buffer(f, "dest", dest, api::strided_extent(count, dst, elem));
  api::check_coll_buffer(f, "source", source, api::strided_extent(count, sst, elem));
  const Scope call(f, Kind::kSetNelems, *shmem::current_runtime(), start, log_stride, size, nelems);
  core::alltoalls(set, dest, source, dst, sst, nelems, elem);
}

template <class T, class Op>
void to_all(const char* f, T* dest, const T* source, int nreduce, int start, int log_stride, int size,
            long* psync) noexcept {
  const core::ActiveSet set = api::active_set(f, start, log_stride, size, psync);
  if (nreduce < 0) core::fatal(f, "nreduce=%d is negative", nreduce);
  const auto n = static_cast<std::size_t>(nreduce);
  check_buffer(f, "dest", dest, n, sizeof(T));
  check_buffer(f, "source", source, n, sizeof(T));
  if (api::checking()) api::check_in_place_or_disjoint(f, dest, source, n * sizeof(T));
  const Scope call(f, Kind::kSetNreduce, *shmem::current_runtime(), start, log_stride, size, n);
  core::reduce(set, dest, source, n, sizeof(T), &coll::combine<T, Op>);
}

}  // namespace

extern "C" {

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long* pSync) noexcept {
  const core::ActiveSet set = api::active_set(__func__, PE_start, logPE_stride, PE_size, pSync);
  const Scope call(__func__, Kind::kSet, *shmem::current_runtime(), PE_start, logPE_stride, PE_size);
  core::barrier(set);
}
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long* pSync) noexcept {
  const core::ActiveSet set = api::active_set(__func__, PE_start, logPE_stride, PE_size, pSync);
  const Scope call(__func__, Kind::kSet, *shmem::current_runtime(), PE_start, logPE_stride, PE_size);
  core::sync(set);
}

#define SHMEM_DEF_COLL_SIZED_(S)                                                                               \
  void shmem_broadcast##S(void* dest, const void* source, size_t nelems, int PE_root, int PE_start,            \
                          int logPE_stride, int PE_size, long* pSync) noexcept {                               \
    aset_broadcast(__func__, dest, source, nelems, S / 8, PE_root, PE_start, logPE_stride, PE_size, pSync);         \
  }                                                                                                            \
  void shmem_collect##S(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,         \
                        int PE_size, long* pSync) noexcept {                                                   \
    aset_gather(__func__, api::Gather::kCollect, dest, source, nelems, S / 8, PE_start, logPE_stride, PE_size,     \
           pSync);                                                                                             \
  }                                                                                                            \
  void shmem_fcollect##S(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,        \
                         int PE_size, long* pSync) noexcept {                                                  \
    aset_gather(__func__, api::Gather::kFcollect, dest, source, nelems, S / 8, PE_start, logPE_stride, PE_size,    \
           pSync);                                                                                             \
  }                                                                                                            \
  void shmem_alltoall##S(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,        \
                         int PE_size, long* pSync) noexcept {                                                  \
    aset_gather(__func__, api::Gather::kAlltoall, dest, source, nelems, S / 8, PE_start, logPE_stride, PE_size,    \
           pSync);                                                                                             \
  }                                                                                                            \
  void shmem_alltoalls##S(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,         \
                          int PE_start, int logPE_stride, int PE_size, long* pSync) noexcept {                 \
    aset_alltoalls(__func__, dest, source, dst, sst, nelems, S / 8, PE_start, logPE_stride, PE_size, pSync);        \
  }
SHMEM_DEF_COLL_SIZED_(32)
SHMEM_DEF_COLL_SIZED_(64)
#undef SHMEM_DEF_COLL_SIZED_

// void shmem_N_NAME(dest, source, nreduce, PE_start, logPE_stride, PE_size, pWrk, pSync)
#define SHMEM_DEF_TO_ALL_(T, N, NAME, OP)                                                                              \
  void shmem_##N##_##NAME(T* dest, const T* source, int nreduce, int PE_start, int logPE_stride, int PE_size, T* pWrk, \
                          long* pSync) noexcept {                                                                      \
    (void)pWrk;                                                                                                        \
    to_all<T, coll::OP>(__func__, dest, source, nreduce, PE_start, logPE_stride, PE_size, pSync);                      \
  }
#define SHMEM_DEF_TO_ALL_ARITH_(T, N)              \
  SHMEM_DEF_TO_ALL_(T, N, sum_to_all, OpSum)       \
  SHMEM_DEF_TO_ALL_(T, N, prod_to_all, OpProd)
#define SHMEM_DEF_TO_ALL_REAL_(T, N)               \
  SHMEM_DEF_TO_ALL_(T, N, max_to_all, OpMax)       \
  SHMEM_DEF_TO_ALL_(T, N, min_to_all, OpMin)       \
  SHMEM_DEF_TO_ALL_ARITH_(T, N)
#define SHMEM_DEF_TO_ALL_INT_(T, N)                \
  SHMEM_DEF_TO_ALL_(T, N, and_to_all, OpAnd)       \
  SHMEM_DEF_TO_ALL_(T, N, or_to_all, OpOr)         \
  SHMEM_DEF_TO_ALL_(T, N, xor_to_all, OpXor)       \
  SHMEM_DEF_TO_ALL_REAL_(T, N)
SHMEM_TO_ALL_INT_TYPE_TABLE(SHMEM_DEF_TO_ALL_INT_)
SHMEM_TO_ALL_REAL_TYPE_TABLE(SHMEM_DEF_TO_ALL_REAL_)
SHMEM_REDUCE_COMPLEX_TYPE_TABLE(SHMEM_DEF_TO_ALL_ARITH_)
#undef SHMEM_DEF_TO_ALL_INT_
#undef SHMEM_DEF_TO_ALL_REAL_
#undef SHMEM_DEF_TO_ALL_ARITH_
#undef SHMEM_DEF_TO_ALL_

}  // extern "C"
