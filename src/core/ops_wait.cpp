// Point-to-point synchronisation: wait_until / test and their vector forms, signal waits.
#include <cinttypes>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "base/log.hpp"
#include "core/gpu_heap.hpp"
#include "core/hot.hpp"
#include "core/ops.hpp"
#include "core/runtime.hpp"

namespace shmem::core {
namespace {

const char* cmp_name(int cmp) {
  static const char* names[] = {"==", "!=", ">", ">=", "<", "<="};
  return (cmp >= 0 && cmp <= 5) ? names[cmp] : "?";
}

template <class T>
[[gnu::always_inline]] inline T load(volatile void* base, std::size_t i) noexcept {
  return __atomic_load_n(const_cast<T*>(static_cast<volatile T*>(base)) + i, __ATOMIC_ACQUIRE);
}

// Where the next test_any / wait_until_any scan starts. The spec (1.6, shmem_test_any): when
// several entries satisfy the condition, "a series of calls ... must eventually return" each
// of them, so a scan starts one past the index the previous call returned and wraps around.
// The state belongs to the calling thread (each thread consumes its own flags; no sharing,
// no locking, and no job-wide mutable state).
thread_local std::size_t any_next_start = 0;

template <class T>
std::string text(T v) {
  return std::is_signed_v<T> ? std::to_string(static_cast<long long>(v)) : std::to_string(static_cast<unsigned long long>(v));
}

void check_cmp(const char* func, int cmp) noexcept {
  if (cmp < 0 || cmp > 5)
    fatal(func, "cmp=%d is not a valid comparison: use SHMEM_CMP_EQ, NE, GT, GE, LT or LE", cmp);
}

// Generic waiter: satisfied(i) tells whether element i meets its condition. Words in this PE's
// GPU heap, which the host cannot load, are read as a copy (`snap`, taken by refresh() before
// each look: once at the start and once per poll of block()); a wait on host memory allocates
// nothing.
template <class T>
struct Waiter {
  const char* func;
  volatile void* ivars;
  std::size_t n;
  const int* status;
  int cmp;
  T value;
  const T* values;
  const Runtime* gpu_rt = nullptr;  // set: ivars is GPU memory
  std::unique_ptr<T[]> snap;        // set with gpu_rt: n words, the copy refresh() fills

  bool eligible(std::size_t i) const noexcept { return !status || status[i] == 0; }
  T target(std::size_t i) const noexcept { return values ? values[i] : value; }
  [[gnu::always_inline]] T at(std::size_t i) const noexcept {
    return __builtin_expect(gpu_rt == nullptr, 1) ? load<T>(ivars, i) : snap[i];
  }
  void refresh() const noexcept {
    if (gpu_rt) gpu_read(*gpu_rt, ivars, snap.get(), n * sizeof(T), func);
  }
  [[gnu::always_inline]] bool satisfied(std::size_t i) const noexcept { return compare<T>(cmp, at(i), target(i)); }
  std::size_t first_unsatisfied() const noexcept {
    for (std::size_t i = 0; i < n; ++i)
      if (eligible(i) && !satisfied(i)) return i;
    return SIZE_MAX;
  }
  bool any_eligible() const noexcept {
    for (std::size_t i = 0; i < n; ++i)
      if (eligible(i)) return true;
    return false;
  }
  std::size_t first_satisfied() const noexcept {
    for (std::size_t i = 0; i < n; ++i)
      if (eligible(i) && satisfied(i)) return i;
    return SIZE_MAX;
  }
  // The _any selection: the first satisfied entry at or after this thread's rotating start
  // (wrapping), which then moves one past it. SIZE_MAX (start unchanged) when none is.
  std::size_t next_satisfied() const noexcept {
    if (n == 0) return SIZE_MAX;
    const std::size_t start = any_next_start % n;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = start + k < n ? start + k : start + k - n;
      if (eligible(i) && satisfied(i)) {
        any_next_start = i + 1;
        return i;
      }
    }
    return SIZE_MAX;
  }
  std::size_t collect(std::size_t* indices) const noexcept {
    std::size_t k = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (eligible(i) && satisfied(i)) indices[k++] = i;
    return k;
  }

  const void* address(std::size_t i) const noexcept {
    return const_cast<char*>(static_cast<volatile char*>(ivars)) + i * sizeof(T);
  }
  // The element a report names: `watch`, or the first where there is none (SIZE_MAX).
  std::size_t shown(std::size_t watch) const noexcept { return watch < n ? watch : 0; }
  // What the wait waits for, for the deadlock check (core/deadlock.hpp): element `watch`.
  std::string what(const Runtime& r, std::size_t watch) const {
    watch = shown(watch);
    const std::string want = std::string(cmp_name(cmp)) + " " + text(target(watch));
    const std::string on = r.describe(address(0), false);
    if (n == 1) return std::string(func) + " on " + on + " for " + want + ", seeing " + text(at(0));
    return std::string(func) + " on " + std::to_string(n) + " elements from " + on + " for " + want + "; element " +
           std::to_string(watch) + " sees " + text(at(watch));
  }

  // `watch`: the element a report names (wait_until_all: the first one still unmet, as it moves).
  template <class Done>
  void block(Done&& done, const std::size_t& watch) const noexcept {
    Runtime& r = rt(func);
    auto look = [&] {
      refresh();
      return done();
    };
    wait_for(
        r.wait_policy(), look,
        [&](double waited) {
          const std::size_t i = shown(watch);
          log::write(
              log::Level::kFatal, "wait",
              "%s timed out after %.1f s (SHMEM_WAIT_TIMEOUT=%g): PE %d waited on %s for value %s %s; last seen %s",
              func, waited, r.wait_policy().timeout_s, r.my_pe(), r.describe(address(i)).c_str(), cmp_name(cmp),
              text(target(i)).c_str(), text(at(i)).c_str());
          r.abort_job(1);
        },
        [&] { return what(r, watch); });
  }
};


template <class F>
auto dispatch(WaitKind kind, F&& f) {
  switch (kind) {
    case WaitKind::kI16: return f(std::int16_t{});
    case WaitKind::kI32: return f(std::int32_t{});
    case WaitKind::kI64: return f(std::int64_t{});
    case WaitKind::kU16: return f(std::uint16_t{});
    case WaitKind::kU32: return f(std::uint32_t{});
    case WaitKind::kU64: break;
  }
  return f(std::uint64_t{});
}

template <class T>
Waiter<T> make(const char* func, volatile void* ivars, std::size_t n, const int* status, int cmp, std::uint64_t value,
               const void* values) {
  check_cmp(func, cmp);
  // A program may poll with shmem_test in its own loop: each call drives a transport that
  // needs it (no-op on one host), so remote updates arrive without a progress thread.
  Waiter<T> w{func, ivars, n, status, cmp, static_cast<T>(value), static_cast<const T*>(values), nullptr, {}};
  if (Runtime* r = current_runtime()) {
    r->wait_policy().progress();
    if (__builtin_expect(r->gpu() != nullptr, 0) && r->gpu()->contains(const_cast<const void*>(ivars))) {
      gpu_check_range(*r, const_cast<const void*>(ivars), n * sizeof(T), func, "ivars");
      w.gpu_rt = r;
      w.snap = std::make_unique<T[]>(n);
      w.refresh();
    }
  }
  return w;
}

}  // namespace

void wait_until(WaitKind kind, volatile void* ivar, int cmp, std::uint64_t value, const char* func) noexcept {
  dispatch(kind, [&](auto t) {
    using T = decltype(t);
    auto w = make<T>(func, ivar, 1, nullptr, cmp, value, nullptr);
    w.block([&] { return w.satisfied(0); }, 0);
    return 0;
  });
}

bool test(WaitKind kind, volatile void* ivar, int cmp, std::uint64_t value, const char* func) noexcept {
  return dispatch(kind, [&](auto t) {
    using T = decltype(t);
    return make<T>(func, ivar, 1, nullptr, cmp, value, nullptr).satisfied(0);
  });
}

void wait_until_all(WaitKind kind, volatile void* ivars, std::size_t n, const int* status, int cmp,
                    std::uint64_t value, const void* values, const char* func) noexcept {
  dispatch(kind, [&](auto t) {
    using T = decltype(t);
    auto w = make<T>(func, ivars, n, status, cmp, value, values);
    std::size_t pending = w.first_unsatisfied();
    // Elements, once satisfied, are not re-checked (the spec's semantics for _all).
    w.block(
        [&] {
          while (pending < n && (!w.eligible(pending) || w.satisfied(pending))) ++pending;
          return pending >= n;
        },
        pending);
    return 0;
  });
}

std::size_t wait_until_any(WaitKind kind, volatile void* ivars, std::size_t n, const int* status, int cmp,
                           std::uint64_t value, const void* values, const char* func) noexcept {
  return dispatch(kind, [&](auto t) -> std::size_t {
    using T = decltype(t);
    auto w = make<T>(func, ivars, n, status, cmp, value, values);
    if (!w.any_eligible()) return SIZE_MAX;
    std::size_t found = SIZE_MAX;
    w.block([&] { return (found = w.next_satisfied()) != SIZE_MAX; }, 0);
    return found;
  });
}

std::size_t wait_until_some(WaitKind kind, volatile void* ivars, std::size_t n, std::size_t* indices,
                            const int* status, int cmp, std::uint64_t value, const void* values,
                            const char* func) noexcept {
  return dispatch(kind, [&](auto t) -> std::size_t {
    using T = decltype(t);
    auto w = make<T>(func, ivars, n, status, cmp, value, values);
    if (!w.any_eligible()) return 0;
    w.block([&] { return w.first_satisfied() != SIZE_MAX; }, 0);
    return w.collect(indices);
  });
}

bool test_all(WaitKind kind, volatile void* ivars, std::size_t n, const int* status, int cmp, std::uint64_t value,
              const void* values, const char* func) noexcept {
  return dispatch(kind, [&](auto t) {
    using T = decltype(t);
    return make<T>(func, ivars, n, status, cmp, value, values).first_unsatisfied() == SIZE_MAX;
  });
}

std::size_t test_any(WaitKind kind, volatile void* ivars, std::size_t n, const int* status, int cmp,
                     std::uint64_t value, const void* values, const char* func) noexcept {
  return dispatch(kind, [&](auto t) {
    using T = decltype(t);
    return make<T>(func, ivars, n, status, cmp, value, values).next_satisfied();
  });
}

std::size_t test_some(WaitKind kind, volatile void* ivars, std::size_t n, std::size_t* indices, const int* status,
                      int cmp, std::uint64_t value, const void* values, const char* func) noexcept {
  return dispatch(kind, [&](auto t) {
    using T = decltype(t);
    return make<T>(func, ivars, n, status, cmp, value, values).collect(indices);
  });
}

std::uint64_t signal_wait_until(std::uint64_t* sig_addr, int cmp, std::uint64_t value, const char* func) noexcept {
  auto w = make<std::uint64_t>(func, sig_addr, 1, nullptr, cmp, value, nullptr);
  std::uint64_t seen = 0;
  w.block([&] { return compare(cmp, seen = w.at(0), value); }, 0);
  return seen;
}

}  // namespace shmem::core
