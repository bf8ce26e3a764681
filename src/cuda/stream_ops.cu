// Stream-ordered operations on a CUDA stream (stream_ops.hpp): small kernels over the device API.
#include "cuda/stream_ops.hpp"

#include <shmem/device/device.hpp>

#include <type_traits>

namespace dev = shmem::device;

namespace shmem::cuda {
namespace {

constexpr int kCopyThreads = 512;
constexpr int kMaxCopyBlocks = 132;  // one per multiprocessor of an H100/H200

// Blocks for copying `bytes`: enough that each moves at least 64 KiB, at most kMaxCopyBlocks.
int copy_blocks(std::size_t bytes) {
  const std::size_t b = (bytes + (64 << 10) - 1) / (64 << 10);
  return static_cast<int>(b < 1 ? 1 : (b > kMaxCopyBlocks ? kMaxCopyBlocks : b));
}

// Blocks for a reduction over `bytes`: one per 16 KiB (at most kMaxCopyBlocks). Each element
// costs a load from every member, so a reduction needs more loads in flight than a copy of the
// same size to hide their latency: at 256 KiB, 16 blocks instead of copy_blocks' 4. Not yet
// measured on a GPU (docs/performance.md: mid-size allreduces were 0.63-0.72x PyTorch's).
int reduce_blocks(std::size_t bytes) {
  const std::size_t b = (bytes + (16 << 10) - 1) / (16 << 10);
  return static_cast<int>(b < 1 ? 1 : (b > kMaxCopyBlocks ? kMaxCopyBlocks : b));
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

__global__ void k_put(char* dest, const char* source, std::size_t bytes, int pe) {
  const dev::Block b = dev::this_block();
  const Span s = block_span(b, bytes);
  dev::putmem_block(b, dest + s.lo, source + s.lo, s.hi - s.lo, pe);
}
__global__ void k_get(char* dest, const char* source, std::size_t bytes, int pe) {
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

__device__ void team_barrier(const StreamTeam& t, const char* routine) {
  dev::quiet();
  dev::cuda::detail::team_sync_on(routine, kStreamSlotBase + t.slot % kStreamSlots, t.members, t.me, t.n);
}
__global__ void k_barrier(StreamTeam t) { team_barrier(t, "shmemx_barrier_on_stream (CUDA)"); }

// Copies `bytes` from symmetric `source` on world PE `pe` to local `dest` with every thread of the
// grid (`rank` of `step`).
__device__ void pull(char* dest, const char* source, std::size_t bytes, int pe, unsigned rank, unsigned step) {
  dev::cuda::detail::rma<false>("shmem stream collective (CUDA)", dest, source, bytes, pe, rank, step);
}
__device__ unsigned grid_rank() { return blockIdx.x * blockDim.x + threadIdx.x; }
__device__ unsigned grid_step() { return gridDim.x * blockDim.x; }

enum class Pull : int { kBroadcast, kFcollect, kAlltoall };
__global__ void k_pull(StreamTeam t, Pull kind, char* dest, const char* source, std::size_t bytes, int root) {
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

// dest[lo, hi) = member 0's source op member 1's ... (member order: the same bits on every PE).
// Every member's [lo, hi) is checked first (thread 0 reports a failure; nothing is written).
template <class T, RedOp kOp>
__device__ void reduce_range(const StreamTeam& t, T* dest, const T* source, std::size_t lo, std::size_t hi) {
  if (lo >= hi) return;
  for (int m = 0; m < t.n; ++m) {
    if (dev::cuda::detail::target(source + lo, (hi - lo) * sizeof(T), member(t, m)) != nullptr) continue;
    if (grid_rank() == 0)
      dev::cuda::detail::bad_target("shmemx_reduce_on_stream (CUDA)", source + lo, (hi - lo) * sizeof(T), member(t, m));
    return;
  }
  for (std::size_t i = lo + grid_rank(); i < hi; i += grid_step()) {
    T acc = static_cast<const T*>(dev::ptr(source, member(t, 0)))[i];
    for (int m = 1; m < t.n; ++m) acc = combine<T, kOp>(acc, static_cast<const T*>(dev::ptr(source, member(t, m)))[i]);
    dest[i] = acc;
  }
}

template <class T, RedOp kOp>
__global__ void k_reduce_all(StreamTeam t, T* dest, const T* source, std::size_t count) {
  reduce_range<T, kOp>(t, dest, source, 0, count);
}
// Two-shot, step 1: this PE reduces its chunk of every member's source into its own dest.
template <class T, RedOp kOp>
__global__ void k_reduce_chunk(StreamTeam t, T* dest, const T* source, std::size_t count) {
  const std::size_t per = (count + t.n - 1) / t.n;
  const std::size_t lo = ::min(count, per * t.me), hi = ::min(count, lo + per);
  reduce_range<T, kOp>(t, dest, source, lo, hi);
}
// Two-shot, step 2: the other members' reduced chunks, from their dests.
template <class T>
__global__ void k_gather_chunks(StreamTeam t, T* dest, std::size_t count) {
  const std::size_t per = (count + t.n - 1) / t.n;
  for (int m = 0; m < t.n; ++m) {
    if (m == t.me) continue;
    const std::size_t lo = ::min(count, per * m), hi = ::min(count, lo + per);
    pull(reinterpret_cast<char*>(dest + lo), reinterpret_cast<const char*>(dest + lo), (hi - lo) * sizeof(T),
         member(t, m), grid_rank(), grid_step());
  }
}

int last_error() { return static_cast<int>(cudaGetLastError()); }

template <class T, RedOp kOp>
int reduce_as(cudaStream_t s, const StreamTeam& t, T* dest, const T* source, std::size_t count) {
  const std::size_t bytes = count * sizeof(T);
  const int blocks = reduce_blocks(bytes);
  k_barrier<<<1, 1, 0, s>>>(t);
  if (bytes <= kOneShotBytes && dest != source) {
    k_reduce_all<T, kOp><<<blocks, kCopyThreads, 0, s>>>(t, dest, source, count);
  } else {
    k_reduce_chunk<T, kOp><<<blocks, kCopyThreads, 0, s>>>(t, dest, source, count);
    k_barrier<<<1, 1, 0, s>>>(t);
    k_gather_chunks<T><<<blocks, kCopyThreads, 0, s>>>(t, dest, count);
  }
  k_barrier<<<1, 1, 0, s>>>(t);
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
  k_barrier<<<1, 1, 0, s>>>(t);
  const std::size_t total = kind == Pull::kBroadcast ? bytes : bytes * static_cast<std::size_t>(t.n);
  k_pull<<<copy_blocks(total), kCopyThreads, 0, s>>>(t, kind, static_cast<char*>(dest),
                                                     static_cast<const char*>(source), bytes, root);
  k_barrier<<<1, 1, 0, s>>>(t);
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
  k_put<<<copy_blocks(bytes), kCopyThreads, 0, s>>>(static_cast<char*>(dest), static_cast<const char*>(source), bytes, pe);
  return last_error();
}
int get(cudaStream_t s, void* dest, const void* source, std::size_t bytes, int pe) noexcept {
  if (bytes == 0) return 0;
  k_get<<<copy_blocks(bytes), kCopyThreads, 0, s>>>(static_cast<char*>(dest), static_cast<const char*>(source), bytes, pe);
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
  k_barrier<<<1, 1, 0, s>>>(t);
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
