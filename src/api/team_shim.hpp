#pragma once
// Private helpers for the team, context and collective shims (team.cpp, coll_*.cpp): handle
// mapping, the byte-based collective entry points with their argument checks, and active-set
// validation. Same rules as shim.hpp: noexcept, allocation-free, one call into shmem::core.
#include <cstddef>
#include <cstdint>

#include "api/shim.hpp"
#include "base/error.hpp"
#include "base/log.hpp"
#include "core/coll_check.hpp"
#include "core/team_ops.hpp"
#include "coll/ops.hpp"

namespace shmem::api {

// ---- handles -------------------------------------------------------------------------------------
// SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED are the distinguished values 1 and 2 (shmem/shmem_team.h),
// which core::team_from_handle maps to the predefined teams; SHMEM_TEAM_INVALID (NULL) stays
// nullptr. Any other handle is a Team*.
inline Team* team_of(const char* f, shmem_team_t h) noexcept {
  return core::team_from_handle(static_cast<void*>(h), f);
}
// The inverse: predefined teams are always handed out as their distinguished values, so that
// programs can compare against SHMEM_TEAM_WORLD / SHMEM_TEAM_SHARED.
inline shmem_team_t handle_of(Team* t) noexcept {
  if (t == nullptr) return SHMEM_TEAM_INVALID;
  return reinterpret_cast<shmem_team_t>(core::team_handle(t->rt(), t));
}

// The public context handle of a core context is the Ctx* itself (ctx_of maps it back).
inline shmem_ctx_t ctx_handle(Ctx* c) noexcept { return reinterpret_cast<shmem_ctx_t>(c); }

// Nonzero return of a team routine or collective that refused its arguments (SHMEM_TEAM_INVALID:
// the spec leaves collectives on it undefined; this library does nothing and returns this).
inline constexpr int kRefused = static_cast<int>(Errc::kInvalidArgument);

// The team of a collective, or nullptr (the caller returns kRefused) for SHMEM_TEAM_INVALID.
inline Team* coll_team(const char* f, shmem_team_t h) noexcept {
  Team* t = team_of(f, h);
  if (t == nullptr && checking())
    SHMEM_ERROR("api", "%s: team is SHMEM_TEAM_INVALID; nothing was done, returning nonzero", f);
  return t;
}

// ---- argument checks (checked mode) ----------------------------------------------------------------
// n * a * b bytes, or a fatal error naming `what` when that does not fit in size_t.
inline std::size_t checked_bytes(const char* f, const char* what, std::size_t n, std::size_t a,
                                 std::size_t b = 1) noexcept {
  std::size_t r = 0;
  if (__builtin_mul_overflow(n, a, &r) || __builtin_mul_overflow(r, b, &r))
    core::fatal(f, "%s=%zu is too large: the buffer size overflows size_t", what, n);
  return r;
}
// A collective buffer: symmetric (which also rejects null), unless nothing is moved. Always
// checked to lie in a symmetric region (a few compares per call: a private buffer would
// otherwise be read or written at the wrong address on the other PEs); checked mode also
// checks that it lies inside one symmetric object.
inline void check_coll_buffer(const char* f, const char* arg, const void* p, std::size_t bytes) noexcept {
  if (bytes == 0) return;
  if (p == nullptr) core::fatal(f, "%s is null but covers %zu bytes", arg, bytes);
  if (checking())
    core::check_symmetric(f, arg, p, bytes);
  else
    core::check_symmetric_range(f, arg, p, bytes);
}
// Reductions and scans: dest and source are the same buffer (in place) or disjoint.
inline void check_in_place_or_disjoint(const char* f, const void* dest, const void* source,
                                       std::size_t bytes) noexcept {
  const auto d = reinterpret_cast<std::uintptr_t>(dest);
  const auto s = reinterpret_cast<std::uintptr_t>(source);
  if (bytes != 0 && d != s && d < s + bytes && s < d + bytes)
    core::fatal(f, "dest and source overlap partially; they must be the same array (in place) or disjoint");
}
// Strides of the alltoalls routines are >= 1.
inline void check_stride(const char* f, const char* arg, std::ptrdiff_t stride) noexcept {
  if (stride < 1) core::fatal(f, "%s=%td must be at least 1", arg, stride);
}

// ---- team-based collectives (byte based; typed shims pass nelems and sizeof(T)) -----------------
// PE_root is always range-checked (one compare): the core would otherwise read outside the team.
inline int broadcast(const char* f, shmem_team_t h, void* dest, const void* source, std::size_t nelems,
                     std::size_t elem, int root) noexcept {
  Team* t = coll_team(f, h);
  if (t == nullptr) return kRefused;
  const int n = core::team_n_pes(t);
  if (root < 0 || root >= n) core::fatal(f, "PE_root=%d is not a PE of the team (0..%d)", root, n - 1);
  const std::size_t bytes = checked_bytes(f, "nelems", nelems, elem);
  check_coll_buffer(f, "dest", dest, bytes);
  check_coll_buffer(f, "source", source, bytes);
  const coll_check::Scope call(f, coll_check::Kind::kNelemsRoot, *t, nelems, root);
  return core::broadcast(t, dest, source, nelems * elem, root);
}

enum class Gather { kCollect, kFcollect, kAlltoall };
// collect: dest receives every PE's contribution (sizes may differ, so only the local share can
// be checked); fcollect: nelems from each PE; alltoall: nelems to and from each PE.
inline int gather(const char* f, Gather kind, shmem_team_t h, void* dest, const void* source, std::size_t nelems,
                  std::size_t elem) noexcept {
  Team* t = coll_team(f, h);
  if (t == nullptr) return kRefused;
  const auto n = static_cast<std::size_t>(core::team_n_pes(t));
  const std::size_t bytes = checked_bytes(f, "nelems", nelems, elem);
  const std::size_t all = checked_bytes(f, "nelems", nelems, elem, n);
  check_coll_buffer(f, "dest", dest, kind == Gather::kCollect ? bytes : all);
  check_coll_buffer(f, "source", source, kind == Gather::kAlltoall ? all : bytes);
  // collect: nelems may differ from PE to PE (the check compares the routine only)
  const coll_check::Scope call(f, kind == Gather::kCollect ? coll_check::Kind::kTeam : coll_check::Kind::kNelems, *t,
                               nelems);
  switch (kind) {
    case Gather::kCollect:
      return core::collect(t, dest, source, nelems * elem);
    case Gather::kFcollect:
      return core::fcollect(t, dest, source, nelems * elem);
    case Gather::kAlltoall:
      break;
  }
  return core::alltoall(t, dest, source, nelems * elem);
}

inline int alltoalls(const char* f, shmem_team_t h, void* dest, const void* source, std::ptrdiff_t dst,
                     std::ptrdiff_t sst, std::size_t nelems, std::size_t elem) noexcept {
  Team* t = coll_team(f, h);
  if (t == nullptr) return kRefused;
  check_stride(f, "dst", dst);
  check_stride(f, "sst", sst);
  const auto n = static_cast<std::size_t>(core::team_n_pes(t));
  const std::size_t count = checked_bytes(f, "nelems", nelems, n);
  check_coll_buffer(f, "dest", dest, strided_extent(count, dst, elem));
  check_coll_buffer(f, "source", source, strided_extent(count, sst, elem));
  const coll_check::Scope call(f, coll_check::Kind::kNelems, *t, nelems);
  return core::alltoalls(t, dest, source, dst, sst, nelems, elem);
}

// Reductions (scan=false) and the 1.6 sum scans.
inline int reduce(const char* f, shmem_team_t h, void* dest, const void* source, std::size_t nelems,
                  std::size_t elem, core::Combine combine, bool scan = false, bool exclusive = false) noexcept {
  Team* t = coll_team(f, h);
  if (t == nullptr) return kRefused;
  const std::size_t bytes = checked_bytes(f, "nreduce", nelems, elem);
  check_coll_buffer(f, "dest", dest, bytes);
  check_coll_buffer(f, "source", source, bytes);
  check_in_place_or_disjoint(f, dest, source, bytes);
  const coll_check::Scope call(f, coll_check::Kind::kNreduce, *t, nelems);
  if (scan) return core::scan(t, dest, source, nelems, elem, combine, exclusive);
  return core::reduce(t, dest, source, nelems, elem, combine);
}

// ---- active sets (deprecated collectives) ------------------------------------------------------
// The triplet is always validated (a few compares per collective), since the core would index
// PEs outside the job otherwise; pSync's symmetry is checked in checked mode.
inline core::ActiveSet active_set(const char* f, int start, int log_stride, int size, long* psync) noexcept {
  const int npes = core::n_pes();
  const int me = core::my_pe();
  if (size <= 0 || size > npes) core::fatal(f, "PE_size=%d must be between 1 and the number of PEs (%d)", size, npes);
  if (start < 0 || start >= npes) core::fatal(f, "PE_start=%d is not a PE (0..%d)", start, npes - 1);
  if (log_stride < 0 || (size > 1 && log_stride > 30))
    core::fatal(f, "logPE_stride=%d is out of range", log_stride);
  const int shift = size > 1 ? log_stride : 0;  // the stride of a one-PE set is irrelevant
  const long long last = start + (static_cast<long long>(size - 1) << shift);
  if (last >= npes)
    core::fatal(f, "the active set (PE_start=%d, logPE_stride=%d, PE_size=%d) ends at PE %lld, beyond the last PE %d",
                start, log_stride, size, last, npes - 1);
  const long long offset = me - start;
  if (offset < 0 || (offset & ((1LL << shift) - 1)) != 0 || (offset >> shift) >= size)
    core::fatal(f, "this PE (%d) is not in the active set (PE_start=%d, logPE_stride=%d, PE_size=%d)", me, start,
                log_stride, size);
  if (psync == nullptr) core::fatal(f, "pSync is null");
  if (checking()) core::check_symmetric(f, "pSync", psync, core::kSyncSize * sizeof(long));
  return core::ActiveSet{start, log_stride, size, psync};
}

}  // namespace shmem::api
