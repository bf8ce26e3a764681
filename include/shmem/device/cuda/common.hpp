#pragma once
// Shared by the CUDA device headers: the per-translation-unit copy of the GPU state, address
// translation, error reports, system-scope memory operations and the wait backoff.
//
// Memory model (the PTX one, at system scope, because peers are other processes on this or
// another GPU of the node):
//   - put/get/p/g are plain (relaxed) accesses to the peer's mapped memory;
//   - atomics are relaxed system-scope read-modify-writes (atom.*.sys), as NVSHMEM's: they are
//     atomic, and fence()/quiet() order them with other operations;
//   - signals (signal_op, put_signal) are release operations after the data, and waits
//     (wait_until, signal_wait_until, test, signal_fetch) acquire: a thread that sees a signal
//     sees the data put before it;
//   - fence() and quiet() are fence.sc.sys: every earlier access of the calling thread, to any
//     PE, is visible to every thread of every process before any later one. Node-local stores
//     are complete once fenced, so quiet() needs nothing more.
// libcu++'s cuda::atomic_ref implements the system-scope accesses; it builds 8- and 16-bit
// read-modify-writes from a compare-and-swap on the enclosing aligned 32-bit word, which the
// hardware has.
#include <cuda/atomic>
#include <shmemx.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "shmem/device/cuda/state.hpp"

namespace shmem::device {

using Block = shmemx_block_t;

namespace cuda::detail {

// This translation unit's copy of the state (device code reads it from constant memory; one
// copy per translation unit, each registered with the library by the sink below, which the
// library calls when the GPU heap is created or destroyed).
namespace {
__constant__ GpuState c_state;

void state_sink(const void* state, std::size_t bytes, int device) {
  if (bytes != sizeof(GpuState)) return;  // headers and library of different versions: version 0 stays
  int prev = -1;
  cudaGetDevice(&prev);
  if (device >= 0) cudaSetDevice(device);
  cudaMemcpyToSymbol(c_state, state, bytes);
  if (prev >= 0 && prev != device) cudaSetDevice(prev);
}
[[maybe_unused]] const int c_state_registered = shmemx_cuda_state_sink_add(&state_sink);
}  // namespace

__device__ __forceinline__ const GpuState& state() { return c_state; }

template <class T>
using SysRef = ::cuda::atomic_ref<T, ::cuda::thread_scope_system>;
inline constexpr auto kRelaxed = ::cuda::std::memory_order_relaxed;
inline constexpr auto kAcquire = ::cuda::std::memory_order_acquire;
inline constexpr auto kRelease = ::cuda::std::memory_order_release;

__device__ __forceinline__ void fence_system() {
  ::cuda::atomic_thread_fence(::cuda::std::memory_order_seq_cst, ::cuda::thread_scope_system);
}

__device__ __forceinline__ const char* error_text(GpuErrorKind k) {
  switch (k) {
    case kGpuErrBadPe: return "the PE is out of range; nothing was done";
    case kGpuErrNotSymmetric: return "the address is not inside the GPU symmetric heap; nothing was done";
    case kGpuErrFarPe: return "the PE is on another host, which kernels cannot reach yet; nothing was done";
    case kGpuErrTimeout: return "the wait exceeded SHMEM_WAIT_TIMEOUT";
    case kGpuErrBadArgument: return "invalid argument (cmp, sig_op, stride or alignment); nothing was done";
    case kGpuErrNotInitialized: return "no GPU symmetric heap (shmem_init with the CUDA backend first)";
    default: return "error";
  }
}

__device__ __forceinline__ std::uint64_t now_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// ---- errors ------------------------------------------------------------------------------------
struct Report {
  GpuErrorKind kind;
  const char* routine;
  int target_pe = -1;
  const void* addr = nullptr;
  std::uint64_t bytes = 0;
  std::uint64_t expected = 0;
  std::uint64_t seen = 0;
  int cmp = 0;
};

// Records the first error of this PE in the status record (pinned host memory the library
// reads) and prints it. The operation that failed is then skipped by the caller; a wait that
// timed out traps (the kernel ends; the library reports the record and ends the job).
__device__ __noinline__ inline void report(const Report& r) {
  const GpuState& s = state();
  printf("shmem: PE %d: %s (block %u thread %u): %s; target PE %d, address %p (+%llu bytes)\n", s.my_pe, r.routine,
         blockIdx.x, threadIdx.x, error_text(r.kind), r.target_pe, r.addr, static_cast<unsigned long long>(r.bytes));
  GpuStatus* st = s.status;
  if (st == nullptr) __trap();  // no GPU heap: nothing can read a record
  std::uint32_t none = kGpuErrNone;
  if (SysRef<std::uint32_t>(st->code).compare_exchange_strong(none, r.kind, kRelaxed)) {
    st->pe = s.my_pe;
    st->target_pe = r.target_pe;
    st->addr = reinterpret_cast<std::uint64_t>(r.addr);
    st->bytes = r.bytes;
    st->expected = r.expected;
    st->seen = r.seen;
    st->cmp = r.cmp;
    st->block = blockIdx.x;
    st->thread = threadIdx.x;
    unsigned i = 0;
    for (; r.routine[i] != '\0' && i + 1 < sizeof st->routine; ++i) st->routine[i] = r.routine[i];
    st->routine[i] = '\0';
    SysRef<std::uint32_t>(st->ready).store(1, kRelease);
  }
}

// Where [addr, addr + bytes) of `pe` is mapped here, or nullptr: the PE is out of range or on
// another host, or the range is not inside this PE's GPU heap.
__device__ __forceinline__ char* target(const void* addr, std::size_t bytes, int pe) {
  const GpuState& s = state();
  if (static_cast<unsigned>(pe) >= static_cast<unsigned>(s.n_pes)) return nullptr;
  const std::uintptr_t off = reinterpret_cast<std::uintptr_t>(addr) - reinterpret_cast<std::uintptr_t>(s.my_heap);
  if (off >= s.heap_size || bytes > s.heap_size - off) return nullptr;
  // Every PE on this host (the usual case): local index == PE, no table lookup.
  const int li = s.n_local == s.n_pes ? pe : s.local_index[pe];
  if (li < 0) return nullptr;
  return s.base + static_cast<std::size_t>(li) * s.stride + off;
}

// Why target() found nothing, reported (cold).
__device__ __noinline__ inline void bad_target(const char* routine, const void* addr, std::size_t bytes, int pe) {
  const GpuState& s = state();
  Report r{kGpuErrNotSymmetric, routine, pe, addr, bytes};
  if (s.version == 0)
    r.kind = kGpuErrNotInitialized;
  else if (static_cast<unsigned>(pe) >= static_cast<unsigned>(s.n_pes))
    r.kind = kGpuErrBadPe;
  else if (s.n_local != s.n_pes && s.local_index[pe] < 0)
    r.kind = kGpuErrFarPe;
  report(r);
}
__device__ __noinline__ inline void bad_argument(const char* routine, int value) {
  Report r{kGpuErrBadArgument, routine};
  r.cmp = value;
  report(r);
}

// A naturally aligned word of `pe`, or nullptr (reported).
template <class T>
__device__ __forceinline__ T* word(const char* routine, const void* addr, int pe) {
  char* p = target(addr, sizeof(T), pe);
  if (p != nullptr && reinterpret_cast<std::uintptr_t>(p) % alignof(T) == 0) [[likely]]
    return reinterpret_cast<T*>(p);
  if (p != nullptr)
    bad_argument(routine, static_cast<int>(alignof(T)));
  else
    bad_target(routine, addr, sizeof(T), pe);
  return nullptr;
}

template <class T>
__device__ __forceinline__ bool compare(int cmp, T a, T b) {
  switch (cmp) {
    case SHMEM_CMP_EQ: return a == b;
    case SHMEM_CMP_NE: return a != b;
    case SHMEM_CMP_GT: return a > b;
    case SHMEM_CMP_GE: return a >= b;
    case SHMEM_CMP_LT: return a < b;
    case SHMEM_CMP_LE: return a <= b;
    default: return false;
  }
}
__device__ __forceinline__ bool valid_cmp(int cmp) { return cmp >= SHMEM_CMP_EQ && cmp <= SHMEM_CMP_LE; }

template <class T>
__device__ __forceinline__ std::uint64_t bits(T v) {
  std::uint64_t b = 0;
  static_assert(sizeof(T) <= sizeof b);
  memcpy(&b, &v, sizeof(T));
  return b;
}

// The pause of every device wait: spin (a peer's kernel usually answers within microseconds, and
// a sleep would add its length to the hand-off), then, after kSpinNs, back off with __nanosleep
// up to 1 us so that other kernels (peers' under MPS) get the issue slots; past
// SHMEM_WAIT_TIMEOUT the wait is reported (PE, address, expected, seen) and the kernel traps.
class Backoff {
 public:
  static constexpr std::uint64_t kSpinNs = 50'000;

  __device__ __forceinline__ void pause(const char* routine, const void* addr, std::uint64_t expected,
                                        std::uint64_t seen, int cmp) {
    if ((++n_ & 63) != 0) return;
    slow(routine, addr, expected, seen, cmp);
  }

 private:
  __device__ __noinline__ void slow(const char* routine, const void* addr, std::uint64_t expected, std::uint64_t seen,
                                    int cmp) {
    const std::uint64_t t = now_ns();
    if (start_ == 0) start_ = t;
    const std::uint64_t waited = t - start_;
    if (waited < kSpinNs) return;
    __nanosleep(sleep_ns_);
    if (sleep_ns_ < 1024) sleep_ns_ *= 2;
    const std::uint64_t limit = state().timeout_ns;
    if (limit == 0 || waited < limit) return;
    Report r{kGpuErrTimeout, routine, state().my_pe, addr, 0, expected, seen, cmp};
    report(r);
    __trap();
  }
  unsigned n_ = 0;
  unsigned sleep_ns_ = 32;
  std::uint64_t start_ = 0;
};

}  // namespace cuda::detail
}  // namespace shmem::device
