// On-stream RMA, signals, ordering and barriers: each routine checks nothing on the calling
// thread (beyond the stream handle), captures its arguments and enqueues; the work checks them
// when it runs (see checks.hpp) and calls the same core operations as the host routines.
#include <cstdint>

#include "core/ops.hpp"
#include "core/runtime.hpp"
#include "core/team_ops.hpp"
#include "stream/checks.hpp"
#include "stream/stream.hpp"

namespace shmem::stream {

Team* team_of(Runtime& rt, const char* f, shmem_team_t handle) noexcept {
  if (handle == SHMEM_TEAM_WORLD) return rt.world_team();
  if (handle == SHMEM_TEAM_SHARED) return rt.shared_team();
  if (handle == SHMEM_TEAM_INVALID) {
    report(SHMEMX_ERR_INVALID_ARGUMENT, f, "team is SHMEM_TEAM_INVALID; skipped");
    return nullptr;
  }
  return reinterpret_cast<Team*>(handle);
}

}  // namespace shmem::stream

namespace st = shmem::stream;
using shmem::Runtime;
namespace core = shmem::core;

extern "C" {

void shmemx_putmem_on_stream(void* dest, const void* source, size_t nelems, int pe, shmemx_stream_t stream) noexcept {
  const char* f = __func__;
  st::submit(stream, f, [=](Runtime& rt) -> int {
    if (const int rc = st::check_remote(rt, f, "dest", dest, nelems, pe)) return rc;
    if (const int rc = st::check_local(f, "source", source, nelems)) return rc;
    core::put(rt.default_ctx(), dest, source, nelems, pe);
    return 0;
  });
}

void shmemx_getmem_on_stream(void* dest, const void* source, size_t nelems, int pe, shmemx_stream_t stream) noexcept {
  const char* f = __func__;
  st::submit(stream, f, [=](Runtime& rt) -> int {
    if (const int rc = st::check_remote(rt, f, "source", source, nelems, pe)) return rc;
    if (const int rc = st::check_local(f, "dest", dest, nelems)) return rc;
    core::get(rt.default_ctx(), dest, source, nelems, pe);
    return 0;
  });
}

void shmemx_putmem_signal_on_stream(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,
                                    uint64_t signal, int sig_op, int pe, shmemx_stream_t stream) noexcept {
  const char* f = __func__;
  st::submit(stream, f, [=](Runtime& rt) -> int {
    if (const int rc = st::check_signal(rt, f, sig_addr, sig_op, pe)) return rc;
    if (const int rc = st::check_remote(rt, f, "dest", dest, nelems, pe)) return rc;
    if (const int rc = st::check_local(f, "source", source, nelems)) return rc;
    core::put_signal(rt.default_ctx(), dest, source, nelems, sig_addr, signal, sig_op, pe);
    return 0;
  });
}

void shmemx_signal_op_on_stream(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe,
                                shmemx_stream_t stream) noexcept {
  const char* f = __func__;
  st::submit(stream, f, [=](Runtime& rt) -> int {
    if (const int rc = st::check_signal(rt, f, sig_addr, sig_op, pe)) return rc;
    core::signal_op(rt.default_ctx(), sig_addr, signal, sig_op, pe);
    return 0;
  });
}

void shmemx_signal_wait_until_on_stream(uint64_t* sig_addr, int cmp, uint64_t cmp_value,
                                        shmemx_stream_t stream) noexcept {
  const char* f = __func__;
  st::submit(stream, f, [=](Runtime&) -> int {
    if (sig_addr == nullptr || reinterpret_cast<std::uintptr_t>(sig_addr) % alignof(uint64_t) != 0)
      return st::report(SHMEMX_ERR_INVALID_ARGUMENT, f, "sig_addr=%p is NULL or not 8-byte aligned; skipped",
                        static_cast<void*>(sig_addr));
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
      return st::report(SHMEMX_ERR_INVALID_ARGUMENT, f, "cmp=%d is not one of SHMEM_CMP_EQ..SHMEM_CMP_LE; skipped", cmp);
    core::signal_wait_until(sig_addr, cmp, cmp_value);  // with the SHMEM_WAIT_TIMEOUT watchdog
    return 0;
  });
}

void shmemx_quiet_on_stream(shmemx_stream_t stream) noexcept {
  st::submit(stream, __func__, [](Runtime& rt) -> int {
    core::quiet(rt.default_ctx());
    return 0;
  });
}

void shmemx_barrier_on_stream(shmem_team_t team, shmemx_stream_t stream) noexcept {
  const char* f = __func__;
  st::submit(stream, f, [=](Runtime& rt) -> int {
    shmem::Team* t = st::team_of(rt, f, team);
    if (t == nullptr) return SHMEMX_ERR_INVALID_ARGUMENT;
    core::quiet(rt.default_ctx());
    core::team_sync(t);
    return 0;
  });
}

void shmemx_barrier_all_on_stream(shmemx_stream_t stream) noexcept {
  shmemx_barrier_on_stream(SHMEM_TEAM_WORLD, stream);
}

void shmemx_sync_on_stream(shmem_team_t team, shmemx_stream_t stream) noexcept {
  const char* f = __func__;
  st::submit(stream, f, [=](Runtime& rt) -> int {
    shmem::Team* t = st::team_of(rt, f, team);
    if (t == nullptr) return SHMEMX_ERR_INVALID_ARGUMENT;
    core::team_sync(t);
    return 0;
  });
}

}  // extern "C"
