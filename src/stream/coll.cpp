// Team collectives on a stream: broadcast, collect, fcollect, alltoall (byte forms) and the
// typed reductions shmemx_TYPENAME_OP_reduce_on_stream, generated from the same tables and
// element operations as shmem_TYPENAME_OP_reduce. Arguments are checked when the work runs.
#include "coll/reduce_ops.hpp"
#include "core/runtime.hpp"
#include "core/team_ops.hpp"
#include "coll/ops.hpp"
#include "stream/checks.hpp"
#include "stream/cuda_ops.hpp"
#include "stream/stream.hpp"

namespace shmem::stream {
namespace {

// n * a bytes, or report an overflow.
bool bytes_of(const char* f, std::size_t n, std::size_t a, std::size_t* out) noexcept {
  if (!__builtin_mul_overflow(n, a, out)) return true;
  report(SHMEMX_ERR_INVALID_ARGUMENT, f, "nelems=%zu is too large: the buffer size overflows size_t; skipped", n);
  return false;
}

enum class Kind { kBroadcast, kCollect, kFcollect, kAlltoall };

void gather(const char* f, Kind kind, shmem_team_t team, void* dest, const void* source, std::size_t nelems, int root,
            shmemx_stream_t stream) noexcept {
  if (kind != Kind::kCollect) {  // GPU memory on a CUDA stream: kernels on it
    const GpuGather g = kind == Kind::kBroadcast  ? GpuGather::kBroadcast
                        : kind == Kind::kFcollect ? GpuGather::kFcollect
                                                  : GpuGather::kAlltoall;
    if (gpu_gather(f, g, team, dest, source, nelems, root, stream)) return;
  }
  submit(stream, f, [=](Runtime& rt) -> int {
    Team* t = team_of(rt, f, team);
    if (t == nullptr) return SHMEMX_ERR_INVALID_ARGUMENT;
    const auto n = static_cast<std::size_t>(core::team_n_pes(t));
    std::size_t all = 0;
    if (!bytes_of(f, nelems, n, &all)) return SHMEMX_ERR_INVALID_ARGUMENT;
    std::size_t dest_bytes = nelems, src_bytes = nelems;
    switch (kind) {
      case Kind::kBroadcast:
        if (root < 0 || static_cast<std::size_t>(root) >= n)
          return report(SHMEMX_ERR_INVALID_ARGUMENT, f, "PE_root=%d is not a PE of the team (0..%zu); skipped", root,
                        n - 1);
        break;
      case Kind::kCollect: break;  // dest's size depends on the other PEs' contributions
      case Kind::kFcollect: dest_bytes = all; break;
      case Kind::kAlltoall: dest_bytes = src_bytes = all; break;
    }
    if (const int rc = check_coll(rt, f, "dest", dest, dest_bytes)) return rc;
    if (const int rc = check_coll(rt, f, "source", source, src_bytes)) return rc;
    switch (kind) {
      case Kind::kBroadcast: return core::broadcast(t, dest, source, nelems, root) ? SHMEMX_ERR_INVALID_ARGUMENT : 0;
      case Kind::kCollect: return core::collect(t, dest, source, nelems) ? SHMEMX_ERR_INVALID_ARGUMENT : 0;
      case Kind::kFcollect: return core::fcollect(t, dest, source, nelems) ? SHMEMX_ERR_INVALID_ARGUMENT : 0;
      case Kind::kAlltoall: return core::alltoall(t, dest, source, nelems) ? SHMEMX_ERR_INVALID_ARGUMENT : 0;
    }
    return 0;
  });
}

void reduce_on_stream(const char* f, shmem_team_t team, void* dest, const void* source, std::size_t nreduce,
                      std::size_t elem, core::Combine combine, int gpu_elem_id, int gpu_op_id,
                      shmemx_stream_t stream) noexcept {
  if (gpu_reduce(f, team, dest, source, nreduce, gpu_elem_id, gpu_op_id, stream)) return;  // GPU memory, CUDA stream
  submit(stream, f, [=](Runtime& rt) -> int {
    Team* t = team_of(rt, f, team);
    if (t == nullptr) return SHMEMX_ERR_INVALID_ARGUMENT;
    std::size_t bytes = 0;
    if (!bytes_of(f, nreduce, elem, &bytes)) return SHMEMX_ERR_INVALID_ARGUMENT;
    if (const int rc = check_coll(rt, f, "dest", dest, bytes)) return rc;
    if (const int rc = check_coll(rt, f, "source", source, bytes)) return rc;
    const auto d = reinterpret_cast<std::uintptr_t>(dest);
    const auto s = reinterpret_cast<std::uintptr_t>(source);
    if (bytes != 0 && d != s && d < s + bytes && s < d + bytes)
      return report(SHMEMX_ERR_INVALID_ARGUMENT, f, "dest and source overlap partially; skipped");
    return core::reduce(t, dest, source, nreduce, elem, combine) ? SHMEMX_ERR_INVALID_ARGUMENT : 0;
  });
}

}  // namespace
}  // namespace shmem::stream

namespace st = shmem::stream;
namespace coll = shmem::coll;

extern "C" {

void shmemx_broadcastmem_on_stream(shmem_team_t team, void* dest, const void* source, size_t nelems, int PE_root,
                                   shmemx_stream_t stream) noexcept {
  st::gather(__func__, st::Kind::kBroadcast, team, dest, source, nelems, PE_root, stream);
}
void shmemx_collectmem_on_stream(shmem_team_t team, void* dest, const void* source, size_t nelems,
                                 shmemx_stream_t stream) noexcept {
  st::gather(__func__, st::Kind::kCollect, team, dest, source, nelems, 0, stream);
}
void shmemx_fcollectmem_on_stream(shmem_team_t team, void* dest, const void* source, size_t nelems,
                                  shmemx_stream_t stream) noexcept {
  st::gather(__func__, st::Kind::kFcollect, team, dest, source, nelems, 0, stream);
}
void shmemx_alltoallmem_on_stream(shmem_team_t team, void* dest, const void* source, size_t nelems,
                                  shmemx_stream_t stream) noexcept {
  st::gather(__func__, st::Kind::kAlltoall, team, dest, source, nelems, 0, stream);
}

#define SHMEMX_DEF_REDUCE_ON_STREAM_(T, N, NAME, OP)                                                       \
  void shmemx_##N##_##NAME##_reduce_on_stream(shmem_team_t team, T* dest, const T* source, size_t nreduce, \
                                              shmemx_stream_t stream) noexcept {                           \
    st::reduce_on_stream(__func__, team, dest, source, nreduce, sizeof(T), &coll::combine<T, coll::OP>,    \
                         st::gpu_elem<T>(), st::gpu_op<coll::OP>(), stream);                               \
  }
#define SHMEMX_DEF_REDUCE_BIT_(T, N)                 \
  SHMEMX_DEF_REDUCE_ON_STREAM_(T, N, and, OpAnd)     \
  SHMEMX_DEF_REDUCE_ON_STREAM_(T, N, or, OpOr)       \
  SHMEMX_DEF_REDUCE_ON_STREAM_(T, N, xor, OpXor)
#define SHMEMX_DEF_REDUCE_MINMAX_(T, N)              \
  SHMEMX_DEF_REDUCE_ON_STREAM_(T, N, max, OpMax)     \
  SHMEMX_DEF_REDUCE_ON_STREAM_(T, N, min, OpMin)
#define SHMEMX_DEF_REDUCE_SUM_(T, N)                 \
  SHMEMX_DEF_REDUCE_ON_STREAM_(T, N, sum, OpSum)     \
  SHMEMX_DEF_REDUCE_ON_STREAM_(T, N, prod, OpProd)
SHMEM_REDUCE_BIT_TYPE_TABLE(SHMEMX_DEF_REDUCE_BIT_)
SHMEM_REDUCE_MINMAX_TYPE_TABLE(SHMEMX_DEF_REDUCE_MINMAX_)
SHMEM_REDUCE_SUM_TYPE_TABLE(SHMEMX_DEF_REDUCE_SUM_)
#undef SHMEMX_DEF_REDUCE_BIT_
#undef SHMEMX_DEF_REDUCE_MINMAX_
#undef SHMEMX_DEF_REDUCE_SUM_
#undef SHMEMX_DEF_REDUCE_ON_STREAM_

}  // extern "C"
