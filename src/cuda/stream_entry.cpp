// shmem_cuda_stream_op -> the kernels of stream_ops.hpp.
#include "cuda/stream_entry.hpp"

#include "cuda/stream_ops.hpp"

namespace shmem::cuda {

bool stream_op(void* stream, const shmem_cuda_stream_op& op, std::string* error) {
  auto* s = static_cast<cudaStream_t>(stream);
  StreamTeam t;
  t.n = op.team_n;
  t.me = op.team_me;
  t.slot = op.team_slot;
  t.members = op.team_members;
  int rc = 0;
  switch (op.kind) {
    case SHMEM_CUDA_STREAM_PUT: rc = put(s, op.dest, op.source, op.bytes, op.pe); break;
    case SHMEM_CUDA_STREAM_GET: rc = get(s, op.dest, op.source, op.bytes, op.pe); break;
    case SHMEM_CUDA_STREAM_SIGNAL: rc = signal(s, op.sig, op.value, op.sig_op, op.pe); break;
    case SHMEM_CUDA_STREAM_WAIT: rc = wait(s, op.sig, op.cmp, op.value); break;
    case SHMEM_CUDA_STREAM_BARRIER: rc = barrier(s, t); break;
    case SHMEM_CUDA_STREAM_BROADCAST: rc = broadcast(s, t, op.dest, op.source, op.bytes, op.root); break;
    case SHMEM_CUDA_STREAM_FCOLLECT: rc = fcollect(s, t, op.dest, op.source, op.bytes); break;
    case SHMEM_CUDA_STREAM_ALLTOALL: rc = alltoall(s, t, op.dest, op.source, op.bytes); break;
    case SHMEM_CUDA_STREAM_REDUCE:
      rc = reduce(s, t, op.dest, op.source, op.count, static_cast<Elem>(op.elem), static_cast<RedOp>(op.op));
      break;
    default: *error = "stream_op: unknown operation " + std::to_string(op.kind); return false;
  }
  if (rc == 0) return true;
  *error = std::string("enqueueing on the CUDA stream: ") + cudaGetErrorName(static_cast<cudaError_t>(rc)) + ": " +
           cudaGetErrorString(static_cast<cudaError_t>(rc));
  return false;
}

}  // namespace shmem::cuda
