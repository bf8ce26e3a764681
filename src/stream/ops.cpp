// On-stream RMA, signals, ordering and barriers (stream/ops.hpp) and shmemx.h's routines for
// them. Each operation checks nothing on the calling thread (beyond the stream handle), captures
// its arguments and enqueues; the work checks them when it runs (see checks.hpp) and calls the
// same core operations as the host routines. aclshmem.h's forms (src/api/acl_stream.cpp) call
// the same operations, with Ascend SHMEM's int32 signal words.
#include "stream/ops.hpp"

#include <cstdint>
#include <type_traits>

#include "core/ops.hpp"
#include "core/runtime.hpp"
#include "core/team_ops.hpp"
#include "stream/checks.hpp"
#include "stream/cuda_ops.hpp"
#include "stream/stream.hpp"

namespace shmem::stream {

Team* team_of(Runtime& rt, const char* f, shmem_team_t handle) noexcept {
  if (handle == SHMEM_TEAM_INVALID) {
    report(SHMEMX_ERR_INVALID_ARGUMENT, f, "team is SHMEM_TEAM_INVALID; skipped");
    return nullptr;
  }
  Team* t = core::team_in(rt, reinterpret_cast<std::uintptr_t>(handle));
  if (t == nullptr)
    report(SHMEMX_ERR_INVALID_ARGUMENT, f,
           "team is not a team of this PE (destroyed with shmem_team_destroy?); skipped");
  return t;
}

namespace {

// What differs between the two kinds of signal word: the core operations and the prefix of the
// constants that messages name.
template <class W>
struct SignalWord;

template <>
struct SignalWord<std::uint64_t> {
  static constexpr const char* kApi = "SHMEM";
  static void update(Ctx* ctx, std::uint64_t* sig, std::uint64_t signal, int sig_op, int pe) noexcept {
    core::signal_op(ctx, sig, signal, sig_op, pe);
  }
  static void wait(std::uint64_t* sig, int cmp, std::uint64_t value) noexcept {
    core::signal_wait_until(sig, cmp, value);  // with the SHMEM_WAIT_TIMEOUT watchdog
  }
};

template <>
struct SignalWord<std::int32_t> {  // Ascend SHMEM's (aclshmem.h) signals
  static constexpr const char* kApi = "ACLSHMEM";
  static void update(Ctx* ctx, std::int32_t* sig, std::int32_t signal, int sig_op, int pe) noexcept {
    const core::AmoOp op = sig_op == SHMEM_SIGNAL_ADD ? core::AmoOp::kAdd : core::AmoOp::kSet;
    core::amo32(ctx, op, sig, static_cast<std::uint32_t>(signal), 0, pe);
  }
  static void wait(std::int32_t* sig, int cmp, std::int32_t value) noexcept {
    // Sign-extended, as the core compares kI32 words with the widened value.
    core::wait_until(core::WaitKind::kI32, sig, cmp, static_cast<std::uint64_t>(static_cast<std::int64_t>(value)));
  }
};

template <class W>
void signal_op_on(const char* f, W* sig_addr, W signal, int sig_op, int pe, shmemx_stream_t s) noexcept {
  if constexpr (std::is_same_v<W, std::uint64_t>)
    if (gpu_signal(f, sig_addr, signal, sig_op, pe, s)) return;  // GPU memory on a CUDA stream
  submit(s, f, [=](Runtime& rt) -> int {
    if (const int rc = check_signal(rt, f, SignalWord<W>::kApi, sig_addr, sig_op, pe)) return rc;
    SignalWord<W>::update(rt.default_ctx(), sig_addr, signal, sig_op, pe);
    return 0;
  });
}

template <class W>
void signal_wait_on(const char* f, W* sig_addr, int cmp, W cmp_value, shmemx_stream_t s) noexcept {
  if constexpr (std::is_same_v<W, std::uint64_t>)
    if (gpu_wait(f, sig_addr, cmp, cmp_value, s)) return;  // GPU memory on a CUDA stream
  submit(s, f, [=](Runtime&) -> int {
    if (const int rc = check_wait(f, SignalWord<W>::kApi, sig_addr, cmp)) return rc;
    SignalWord<W>::wait(sig_addr, cmp, cmp_value);
    return 0;
  });
}

}  // namespace

void putmem(const char* f, void* dest, const void* source, std::size_t bytes, int pe, shmemx_stream_t s) noexcept {
  submit(s, f, [=](Runtime& rt) -> int {
    if (const int rc = check_remote(rt, f, "dest", dest, bytes, pe, true)) return rc;
    if (const int rc = check_local(f, "source", source, bytes)) return rc;
    core::put(rt.default_ctx(), dest, source, bytes, pe);
    return 0;
  });
}

void getmem(const char* f, void* dest, const void* source, std::size_t bytes, int pe, shmemx_stream_t s) noexcept {
  submit(s, f, [=](Runtime& rt) -> int {
    if (const int rc = check_remote(rt, f, "source", source, bytes, pe, true)) return rc;
    if (const int rc = check_local(f, "dest", dest, bytes)) return rc;
    core::get(rt.default_ctx(), dest, source, bytes, pe);
    return 0;
  });
}

void signal_op(const char* f, std::uint64_t* sig_addr, std::uint64_t signal, int sig_op, int pe,
               shmemx_stream_t s) noexcept {
  signal_op_on(f, sig_addr, signal, sig_op, pe, s);
}
void signal_op(const char* f, std::int32_t* sig_addr, std::int32_t signal, int sig_op, int pe,
               shmemx_stream_t s) noexcept {
  signal_op_on(f, sig_addr, signal, sig_op, pe, s);
}
void signal_wait_until(const char* f, std::uint64_t* sig_addr, int cmp, std::uint64_t cmp_value,
                       shmemx_stream_t s) noexcept {
  signal_wait_on(f, sig_addr, cmp, cmp_value, s);
}
void signal_wait_until(const char* f, std::int32_t* sig_addr, int cmp, std::int32_t cmp_value,
                       shmemx_stream_t s) noexcept {
  signal_wait_on(f, sig_addr, cmp, cmp_value, s);
}

void quiet(const char* f, shmemx_stream_t s) noexcept {
  submit(s, f, [](Runtime& rt) -> int {
    core::quiet(rt.default_ctx());
    return 0;
  });
}

void barrier(const char* f, shmem_team_t team, shmemx_stream_t s) noexcept {
  if (gpu_barrier(f, team, s)) return;  // a CUDA stream with a GPU heap: the device barrier, in its order
  submit(s, f, [=](Runtime& rt) -> int {
    Team* t = team_of(rt, f, team);
    if (t == nullptr) return SHMEMX_ERR_INVALID_ARGUMENT;
    core::quiet(rt.default_ctx());
    core::team_sync(t);
    return 0;
  });
}

}  // namespace shmem::stream

namespace st = shmem::stream;
using shmem::Runtime;
namespace core = shmem::core;

extern "C" {

void shmemx_putmem_on_stream(void* dest, const void* source, size_t nelems, int pe, shmemx_stream_t stream) noexcept {
  st::putmem(__func__, dest, source, nelems, pe, stream);
}

void shmemx_getmem_on_stream(void* dest, const void* source, size_t nelems, int pe, shmemx_stream_t stream) noexcept {
  st::getmem(__func__, dest, source, nelems, pe, stream);
}

void shmemx_putmem_signal_on_stream(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,
                                    uint64_t signal, int sig_op, int pe, shmemx_stream_t stream) noexcept {
  const char* f = __func__;
  if (st::gpu_put_signal(f, dest, source, nelems, sig_addr, signal, sig_op, pe, stream)) return;
  st::submit(stream, f, [=](Runtime& rt) -> int {
    if (const int rc = st::check_signal(rt, f, "SHMEM", sig_addr, sig_op, pe)) return rc;
    if (const int rc = st::check_remote(rt, f, "dest", dest, nelems, pe)) return rc;
    if (const int rc = st::check_local(f, "source", source, nelems)) return rc;
    core::put_signal(rt.default_ctx(), dest, source, nelems, sig_addr, signal, sig_op, pe);
    return 0;
  });
}

void shmemx_signal_op_on_stream(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe,
                                shmemx_stream_t stream) noexcept {
  st::signal_op(__func__, sig_addr, signal, sig_op, pe, stream);
}

void shmemx_signal_wait_until_on_stream(uint64_t* sig_addr, int cmp, uint64_t cmp_value,
                                        shmemx_stream_t stream) noexcept {
  st::signal_wait_until(__func__, sig_addr, cmp, cmp_value, stream);
}

void shmemx_quiet_on_stream(shmemx_stream_t stream) noexcept { st::quiet(__func__, stream); }

void shmemx_barrier_on_stream(shmem_team_t team, shmemx_stream_t stream) noexcept {
  st::barrier(__func__, team, stream);
}

void shmemx_barrier_all_on_stream(shmemx_stream_t stream) noexcept {
  st::barrier(__func__, SHMEM_TEAM_WORLD, stream);
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
