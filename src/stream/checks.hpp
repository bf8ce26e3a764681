#pragma once
// Argument checks for work that runs on a stream. Unlike the host calls, whose bad arguments
// end the job, stream work reports the problem (logged, and returned by the stream's next
// synchronize) and is skipped. Each returns 0 or the reported SHMEMX_ERR_* code. These run on
// the stream thread, never take the heap lock, and cost a few compares.
#include <shmemx.h>

#include <cstddef>
#include <cstdint>

#include "core/gpu_heap.hpp"
#include "core/runtime.hpp"
#include "stream/stream.hpp"

namespace shmem::stream {

// [addr, addr + bytes) (bytes >= 1) lies inside one symmetric segment: the heap or the static
// data. Whether a PE is node-local or on another host does not matter (the core operation takes
// the right route).
inline bool in_one_segment(const Runtime& rt, const void* addr, std::size_t bytes) noexcept {
  transport::Seg lo_seg{}, hi_seg{};
  std::uint64_t lo = 0, hi = 0;
  return rt.symmetric_offset(addr, &lo_seg, &lo) &&
         rt.symmetric_offset(static_cast<const char*>(addr) + (bytes - 1), &hi_seg, &hi) && hi_seg == lo_seg &&
         hi == lo + (bytes - 1);
}

// `pe` is a PE and [addr, addr + bytes) is symmetric memory; GPU heap memory (core/gpu_heap.hpp)
// only where gpu_ok (put and get, which copy through the driver).
inline int check_remote(Runtime& rt, const char* f, const char* arg, const void* addr, std::size_t bytes, int pe,
                        bool gpu_ok = false) noexcept {
  if (pe < 0 || pe >= rt.n_pes())
    return report(SHMEMX_ERR_INVALID_ARGUMENT, f, "pe=%d is not a PE (0..%d); skipped", pe, rt.n_pes() - 1);
  if (bytes == 0 || in_one_segment(rt, addr, bytes)) return 0;
  if (const core::GpuHeap* g = rt.gpu(); g && g->contains(addr)) {
    if (!gpu_ok)
      return report(SHMEMX_ERR_NOT_SUPPORTED, f, "%s=%p is in the GPU heap: not yet supported on GPU memory; skipped",
                    arg, addr);
    if (bytes <= g->room(addr)) return 0;
    return report(SHMEMX_ERR_INVALID_ARGUMENT, f, "%s=%p with %zu bytes crosses the end of the GPU heap; skipped", arg,
                  addr, bytes);
  }
  return report(SHMEMX_ERR_INVALID_ARGUMENT, f,
                "%s=%p (%zu bytes) is not inside symmetric memory (the heap or static data); skipped", arg, addr,
                bytes);
}

inline int check_local(const char* f, const char* arg, const void* p, std::size_t bytes) noexcept {
  if (bytes != 0 && p == nullptr)
    return report(SHMEMX_ERR_INVALID_ARGUMENT, f, "%s is NULL but covers %zu bytes; skipped", arg, bytes);
  return 0;
}

// Signal words are W: OpenSHMEM's uint64_t or Ascend SHMEM's int32_t. `api` is the prefix of the
// caller's constants ("SHMEM" or "ACLSHMEM"), for the messages; both number SET 0 and ADD 1.
template <class W>
int check_signal(Runtime& rt, const char* f, const char* api, const W* sig, int sig_op, int pe) noexcept {
  if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
    return report(SHMEMX_ERR_INVALID_ARGUMENT, f, "sig_op=%d is neither %s_SIGNAL_SET nor %s_SIGNAL_ADD; skipped",
                  sig_op, api, api);
  if (reinterpret_cast<std::uintptr_t>(sig) % alignof(W) != 0)
    return report(SHMEMX_ERR_INVALID_ARGUMENT, f, "sig_addr=%p is not %zu-byte aligned; skipped",
                  static_cast<const void*>(sig), alignof(W));
  return check_remote(rt, f, "sig_addr", sig, sizeof(W), pe);
}

// A local signal word to wait on, and the comparison (the same numbering in both APIs).
template <class W>
int check_wait(const char* f, const char* api, const W* sig, int cmp) noexcept {
  if (sig == nullptr || reinterpret_cast<std::uintptr_t>(sig) % alignof(W) != 0)
    return report(SHMEMX_ERR_INVALID_ARGUMENT, f, "sig_addr=%p is NULL or not %zu-byte aligned; skipped",
                  static_cast<const void*>(sig), alignof(W));
  if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
    return report(SHMEMX_ERR_INVALID_ARGUMENT, f, "cmp=%d is not one of %s_CMP_EQ..%s_CMP_LE; skipped", cmp, api,
                  api);
  return 0;
}

// The team behind a public handle as seen by `rt`, or nullptr after reporting.
Team* team_of(Runtime& rt, const char* f, shmem_team_t handle) noexcept;

// Collective buffers: symmetric on this PE (checked against this PE's own mapping).
inline int check_coll(Runtime& rt, const char* f, const char* arg, const void* p, std::size_t bytes) noexcept {
  return check_remote(rt, f, arg, p, bytes, rt.my_pe());
}

}  // namespace shmem::stream
