// The core's operations on the GPU heap (core/gpu_heap.hpp): collective allocation, and host
// transfers to and from GPU symmetric addresses through the CUDA driver (the host cannot load
// or store GPU memory: RMA copies on the plugin's stream, atomics and signals are one-thread
// kernels there, and waits poll copies of the words).
#include <algorithm>
#include <climits>
#include <string>

#include "base/log.hpp"
#include "core/gpu_heap.hpp"
#include "core/heap_allocator.hpp"
#include "core/ops.hpp"
#include "core/runtime.hpp"

namespace shmem::core {
namespace {

// The driver's 2D copy takes pitches up to this (CU_DEVICE_ATTRIBUTE_MAX_PITCH is 2^31 - 1 on
// every current GPU); longer or overlapping ones go block by block.
constexpr std::ptrdiff_t kMaxPitch = INT_MAX;

}  // namespace

void* gpu_alloc(std::size_t alignment, std::size_t size, bool zero, const char* func) noexcept {
  Runtime& r = rt(func);
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    SHMEM_ERROR("cuda", "%s: alignment=%zu is not a power of two", func, alignment);
    r.barrier();
    return nullptr;
  }
  if (!r.gpu()) {
    r.set_gpu(GpuHeap::create(r, func));  // collective; nullptr on every PE alike
    if (!r.gpu()) return nullptr;
  }
  GpuHeap& g = *r.gpu();
  void* p = size == 0 ? nullptr : g.alloc(size, std::max(alignment, HeapAllocator::kMinAlign));
  if (!p && size != 0 && r.my_pe() == 0)
    SHMEM_ERROR("cuda",
                "%s(%zu bytes): the GPU heap is exhausted (largest free block %zu of %zu bytes): raise "
                "SHMEM_CUDA_HEAP_SIZE",
                func, size, g.largest_free(), g.capacity());
  std::string error;
  if (p && zero && !g.fill(p, 0, size, &error)) fatal(func, "zeroing the GPU allocation: %s", error.c_str());
  r.barrier();  // symmetric: every PE has it (zeroed) before anyone writes into it
  return p;
}

void gpu_free(void* p, const char* func) noexcept {
  Runtime& r = rt(func);
  r.barrier();  // no PE still uses it
  if (!p) return;
  if (!r.gpu() || !r.gpu()->contains(p) || !r.gpu()->release(p))
    fatal(func, "ptr=%p is not a live allocation of the GPU heap (shmemx_cuda_malloc & co.)", p);
}

char* gpu_target(const Runtime& r, const void* addr, int pe, const char* func, const char* arg) noexcept {
  char* p = r.gpu()->peer(addr, pe);
  if (!p)
    fatal(func,
          "%s=%p is GPU memory and pe=%d runs on host '%s' (this PE on '%s'): the GPU heaps of PEs on other "
          "hosts are not reachable yet (CUDA backend, part 1)",
          arg, addr, pe, r.host_of(pe).c_str(), r.host_of(r.my_pe()).c_str());
  return p;
}

void gpu_unsupported(const Runtime&, const void* addr, const char* func, const char* arg) noexcept {
  fatal(func,
        "%s=%p is in the GPU heap: %s does not take GPU memory from the host (RMA, atomics, signals and waits "
        "do); use symmetric CPU memory",
        arg, addr, func);
}

std::uint64_t gpu_amo(const Runtime& r, AmoOp op, void* sym, int pe, std::size_t width, std::uint64_t value,
                      std::uint64_t cond, const char* func) noexcept {
  int code = SHMEM_CUDA_ATOMIC_FETCH;
  switch (op) {
    case AmoOp::kFetch: break;
    case AmoOp::kSet: code = SHMEM_CUDA_ATOMIC_SET; break;
    case AmoOp::kSwap: code = SHMEM_CUDA_ATOMIC_SWAP; break;
    case AmoOp::kCompareSwap: code = SHMEM_CUDA_ATOMIC_COMPARE_SWAP; break;
    case AmoOp::kFetchInc:
    case AmoOp::kInc:
      code = SHMEM_CUDA_ATOMIC_ADD;
      value = 1;
      break;
    case AmoOp::kFetchAdd:
    case AmoOp::kAdd: code = SHMEM_CUDA_ATOMIC_ADD; break;
    case AmoOp::kFetchAnd:
    case AmoOp::kAnd: code = SHMEM_CUDA_ATOMIC_AND; break;
    case AmoOp::kFetchOr:
    case AmoOp::kOr: code = SHMEM_CUDA_ATOMIC_OR; break;
    case AmoOp::kFetchXor:
    case AmoOp::kXor: code = SHMEM_CUDA_ATOMIC_XOR; break;
  }
  std::uint64_t old = 0;
  std::string error;
  if (!r.gpu()->atomic(sym, pe, static_cast<int>(width), code, value, cond, &old, &error))
    fatal(func, "an atomic of %zu bytes on GPU memory (%p on PE %d): %s", width, sym, pe, error.c_str());
  return old;
}

void gpu_read(const Runtime& r, const volatile void* addr, void* out, std::size_t bytes, const char* func) noexcept {
  std::string error;
  if (!r.gpu()->copy(out, const_cast<const void*>(addr), bytes, &error))
    fatal(func, "reading %zu bytes of GPU memory at %p: %s", bytes, const_cast<const void*>(addr), error.c_str());
}

void gpu_check_range(const Runtime& r, const void* addr, std::size_t bytes, const char* func,
                     const char* arg) noexcept {
  const std::size_t room = r.gpu()->room(addr);
  if (bytes > room)
    fatal(func, "%s=%p with %zu bytes crosses the end of the GPU heap (%zu bytes left in it; SHMEM_CUDA_HEAP_SIZE)",
          arg, addr, bytes, room);
}

void gpu_transfer(const Runtime& r, bool is_put, const void* sym, char* peer, void* local, std::size_t bytes,
                  const char* func) noexcept {
  gpu_check_range(r, sym, bytes, func, is_put ? "dest" : "source");
  std::string error;
  if (!(is_put ? r.gpu()->copy(peer, local, bytes, &error) : r.gpu()->copy(local, peer, bytes, &error)))
    fatal(func, "%zu bytes %s GPU memory: %s", bytes, is_put ? "to" : "from", error.c_str());
}

void gpu_transfer_2d(const Runtime& r, bool is_put, const void* sym, char* peer, std::ptrdiff_t sym_pitch, void* local,
                     std::ptrdiff_t local_pitch, std::size_t block, std::size_t count, const char* func) noexcept {
  const char* arg = is_put ? "dest" : "source";
  const std::ptrdiff_t last = static_cast<std::ptrdiff_t>(count - 1) * sym_pitch;
  const char* lo = static_cast<const char*>(sym) + std::min<std::ptrdiff_t>(0, last);
  if (!r.gpu()->contains(lo))
    fatal(func, "%s=%p with stride %td bytes begins before the GPU heap", arg, sym, sym_pitch);
  gpu_check_range(
      r, lo, static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, last) - std::min<std::ptrdiff_t>(0, last)) + block,
      func, arg);
  const auto b = static_cast<std::ptrdiff_t>(block);
  std::string error;
  bool ok = true;
  if (sym_pitch >= b && local_pitch >= b && sym_pitch <= kMaxPitch && local_pitch <= kMaxPitch) {
    ok = is_put ? r.gpu()->copy_2d(peer, static_cast<std::size_t>(sym_pitch), local,
                                   static_cast<std::size_t>(local_pitch), block, count, &error)
                : r.gpu()->copy_2d(local, static_cast<std::size_t>(local_pitch), peer,
                                   static_cast<std::size_t>(sym_pitch), block, count, &error);
  } else {
    for (std::size_t i = 0; i < count && ok; ++i) {
      char* s = peer + static_cast<std::ptrdiff_t>(i) * sym_pitch;
      char* l = static_cast<char*>(local) + static_cast<std::ptrdiff_t>(i) * local_pitch;
      ok = is_put ? r.gpu()->copy(s, l, block, &error) : r.gpu()->copy(l, s, block, &error);
    }
  }
  if (!ok) fatal(func, "strided transfer %s GPU memory: %s", is_put ? "to" : "from", error.c_str());
}

}  // namespace shmem::core
