// On-stream operations on GPU memory as kernels on the wrapped CUDA stream (cuda_ops.hpp).
#include "stream/cuda_ops.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "core/gpu_heap.hpp"
#include "core/runtime.hpp"
#include "core/team.hpp"
#include "stream/checks.hpp"
#include "stream/ops.hpp"
#include "stream/stream.hpp"

namespace shmem::stream {
namespace {

// The stream and GPU heap of an operation for this path, or nothing: the stream must wrap a CUDA
// stream and `addr` lie in the GPU heap.
struct Path {
  Stream* stream = nullptr;
  Runtime* rt = nullptr;
  core::GpuHeap* gpu = nullptr;
};
Path path_for(shmemx_stream_t handle, const char* f, const void* addr) noexcept {
  if (handle == SHMEMX_STREAM_DEFAULT) return {};
  Stream& s = resolve(handle, f);
  if (!s.is_cuda()) return {};
  Runtime* rt = current_runtime();
  core::GpuHeap* g = rt ? rt->gpu() : nullptr;
  if (g == nullptr || !g->contains(addr)) return {};
  return {&s, rt, g};
}

// Records and reports an error of this path; true (the operation was handled).
bool fail(Stream& s, int code, const char* f, const char* what, const std::string& detail = {}) noexcept {
  report(code, f, "%s%s%s; skipped", what, detail.empty() ? "" : ": ", detail.c_str());
  s.record(code);
  return true;
}

// Checks that [addr, addr + bytes) lies in the GPU heap.
bool in_heap(const core::GpuHeap& g, const void* addr, std::size_t bytes) noexcept {
  return bytes == 0 || (g.contains(addr) && bytes <= g.room(addr));
}

// A local buffer the stream's kernel reads or writes at its address: GPU heap memory, or memory a
// kernel can reach (device memory of this device, or of another one with peer access that maps it
// for this one; managed, pinned or registered host memory; any host memory where the device reads
// pageable memory). Plain pageable host memory would fault in the kernel (and end the CUDA
// context), and so would another device's memory this one cannot reach: reported here, naming the
// routine, the argument and why. False: reported.
bool kernel_readable(const Path& p, const char* f, const char* arg, const void* buf, std::size_t bytes) noexcept {
  if (bytes == 0 || in_heap(*p.gpu, buf, bytes)) return true;
  char what[512];
  if (buf == nullptr) {
    std::snprintf(what, sizeof what, "%s is NULL but covers %zu bytes", arg, bytes);
    return !fail(*p.stream, SHMEMX_ERR_INVALID_ARGUMENT, f, what);
  }
  int access = SHMEM_CUDA_ACCESS_PAGEABLE, device = -1;
  std::string error;
  if (!p.gpu->kernel_access(buf, &access, &device, &error)) {
    std::snprintf(what, sizeof what, "cannot tell whether the kernel can read %s=%p", arg, buf);
    return !fail(*p.stream, SHMEMX_ERR_INTERNAL, f, what, error);
  }
  const int mine = p.gpu->state().device;
  switch (access) {
    case SHMEM_CUDA_ACCESS_OK: return true;
    case SHMEM_CUDA_ACCESS_NO_PEER:
      std::snprintf(what, sizeof what,
                    "%s=%p is memory of CUDA device %d, which a kernel on the CUDA stream (device %d) cannot read: "
                    "the two devices have no peer access (cuDeviceCanAccessPeer = 0; use memory of device %d, or "
                    "host memory pinned or registered with CUDA)",
                    arg, buf, device, mine, mine);
      break;
    case SHMEM_CUDA_ACCESS_NOT_MAPPED:
      std::snprintf(what, sizeof what,
                    "%s=%p is memory of CUDA device %d, which a kernel on the CUDA stream (device %d) cannot read: "
                    "it is not mapped for device %d (enable peer access to device %d on device %d: "
                    "cudaDeviceEnablePeerAccess or cuCtxEnablePeerAccess; for cuMem memory grant device %d access "
                    "with cuMemSetAccess)",
                    arg, buf, device, mine, mine, device, mine, mine);
      break;
    default:
      std::snprintf(what, sizeof what,
                    "%s=%p is pageable host memory, which a kernel on the CUDA stream cannot read (use GPU memory, "
                    "or host memory pinned or registered with CUDA)",
                    arg, buf);
  }
  return !fail(*p.stream, SHMEMX_ERR_INVALID_ARGUMENT, f, what);
}

// Enqueues op after the stream's library-thread work (kept in order with this path's work);
// false when the CUDA stream refused it (reported and recorded).
bool enqueued(const Path& p, const char* f, const shmem_cuda_stream_op& op) noexcept {
  p.stream->wait_idle();
  std::string error;
  if (p.gpu->stream_op(p.stream->cuda_stream(), op, &error)) return true;
  fail(*p.stream, SHMEMX_ERR_INTERNAL, f, "the CUDA stream refused the work", error);
  return false;
}
// The same for an operation that ends with it: true (handled) either way.
bool enqueue(const Path& p, const char* f, const shmem_cuda_stream_op& op) noexcept {
  enqueued(p, f, op);
  return true;
}

bool team_fields(const Path& p, const char* f, shmem_team_t team, shmem_cuda_stream_op* op) noexcept {
  Team* t = team_of(*p.rt, f, team);
  if (t == nullptr) {
    p.stream->record(SHMEMX_ERR_INVALID_ARGUMENT);
    return false;
  }
  op->team_n = static_cast<int>(t->world_pes().size());
  op->team_me = t->my_pe();
  op->team_slot = t->slot();
  if (op->team_me < 0) {
    fail(*p.stream, SHMEMX_ERR_INVALID_ARGUMENT, f, "this PE is not a member of the team");
    return false;
  }
  bool world = op->team_n == p.rt->n_pes();
  for (int i = 0; world && i < op->team_n; ++i) world = t->world_pes()[static_cast<std::size_t>(i)] == i;
  if (world) return true;  // team_members NULL: the identity
  std::string error;
  op->team_members = p.gpu->team_members(t->world_pes(), &error);
  if (op->team_members == nullptr) {
    fail(*p.stream, SHMEMX_ERR_OUT_OF_MEMORY, f, "cannot copy the team's members to the GPU", error);
    return false;
  }
  return true;
}

}  // namespace

bool gpu_signal(const char* f, std::uint64_t* sig, std::uint64_t value, int sig_op, int pe,
                shmemx_stream_t s) noexcept {
  const Path p = path_for(s, f, sig);
  if (!p.stream) return false;
  if (pe < 0 || pe >= p.rt->n_pes()) return fail(*p.stream, SHMEMX_ERR_INVALID_ARGUMENT, f, "pe is not a PE");
  if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
    return fail(*p.stream, SHMEMX_ERR_INVALID_ARGUMENT, f, "sig_op is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD");
  if (!in_heap(*p.gpu, sig, sizeof *sig))
    return fail(*p.stream, SHMEMX_ERR_INVALID_ARGUMENT, f, "sig_addr crosses the end of the GPU heap");
  shmem_cuda_stream_op op{};
  op.kind = SHMEM_CUDA_STREAM_SIGNAL;
  op.sig = sig;
  op.value = value;
  op.sig_op = sig_op;
  op.pe = pe;
  return enqueue(p, f, op);
}

bool gpu_put_signal(const char* f, void* dest, const void* source, std::size_t bytes, std::uint64_t* sig,
                    std::uint64_t value, int sig_op, int pe, shmemx_stream_t s) noexcept {
  const Path p = path_for(s, f, sig);
  if (!p.stream) return false;
  if (!in_heap(*p.gpu, dest, bytes))
    return fail(*p.stream, SHMEMX_ERR_INVALID_ARGUMENT, f, "dest is not (wholly) in the GPU heap, as sig_addr is");
  if (pe < 0 || pe >= p.rt->n_pes()) return fail(*p.stream, SHMEMX_ERR_INVALID_ARGUMENT, f, "pe is not a PE");
  if (!kernel_readable(p, f, "source", source, bytes)) return true;
  shmem_cuda_stream_op op{};
  op.kind = SHMEM_CUDA_STREAM_PUT;
  op.dest = dest;
  op.source = source;
  op.bytes = bytes;
  op.pe = pe;
  if (!enqueued(p, f, op)) return true;             // no signal for data that will not arrive
  return gpu_signal(f, sig, value, sig_op, pe, s);  // the signal kernel fences first: data before signal
}

bool gpu_wait(const char* f, std::uint64_t* sig, int cmp, std::uint64_t value, shmemx_stream_t s) noexcept {
  const Path p = path_for(s, f, sig);
  if (!p.stream) return false;
  if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
    return fail(*p.stream, SHMEMX_ERR_INVALID_ARGUMENT, f, "cmp is not one of SHMEM_CMP_EQ..SHMEM_CMP_LE");
  // The kernel's acquire loads need an aligned word (a misaligned one is an exception that
  // ends the CUDA context, not a report).
  if (reinterpret_cast<std::uintptr_t>(sig) % alignof(std::uint64_t) != 0 || !in_heap(*p.gpu, sig, sizeof *sig))
    return fail(*p.stream, SHMEMX_ERR_INVALID_ARGUMENT, f,
                "sig_addr is not 8-byte aligned or crosses the end of the GPU heap");
  shmem_cuda_stream_op op{};
  op.kind = SHMEM_CUDA_STREAM_WAIT;
  op.sig = sig;
  op.cmp = cmp;
  op.value = value;
  return enqueue(p, f, op);
}

bool gpu_barrier(const char* f, shmem_team_t team, shmemx_stream_t s) noexcept {
  Runtime* rt = current_runtime();
  core::GpuHeap* g = rt ? rt->gpu() : nullptr;
  const Path p = g ? path_for(s, f, g->state().my_heap) : Path{};
  if (!p.stream) return false;
  shmem_cuda_stream_op op{};
  if (!team_fields(p, f, team, &op)) return true;
  op.kind = SHMEM_CUDA_STREAM_BARRIER;
  return enqueue(p, f, op);
}

bool gpu_gather(const char* f, GpuGather kind, shmem_team_t team, void* dest, const void* source, std::size_t bytes,
                int root, shmemx_stream_t s) noexcept {
  const Path p = path_for(s, f, dest);
  if (!p.stream) return false;
  shmem_cuda_stream_op op{};
  if (!team_fields(p, f, team, &op)) return true;
  const std::size_t n = static_cast<std::size_t>(op.team_n);
  std::size_t all = 0;
  if (kind != GpuGather::kBroadcast && __builtin_mul_overflow(bytes, n, &all))
    return fail(*p.stream, SHMEMX_ERR_INVALID_ARGUMENT, f, "nelems is too large: the buffer size overflows size_t");
  const std::size_t dest_bytes = kind == GpuGather::kBroadcast ? bytes : all;
  const std::size_t src_bytes = kind == GpuGather::kAlltoall ? all : bytes;
  if (kind == GpuGather::kBroadcast && (root < 0 || root >= op.team_n))
    return fail(*p.stream, SHMEMX_ERR_INVALID_ARGUMENT, f, "PE_root is not a PE of the team");
  if (!in_heap(*p.gpu, dest, dest_bytes) || !in_heap(*p.gpu, source, src_bytes))
    return fail(*p.stream, SHMEMX_ERR_INVALID_ARGUMENT, f,
                "dest and source must both lie wholly in the GPU heap on a CUDA stream");
  // No overlap check, as on the library thread and the host (api/team_shim.hpp): OpenSHMEM leaves
  // overlapping arguments undefined; only reductions may run in place, which gpu_reduce checks
  // with the CPU paths' error.
  op.kind = kind == GpuGather::kBroadcast  ? SHMEM_CUDA_STREAM_BROADCAST
            : kind == GpuGather::kFcollect ? SHMEM_CUDA_STREAM_FCOLLECT
                                           : SHMEM_CUDA_STREAM_ALLTOALL;
  op.dest = dest;
  op.source = source;
  op.bytes = bytes;
  op.root = root;
  return enqueue(p, f, op);
}

bool gpu_reduce(const char* f, shmem_team_t team, void* dest, const void* source, std::size_t count, int elem,
                int op_id, shmemx_stream_t s) noexcept {
  const Path p = path_for(s, f, dest);
  if (!p.stream) return false;
  if (elem < 0) return fail(*p.stream, SHMEMX_ERR_NOT_SUPPORTED, f, "this type is not reduced on GPU memory yet");
  shmem_cuda_stream_op op{};
  if (!team_fields(p, f, team, &op)) return true;
  static constexpr std::size_t kSize[] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8};
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(count, kSize[elem], &bytes))
    return fail(*p.stream, SHMEMX_ERR_INVALID_ARGUMENT, f, "nreduce is too large: the buffer size overflows size_t");
  if (!in_heap(*p.gpu, dest, bytes) || !in_heap(*p.gpu, source, bytes))
    return fail(*p.stream, SHMEMX_ERR_INVALID_ARGUMENT, f,
                "dest and source must both lie wholly in the GPU heap on a CUDA stream");
  const auto d = reinterpret_cast<std::uintptr_t>(dest), sr = reinterpret_cast<std::uintptr_t>(source);
  if (bytes != 0 && d != sr && d < sr + bytes && sr < d + bytes)
    return fail(*p.stream, SHMEMX_ERR_INVALID_ARGUMENT, f, "dest and source overlap partially");
  op.kind = SHMEM_CUDA_STREAM_REDUCE;
  op.dest = dest;
  op.source = source;
  op.count = count;
  op.elem = elem;
  op.op = op_id;
  return enqueue(p, f, op);
}

}  // namespace shmem::stream
