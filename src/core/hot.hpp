#pragma once
// The data-path steps that cost a few nanoseconds, inline for the C shims (src/api/): finding
// the current runtime and the context, whether checked mode is on, shmem_ptr, a single-element
// put or get to a node-local PE, a test, and a wait whose condition already holds. Out of line each was a
// call (two or three for the runtime lookups), and a one-element put went through memcpy by
// size: shmem_long_p + a satisfied shmem_long_wait_until took 27-31 ns on this project's
// reference VM, against 16-23 for Open MPI's OSHMEM, and the node-local ping-pong pays part of
// that on every leg. Everything else (remote targets, error paths, waits that wait) stays in
// the core's .cpp files: these helpers only decide that the fast case applies, then call there
// otherwise.
#include <cstring>

#include "core/access.hpp"
#include "core/gpu_heap.hpp"
#include "core/op_counters.hpp"
#include "core/ops.hpp"
#include "core/runtime.hpp"

namespace shmem::core {

// The point-to-point comparisons (SHMEM_CMP_EQ..LE = 0..5); false for any other value.
template <class T>
[[gnu::always_inline]] inline bool compare(int cmp, T a, T b) noexcept {
  switch (cmp) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a > b;
    case 3: return a >= b;
    case 4: return a < b;
    case 5: return a <= b;
  }
  return false;
}

namespace hot {

// The Ctx of a public shmem_ctx_t value: nullptr is SHMEM_CTX_DEFAULT (fatal before init,
// through rt(), which names `func`).
inline Ctx* ctx(void* handle, const char* func) noexcept {
  if (handle != nullptr) return static_cast<Ctx*>(handle);
  Runtime* r = current_runtime();
  return r != nullptr ? r->default_ctx() : rt(func).default_ctx();
}

// Checked mode (SHMEM_DEBUG=1 or the SHMEM_CHECKED build option) is on.
inline bool checks() noexcept {
  const Runtime* r = current_runtime();
  return r != nullptr && r->checks();
}

// shmem_ptr: dest as mapped for node-local PE `pe`, or nullptr (pe out of range, on another
// host, or dest not symmetric); fatal before init, through rt(), which names the call.
inline void* ptr(const void* dest, int pe) noexcept {
  const Runtime* cur = current_runtime();
  const Runtime& r = __builtin_expect(cur != nullptr, 1) ? *cur : rt("shmem_ptr");
  if (static_cast<unsigned>(pe) >= static_cast<unsigned>(r.n_pes())) return nullptr;
  return r.translate(dest, pe);
}

// core::put / core::get of one element of T: a plain store or load of sizeof(T) bytes when the
// PE is node-local (the translated address has dest's alignment: segments are page-aligned).
template <class T>
inline void p(Ctx* c, T* dest, T value, int pe, const char* func) noexcept {
  const detail::Target t = detail::target<true>(c, dest, sizeof(T), pe, func, "dest");
  if (__builtin_expect(t.local != nullptr, 1)) {
    std::memcpy(t.local, &value, sizeof(T));
    op_counters::write(c, true);
    op_counters::target(c, t.pe, func);
    return;
  }
  core::put(c, dest, &value, sizeof(T), pe, func);
}
template <class T>
inline T g(Ctx* c, const T* source, int pe, const char* func) noexcept {
  T value;
  const detail::Target t = detail::target<true>(c, source, sizeof(T), pe, func, "source");
  if (__builtin_expect(t.local != nullptr, 1)) {
    std::memcpy(&value, t.local, sizeof(T));
    op_counters::read(c, true);
    return value;
  }
  core::get(c, &value, source, sizeof(T), pe, func);
  return value;
}

// shmem_TYPENAME_test without the core's machinery where nothing else is owed: no transport to
// drive (the wait policy has no poll hook; the transport's activity word, which waits count
// in, comes with it). 1 or 0: the comparison's outcome; -1: not decided here (a transport to
// drive, before init, ivar in this PE's GPU heap, or a `cmp` outside SHMEM_CMP_EQ..LE, which the
// core's path reports).
template <class T>
inline int test(const volatile T* ivar, int cmp, T value) noexcept {
  const Runtime* r = current_runtime();
  if (r == nullptr || r->wait_policy().poll != nullptr || static_cast<unsigned>(cmp) > 5u) return -1;
  // A word of this PE's GPU heap, which the host cannot load: the core reads a copy (ops_wait.cpp).
  if (__builtin_expect(r->gpu() != nullptr, 0) && r->gpu()->contains(const_cast<const T*>(ivar))) return -1;
  return compare<T>(cmp, __atomic_load_n(const_cast<const T*>(ivar), __ATOMIC_ACQUIRE), value) ? 1 : 0;
}
// A wait_until whose condition holds on entry returns without entering the wait machinery,
// under the same conditions.
template <class T>
inline bool already(const volatile T* ivar, int cmp, T value) noexcept {
  return test(ivar, cmp, value) == 1;
}

}  // namespace hot
}  // namespace shmem::core
