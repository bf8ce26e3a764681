// Streams that wrap a CUDA stream (shmemx_stream_create_cuda): synchronising one waits for the
// CUDA stream through the CUDA plugin and returns the first error a kernel of this PE reported
// in the GPU status record (shmem/device/cuda/state.hpp), logged in full.
#include <shmemx.h>

#include <string>

#include "base/log.hpp"
#include "core/gpu_heap.hpp"
#include "core/ops.hpp"
#include "core/runtime.hpp"
#include "stream/stream.hpp"

namespace shmem::stream {
namespace {

namespace dc = device::cuda;

const char* kind_name(std::uint32_t code) {
  switch (code) {
    case dc::kGpuErrBadPe: return "PE out of range";
    case dc::kGpuErrNotSymmetric: return "address not in the GPU heap";
    case dc::kGpuErrFarPe: return "PE on another host (not reachable from a kernel)";
    case dc::kGpuErrTimeout: return "wait exceeded SHMEM_WAIT_TIMEOUT";
    case dc::kGpuErrBadArgument: return "bad argument";
    case dc::kGpuErrNotInitialized: return "device API used without a GPU heap";
  }
  return "unknown device error";
}

int code_of(std::uint32_t kind) {
  switch (kind) {
    case dc::kGpuErrTimeout: return SHMEMX_ERR_INTERNAL;
    case dc::kGpuErrNotInitialized: return SHMEMX_ERR_NOT_INITIALIZED;
    default: return SHMEMX_ERR_INVALID_ARGUMENT;
  }
}

// The status record's first error (0 when none, or when it was returned before), logged; the
// record is taken safely while other kernels of this PE may still write it (GpuHeap::take_status).
// context_lost: no kernel of this PE runs any more, so none completes a record it claimed.
int collect_status(const core::GpuHeap& g, const char* func, bool context_lost) {
  const core::GpuHeap::TakenStatus t = g.take_status(context_lost);
  const dc::GpuStatus& s = t.record;
  const std::uint32_t kind = s.code;
  if (kind == dc::kGpuErrNone) return 0;
  if (!t.complete) {
    if (!t.repeat)
      SHMEM_ERROR(
          "cuda", "%s: a kernel of PE %d reported an error (%s) but %s", func, g.state().my_pe, kind_name(kind),
          t.abandoned ? "ended with the CUDA context before completing its record" : "did not complete its record");
  } else {
    SHMEM_ERROR("cuda",
                "%s: %s%s in a kernel of PE %d (block %u, thread %u): %s; target pe %d, address 0x%llx (%llu "
                "bytes), expected %llu, seen %llu, cmp %d",
                func, t.repeat ? "(returned before, now complete) " : "", s.routine, s.pe, s.block, s.thread,
                kind_name(kind), s.target_pe, static_cast<unsigned long long>(s.addr),
                static_cast<unsigned long long>(s.bytes), static_cast<unsigned long long>(s.expected),
                static_cast<unsigned long long>(s.seen), s.cmp);
  }
  return t.repeat ? 0 : code_of(kind);
}

}  // namespace

int cuda_synchronize(void* cuda_stream, const char* func) noexcept {
  Runtime* r = current_runtime();
  const core::GpuHeap* g = r ? r->gpu() : nullptr;
  if (!g) return report(SHMEMX_ERR_NOT_INITIALIZED, func, "a CUDA stream needs the GPU heap, which is gone");
  std::string error;
  bool lost = false;
  const bool synced = g->stream_sync(cuda_stream, &error, &lost);
  const int status = collect_status(*g, func, lost);
  if (!synced) {
    SHMEM_ERROR("cuda", "%s: %s%s", func, error.c_str(),
                lost ? " (the CUDA context is lost: no kernel of this PE runs any more)" : "");
    return status != 0 ? status : SHMEMX_ERR_INTERNAL;
  }
  return status;
}

}  // namespace shmem::stream

extern "C" {

int shmemx_stream_create_cuda(shmemx_stream_t* stream, void* cuda_stream) noexcept {
  shmem::Runtime& r = shmem::core::rt(__func__);
  if (!r.gpu()) {
    SHMEM_ERROR("stream",
                "%s: there is no GPU heap yet (the first shmemx_cuda_malloc creates it): a CUDA stream "
                "needs the CUDA backend's context",
                __func__);
    return SHMEMX_ERR_NOT_SUPPORTED;
  }
  return shmem::stream::create_cuda(stream, cuda_stream);
}

void* shmemx_stream_cuda_handle(shmemx_stream_t stream) noexcept {
  if (stream == SHMEMX_STREAM_DEFAULT) return nullptr;
  return shmem::stream::resolve(stream, __func__).cuda_stream();
}

}  // extern "C"
