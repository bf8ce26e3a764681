// Stream-ordered operations on a CUDA stream (stream_ops.hpp): small kernels over the device API.
#include "cuda/stream_ops.hpp"

#include <shmem/device/device.hpp>

#include <type_traits>

namespace dev = shmem::device;

namespace shmem::cuda {
namespace {

namespace det = dev::cuda::detail;
static_assert(kStreamSlotBase >= dev::cuda::kGpuTeamCells && kStreamSlotBase + kStreamSlots <= dev::cuda::kGpuSyncSlots,
              "the stream cells lie after the kernels' barrier cells, inside the sync area");

// The name a wait past SHMEM_WAIT_TIMEOUT or a bad address reports (kernels take the enum: a
// host pointer to the text would not be readable on the device).
enum class Routine : int { kBarrier, kCollective, kReduce };
__device__ const char* name(Routine r) {
  switch (r) {
    case Routine::kBarrier: return "shmemx_barrier_on_stream (CUDA)";
    case Routine::kCollective: return "shmem stream collective (CUDA)";
    default: return "shmemx_reduce_on_stream (CUDA)";
  }
}

// The slice [lo, hi) of `bytes` that block `b` of the grid moves (16-byte aligned slices).
struct Span {
  std::size_t lo, hi;
};
__device__ Span block_span(const dev::Block& b, std::size_t bytes) {
  std::size_t chunk = (bytes + b.grid - 1) / b.grid;
  chunk = (chunk + 15) & ~std::size_t{15};
  const std::size_t lo = ::min(bytes, chunk * static_cast<std::size_t>(b.block_id));
  return {lo, ::min(bytes, lo + chunk)};
}

__global__ void __launch_bounds__(kThreads, 2) k_put(char* dest, const char* source, std::size_t bytes, int pe) {
  const dev::Block b = dev::this_block();
  const Span s = block_span(b, bytes);
  dev::putmem_block(b, dest + s.lo, source + s.lo, s.hi - s.lo, pe);
}
__global__ void __launch_bounds__(kThreads, 2) k_get(char* dest, const char* source, std::size_t bytes, int pe) {
  const dev::Block b = dev::this_block();
  const Span s = block_span(b, bytes);
  dev::getmem_block(b, dest + s.lo, source + s.lo, s.hi - s.lo, pe);
}
// The earlier kernels of the stream wrote the data; the fence makes it visible to every process
// before the signal (which is itself a release).
__global__ void k_signal(std::uint64_t* sig, std::uint64_t value, int sig_op, int pe) {
  dev::quiet();
  dev::signal_op(sig, value, sig_op, pe);
}
__global__ void k_wait(std::uint64_t* sig, int cmp, std::uint64_t value) { dev::wait_until(sig, cmp, value); }

// ---- barriers --------------------------------------------------------------------------------------
// One thread's pass through the team's stream barrier: everything this thread saw or did before
// it is visible to every member before any member leaves.
__device__ void team_barrier(const StreamTeam& t, const char* routine) {
  dev::quiet();
  det::team_sync_on(routine, stream_cell(t), t.members, t.me, t.n);
}
__global__ void k_barrier(StreamTeam t, Routine r) { team_barrier(t, name(r)); }

// The opening barrier of a one-block launch (a grid's ran before it, as k_barrier).
__device__ void open_launch(const StreamTeam& t, bool fused, const char* routine) {
  if (!fused) return;
  if (threadIdx.x == 0) team_barrier(t, routine);
  __syncthreads();
}
// A barrier between two phases of a one-block launch.
__device__ void block_barrier(const StreamTeam& t, const char* routine) {
  __syncthreads();
  if (threadIdx.x == 0) team_barrier(t, routine);
  __syncthreads();
}
// The closing barrier, once every thread of the launch is through: in a one-block launch thread 0
// passes it; in a grid every block counts itself in the stream cell's blocks_done word and the
// last one passes it (and sets the word back to 0 for the next launch; kernels of one stream run
// one after another, and a team's stream operations run on one stream at a time). Only that
// block waits, so grids of several PEs on one GPU never wait for each other's blocks.
__device__ void close_launch(const StreamTeam& t, bool fused, const char* routine) {
  __syncthreads();
  if (threadIdx.x != 0) return;
  if (!fused) {
    det::fence_system();  // this block's loads and stores, before it counts itself
    if (det::SyncCell* c = det::sync_cell(det::state().my_pe, stream_cell(t))) {
      det::SysRef<std::uint64_t> done(c->blocks_done);
      if (done.fetch_add(1, det::kRelaxed) + 1 < gridDim.x) return;
      done.store(0, det::kRelaxed);
    }  // else: team_barrier reports the missing cell
  }
  team_barrier(t, routine);  // its fence orders the other blocks' counts before its release
}

__device__ unsigned grid_rank() { return blockIdx.x * blockDim.x + threadIdx.x; }
__device__ unsigned grid_step() { return gridDim.x * blockDim.x; }

// ---- broadcast, fcollect, alltoall: pulls -----------------------------------------------------------
// Copies `bytes` from symmetric `source` on world PE `pe` to local `dest` with every thread of the
// grid (`rank` of `step`).
__device__ void pull(char* dest, const char* source, std::size_t bytes, int pe, unsigned rank, unsigned step) {
  det::rma<false>(name(Routine::kCollective), dest, source, bytes, pe, rank, step);
}

enum class Pull : int { kBroadcast, kFcollect, kAlltoall };
__global__ void __launch_bounds__(kThreads, 2)
    k_pull(StreamTeam t, bool fused, Pull kind, char* dest, const char* source, std::size_t bytes, int root) {
  open_launch(t, fused, name(Routine::kCollective));
  const unsigned rank = grid_rank(), step = grid_step();
  switch (kind) {
    case Pull::kBroadcast:
      if (t.me != root || dest != source) pull(dest, source, bytes, member(t, root), rank, step);
      break;
    case Pull::kFcollect:
      for (int i = 0; i < t.n; ++i) pull(dest + i * bytes, source, bytes, member(t, i), rank, step);
      break;
    case Pull::kAlltoall:
      for (int i = 0; i < t.n; ++i) pull(dest + i * bytes, source + t.me * bytes, bytes, member(t, i), rank, step);
      break;
  }
  close_launch(t, fused, name(Routine::kCollective));
}

// ---- reductions ----------------------------------------------------------------------------------
template <class T, RedOp kOp>
__device__ T combine(T a, T b) {
  if constexpr (kOp == RedOp::kSum) return a + b;
  else if constexpr (kOp == RedOp::kProd) return a * b;
  else if constexpr (kOp == RedOp::kMin) return b < a ? b : a;
  else if constexpr (kOp == RedOp::kMax) return a < b ? b : a;
  else if constexpr (kOp == RedOp::kAnd) return a & b;
  else if constexpr (kOp == RedOp::kOr) return a | b;
  else return a ^ b;
}
// The same on the 16 / sizeof(T) elements of two 16-byte vectors.
template <class T, RedOp kOp>
__device__ uint4 combine(uint4 a, uint4 b) {
  constexpr int kLanes = 16 / sizeof(T);
  T x[kLanes], y[kLanes];
  memcpy(x, &a, 16);
  memcpy(y, &b, 16);
#pragma unroll
  for (int j = 0; j < kLanes; ++j) x[j] = combine<T, kOp>(x[j], y[j]);
  memcpy(&a, x, 16);
  return a;
}

// Where each member's copy of the reduced range starts, as this block found it: in shared memory
// for the first kTable members (the others are translated where they are read).
constexpr int kTable = 128;
struct Members {
  const char* at[kTable];
  int bad;        // the lowest member whose range is not mapped here, or kNone
  unsigned skew;  // OR over the members of (their address ^ dest's) & 15: 0 = 16-byte loads line up
  static constexpr int kNone = 1 << 30;
};

// dest[lo, hi) = member 0's source op member 1's ... (member order: the same bits on every PE,
// whether an element goes through the vector or the scalar loop). Every member's [lo, hi) is
// checked first (the grid's first thread reports a failure; nothing is written).
template <class T, RedOp kOp>
__device__ void reduce_range(const StreamTeam& t, T* dest, const T* source, std::size_t lo, std::size_t hi) {
  if (lo >= hi) return;  // alike for every thread of the block
  __shared__ Members mem;
  const std::size_t bytes = (hi - lo) * sizeof(T);
  const auto d_addr = reinterpret_cast<std::uintptr_t>(dest + lo);
  if (threadIdx.x == 0) {
    mem.bad = Members::kNone;
    mem.skew = 0;
  }
  __syncthreads();
  for (int m = static_cast<int>(threadIdx.x); m < t.n; m += static_cast<int>(blockDim.x)) {
    const char* p = det::target(source + lo, bytes, member(t, m));
    if (m < kTable) mem.at[m] = p;
    if (p == nullptr)
      atomicMin(&mem.bad, m);
    else
      atomicOr(&mem.skew, static_cast<unsigned>((reinterpret_cast<std::uintptr_t>(p) ^ d_addr) & 15));
  }
  __syncthreads();
  if (mem.bad != Members::kNone) {
    if (grid_rank() == 0) det::bad_target(name(Routine::kReduce), source + lo, bytes, member(t, mem.bad));
    return;
  }
  auto from = [&](int m) {
    return reinterpret_cast<const T*>(m < kTable ? mem.at[m] : det::target(source + lo, bytes, member(t, m)));
  };
  T* d = dest + lo;
  const std::size_t n = hi - lo;
  const unsigned rank = grid_rank(), step = grid_step();
  // [0, head): elements before dest is 16-byte aligned; [head, head + 16 * vecs / sizeof(T)):
  // vectors (when every member's copy is aligned alike); the rest elements.
  std::size_t head = n, vecs = 0;
  if (mem.skew == 0 && d_addr % sizeof(T) == 0) {
    head = ::min(n, ((16 - d_addr % 16) % 16) / sizeof(T));
    vecs = (n - head) * sizeof(T) / 16;
  }
  auto scalar = [&](std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0 + rank; i < i1; i += step) {
      T acc = from(0)[i];
      for (int m = 1; m < t.n; ++m) acc = combine<T, kOp>(acc, from(m)[i]);
      d[i] = acc;
    }
  };
  scalar(0, head);
  if (vecs > 0) {
    auto vec = [&](int m) { return reinterpret_cast<const uint4*>(from(m) + head); };
    auto* dv = reinterpret_cast<uint4*>(d + head);
    std::size_t i = rank;
    for (; i + step < vecs; i += 2 * static_cast<std::size_t>(step)) {  // two vectors per member in flight
      const uint4* s0 = vec(0);
      uint4 a = s0[i], b = s0[i + step];
      for (int m = 1; m < t.n; ++m) {
        const uint4* s = vec(m);
        a = combine<T, kOp>(a, s[i]);
        b = combine<T, kOp>(b, s[i + step]);
      }
      dv[i] = a;
      dv[i + step] = b;
    }
    if (i < vecs) {
      uint4 a = vec(0)[i];
      for (int m = 1; m < t.n; ++m) a = combine<T, kOp>(a, vec(m)[i]);
      dv[i] = a;
    }
  }
  scalar(head + vecs * 16 / sizeof(T), n);
}

// Member m's chunk of a two-shot reduction of `count` elements.
__device__ Span chunk_of(const StreamTeam& t, std::size_t count, int m) {
  const std::size_t per = (count + t.n - 1) / t.n;
  const std::size_t lo = ::min(count, per * m);
  return {lo, ::min(count, lo + per)};
}
// Two-shot, step 2: the other members' reduced chunks, from their dests.
template <class T>
__device__ void gather_chunks(const StreamTeam& t, T* dest, std::size_t count) {
  for (int m = 0; m < t.n; ++m) {
    if (m == t.me) continue;
    const Span c = chunk_of(t, count, m);
    pull(reinterpret_cast<char*>(dest + c.lo), reinterpret_cast<const char*>(dest + c.lo), (c.hi - c.lo) * sizeof(T),
         member(t, m), grid_rank(), grid_step());
  }
}

// One-shot: dest = the reduction of every member's source. Two-shot: this PE's chunk of it, and in
// a one-block launch then the others' chunks (a grid leaves them to k_gather).
template <class T, RedOp kOp>
__global__ void __launch_bounds__(kThreads, 2)
    k_reduce(StreamTeam t, bool fused, bool one_shot, T* dest, const T* source, std::size_t count) {
  open_launch(t, fused, name(Routine::kReduce));
  if (one_shot) {
    reduce_range<T, kOp>(t, dest, source, 0, count);
  } else {
    const Span c = chunk_of(t, count, t.me);
    reduce_range<T, kOp>(t, dest, source, c.lo, c.hi);
    if (fused) {
      block_barrier(t, name(Routine::kReduce));
      gather_chunks(t, dest, count);
    }
  }
  close_launch(t, fused, name(Routine::kReduce));
}
template <class T>
__global__ void __launch_bounds__(kThreads, 2) k_gather(StreamTeam t, T* dest, std::size_t count) {
  gather_chunks(t, dest, count);
  close_launch(t, false, name(Routine::kReduce));
}

int last_error() { return static_cast<int>(cudaGetLastError()); }

template <class T, RedOp kOp>
int reduce_as(cudaStream_t s, const StreamTeam& t, T* dest, const T* source, std::size_t count) {
  const std::size_t bytes = count * sizeof(T);
  const bool one_shot = bytes <= one_shot_limit(t.n) && dest != source;  // in place: two-shot
  const Launch l = plan_reduce(one_shot ? bytes * static_cast<std::size_t>(t.n) : 2 * bytes);
  if (!l.fused) k_barrier<<<1, 1, 0, s>>>(t, Routine::kReduce);
  k_reduce<T, kOp><<<l.blocks, kThreads, 0, s>>>(t, l.fused, one_shot, dest, source, count);
  if (!one_shot && !l.fused) k_gather<T><<<l.blocks, kThreads, 0, s>>>(t, dest, count);
  return last_error();
}

template <class T>
int reduce_typed(cudaStream_t s, const StreamTeam& t, void* dest, const void* source, std::size_t count, RedOp op) {
  auto* d = static_cast<T*>(dest);
  auto* src = static_cast<const T*>(source);
  switch (op) {
    case RedOp::kSum: return reduce_as<T, RedOp::kSum>(s, t, d, src, count);
    case RedOp::kProd: return reduce_as<T, RedOp::kProd>(s, t, d, src, count);
    case RedOp::kMin: return reduce_as<T, RedOp::kMin>(s, t, d, src, count);
    case RedOp::kMax: return reduce_as<T, RedOp::kMax>(s, t, d, src, count);
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case RedOp::kAnd: return reduce_as<T, RedOp::kAnd>(s, t, d, src, count);
      case RedOp::kOr: return reduce_as<T, RedOp::kOr>(s, t, d, src, count);
      case RedOp::kXor: return reduce_as<T, RedOp::kXor>(s, t, d, src, count);
      default: break;
    }
  }
  return static_cast<int>(cudaErrorInvalidValue);  // bitwise operations on floating point
}

int collective(cudaStream_t s, const StreamTeam& t, Pull kind, void* dest, const void* source, std::size_t bytes,
               int root) {
  const Launch l = plan_copy(kind == Pull::kBroadcast ? bytes : bytes * static_cast<std::size_t>(t.n));
  if (!l.fused) k_barrier<<<1, 1, 0, s>>>(t, Routine::kCollective);
  k_pull<<<l.blocks, kThreads, 0, s>>>(t, l.fused, kind, static_cast<char*>(dest), static_cast<const char*>(source),
                                        bytes, root);
  return last_error();
}

}  // namespace

std::size_t elem_size(Elem e) noexcept {
  switch (e) {
    case Elem::kI8: case Elem::kU8: return 1;
    case Elem::kI16: case Elem::kU16: return 2;
    case Elem::kI32: case Elem::kU32: case Elem::kF32: return 4;
    default: return 8;
  }
}

int put(cudaStream_t s, void* dest, const void* source, std::size_t bytes, int pe) noexcept {
  if (bytes == 0) return 0;
  const Launch l = plan_copy(bytes);
  k_put<<<l.blocks, kThreads, 0, s>>>(static_cast<char*>(dest), static_cast<const char*>(source), bytes, pe);
  return last_error();
}
int get(cudaStream_t s, void* dest, const void* source, std::size_t bytes, int pe) noexcept {
  if (bytes == 0) return 0;
  const Launch l = plan_copy(bytes);
  k_get<<<l.blocks, kThreads, 0, s>>>(static_cast<char*>(dest), static_cast<const char*>(source), bytes, pe);
  return last_error();
}
int signal(cudaStream_t s, std::uint64_t* sig, std::uint64_t value, int sig_op, int pe) noexcept {
  k_signal<<<1, 1, 0, s>>>(sig, value, sig_op, pe);
  return last_error();
}
int wait(cudaStream_t s, std::uint64_t* sig, int cmp, std::uint64_t value) noexcept {
  k_wait<<<1, 1, 0, s>>>(sig, cmp, value);
  return last_error();
}
int barrier(cudaStream_t s, const StreamTeam& t) noexcept {
  k_barrier<<<1, 1, 0, s>>>(t, Routine::kBarrier);
  return last_error();
}
int broadcast(cudaStream_t s, const StreamTeam& t, void* dest, const void* source, std::size_t bytes, int root) noexcept {
  return collective(s, t, Pull::kBroadcast, dest, source, bytes, root);
}
int fcollect(cudaStream_t s, const StreamTeam& t, void* dest, const void* source, std::size_t bytes) noexcept {
  return collective(s, t, Pull::kFcollect, dest, source, bytes, 0);
}
int alltoall(cudaStream_t s, const StreamTeam& t, void* dest, const void* source, std::size_t bytes) noexcept {
  return collective(s, t, Pull::kAlltoall, dest, source, bytes, 0);
}
int reduce(cudaStream_t s, const StreamTeam& t, void* dest, const void* source, std::size_t count, Elem e,
           RedOp op) noexcept {
  if (count == 0) return 0;
  switch (e) {
    case Elem::kI8: return reduce_typed<std::int8_t>(s, t, dest, source, count, op);
    case Elem::kI16: return reduce_typed<std::int16_t>(s, t, dest, source, count, op);
    case Elem::kI32: return reduce_typed<std::int32_t>(s, t, dest, source, count, op);
    case Elem::kI64: return reduce_typed<std::int64_t>(s, t, dest, source, count, op);
    case Elem::kU8: return reduce_typed<std::uint8_t>(s, t, dest, source, count, op);
    case Elem::kU16: return reduce_typed<std::uint16_t>(s, t, dest, source, count, op);
    case Elem::kU32: return reduce_typed<std::uint32_t>(s, t, dest, source, count, op);
    case Elem::kU64: return reduce_typed<std::uint64_t>(s, t, dest, source, count, op);
    case Elem::kF32: return reduce_typed<float>(s, t, dest, source, count, op);
    case Elem::kF64: return reduce_typed<double>(s, t, dest, source, count, op);
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

}  // namespace shmem::cuda
