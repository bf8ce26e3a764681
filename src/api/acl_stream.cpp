// Ascend SHMEM's stream-ordered host calls of aclshmem.h: aclshmemx_putmem_on_stream,
// aclshmemx_getmem_on_stream, aclshmemx_signal_op_on_stream, aclshmemx_signal_wait_until_on_stream
// (int32 signal words), aclshmemx_quiet_on_stream, aclshmemx_barrier_on_stream,
// aclshmemx_barrier_all_on_stream and aclshmemx_handle_wait. They enqueue the stream engine's
// operations (stream/ops.hpp), the same as shmemx.h's *_on_stream routines.
//
// An aclrtStream is a shmemx_stream_t (NULL: the library's default stream). A team handle is
// resolved to its core team when the call is made, in the instance current then; an invalid one
// becomes a failing stream item, so that the stream reports it in order (logged, skipped, and
// returned by the next shmemx_stream_synchronize), like every other error inside a stream.
#include "api/acl_shim.hpp"
#include "api/team_shim.hpp"
#include "stream/ops.hpp"
#include "stream/stream.hpp"

namespace acl = shmem::acl;
namespace api = shmem::api;
namespace core = shmem::core;
namespace st = shmem::stream;

static_assert(ACLSHMEM_SIGNAL_SET == SHMEM_SIGNAL_SET && ACLSHMEM_SIGNAL_ADD == SHMEM_SIGNAL_ADD);

namespace {

shmemx_stream_t stream_of(aclrtStream stream) noexcept { return static_cast<shmemx_stream_t>(stream); }

// quiet + team sync on the stream; an invalid team is reported by the stream when its turn comes.
void barrier(const char* f, aclshmem_team_t team, aclrtStream stream) noexcept {
  if (shmem::Team* t = acl::team_of(team)) {
    st::barrier(f, api::handle_of(t), stream_of(stream));
    return;
  }
  st::submit(stream_of(stream), f, [f, team](shmem::Runtime&) -> int {
    return st::report(SHMEMX_ERR_INVALID_ARGUMENT, f, "team %d is not a valid team of this PE; skipped", team);
  });
}

}  // namespace

extern "C" {

void aclshmemx_putmem_on_stream(void* dst, void* src, size_t elem_size, int32_t pe, aclrtStream stream) noexcept {
  st::putmem(__func__, dst, src, elem_size, pe, stream_of(stream));
}

void aclshmemx_getmem_on_stream(void* dst, void* src, size_t elem_size, int32_t pe, aclrtStream stream) noexcept {
  st::getmem(__func__, dst, src, elem_size, pe, stream_of(stream));
}

void aclshmemx_signal_op_on_stream(int32_t* sig_addr, int32_t signal, int sig_op, int pe,
                                   aclrtStream stream) noexcept {
  st::signal_op(__func__, sig_addr, signal, sig_op, pe, stream_of(stream));
}

void aclshmemx_signal_wait_until_on_stream(int32_t* sig_addr, int cmp, int32_t cmp_val, aclrtStream stream) noexcept {
  st::signal_wait_until(__func__, sig_addr, cmp, cmp_val, stream_of(stream));
}

void aclshmemx_quiet_on_stream(aclrtStream stream) noexcept { st::quiet(__func__, stream_of(stream)); }

void aclshmemx_barrier_on_stream(aclshmem_team_t team, aclrtStream stream) noexcept {
  barrier(__func__, team, stream);
}

void aclshmemx_barrier_all_on_stream(aclrtStream stream) noexcept {
  barrier(__func__, ACLSHMEM_TEAM_WORLD, stream);
}

// Ascend SHMEM's RDMA completion (per-peer quiet + barrier over the team) is, on this platform's
// transfers, the team barrier on the stream: every earlier operation of every member complete.
// Unlike the void routines it can refuse a bad team at once, with a return code.
int32_t aclshmemx_handle_wait(aclshmem_handle_t handle, aclrtStream stream) noexcept {
  const char* f = __func__;
  shmem::Team* t = acl::team_arg(f, handle.team_id);
  if (t == nullptr) return core::initialized() ? ACLSHMEM_INVALID_PARAM : ACLSHMEM_NOT_INITED;
  st::barrier(f, api::handle_of(t), stream_of(stream));
  return ACLSHMEM_SUCCESS;
}

}  // extern "C"
