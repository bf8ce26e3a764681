// Point-to-point waits and tests of aclshmem.h for Ascend SHMEM's P2P type list (float, int8, int16,
// int32, int64, uint8, uint16, uint32, uint64, char): aclshmem_TYPENAME_wait_until, _wait,
// _wait_until_{all,any,some}[_vector], _test, _test_{any,some}, _test_{all,any,some}_vector, with
// results through Ascend SHMEM's out-pointers. 16-, 32- and 64-bit integers go to the core's waits.
#include <cstddef>
#include <cstdint>

#include "api/acl_shim.hpp"
#include "core/runtime.hpp"
#include "core/wait.hpp"

namespace acl = shmem::acl;
namespace api = shmem::api;
namespace core = shmem::core;

namespace {

// One wait/test request: nelems words at ivars, compared with `value` (or values[i] for the
// _vector forms), element i excluded when status[i] != 0.
template <class T>
struct Req {
  const char* f;
  T* ivars;
  std::size_t n;
  const int* status;
  int cmp;
  T value;
  const T* values;  // nullptr: compare with value
};

template <class T>
constexpr core::WaitKind core_kind() noexcept {
  static_assert(acl::kCoreWaitType<T>);
  if constexpr (std::is_signed_v<T>)
    return sizeof(T) == 2 ? core::WaitKind::kI16 : sizeof(T) == 4 ? core::WaitKind::kI32 : core::WaitKind::kI64;
  else
    return sizeof(T) == 2 ? core::WaitKind::kU16 : sizeof(T) == 4 ? core::WaitKind::kU32 : core::WaitKind::kU64;
}

// ---- types without a core wait kind: int8, uint8, char, float -----------------------------------
// A stop-gap until core::WaitKind grows 8-bit and float kinds (then these forward like the
// others): the same scan over the words, the same back-off and watchdog (core/wait.hpp).
namespace local {

template <class T>
T load(const T* p) noexcept {
  T v;
  __atomic_load(const_cast<T*>(p), &v, __ATOMIC_ACQUIRE);
  return v;
}
template <class T>
bool holds(int cmp, T a, T b) noexcept {
  switch (cmp) {
    case ACLSHMEM_CMP_EQ: return a == b;
    case ACLSHMEM_CMP_NE: return a != b;
    case ACLSHMEM_CMP_GT: return a > b;
    case ACLSHMEM_CMP_GE: return a >= b;
    case ACLSHMEM_CMP_LT: return a < b;
    case ACLSHMEM_CMP_LE: return a <= b;
  }
  return false;
}
template <class T>
bool eligible(const Req<T>& r, std::size_t i) noexcept {
  return r.status == nullptr || r.status[i] == 0;
}
template <class T>
bool satisfied(const Req<T>& r, std::size_t i) noexcept {
  return holds<T>(r.cmp, load(r.ivars + i), r.values ? r.values[i] : r.value);
}
template <class T>
std::size_t first_satisfied(const Req<T>& r) noexcept {
  for (std::size_t i = 0; i < r.n; ++i)
    if (eligible(r, i) && satisfied(r, i)) return i;
  return SIZE_MAX;
}
template <class T>
bool any_eligible(const Req<T>& r) noexcept {
  for (std::size_t i = 0; i < r.n; ++i)
    if (eligible(r, i)) return true;
  return false;
}
template <class T>
std::size_t collect(const Req<T>& r, std::size_t* indices) noexcept {
  std::size_t k = 0;
  for (std::size_t i = 0; i < r.n; ++i)
    if (eligible(r, i) && satisfied(r, i)) indices[k++] = i;
  return k;
}
// Element `pending` onwards: once satisfied, an element is not re-checked (the _all semantics).
template <class T>
bool all_from(const Req<T>& r, std::size_t& pending) noexcept {
  while (pending < r.n && (!eligible(r, pending) || satisfied(r, pending))) ++pending;
  return pending >= r.n;
}
template <class T, class Done>
void block(const Req<T>& r, Done&& done) noexcept {
  shmem::Runtime& rt = core::rt(r.f);
  shmem::wait_for(rt.wait_policy(), done, [&](double waited) {
    core::fatal(r.f, "timed out after %.1f s (SHMEM_WAIT_TIMEOUT=%g): PE %d waited on %s", waited,
                rt.wait_policy().timeout_s, rt.my_pe(), rt.describe(r.ivars).c_str());
  });
}

}  // namespace local

// ---- the operations: checked-mode checks, then the core (or the stop-gap) --------------------------
template <class T>
void check(const Req<T>& r, const std::size_t* indices) noexcept {
  acl::check_cmp(r.f, r.cmp);
  if (api::checking()) api::check_multi<T>(r.f, r.ivars, r.n, r.status, r.cmp, r.values, indices);
}

template <class T>
void wait_all(const Req<T>& r) noexcept {
  check(r, nullptr);
  if constexpr (acl::kCoreWaitType<T>) {
    core::wait_until_all(core_kind<T>(), r.ivars, r.n, r.status, r.cmp, api::widen(r.value), r.values);
  } else {
    std::size_t pending = 0;
    local::block(r, [&] { return local::all_from(r, pending); });
  }
}
template <class T>
std::size_t wait_any(const Req<T>& r) noexcept {
  check(r, nullptr);
  if constexpr (acl::kCoreWaitType<T>) {
    return core::wait_until_any(core_kind<T>(), r.ivars, r.n, r.status, r.cmp, api::widen(r.value), r.values);
  } else {
    if (!local::any_eligible(r)) return SIZE_MAX;
    std::size_t found = SIZE_MAX;
    local::block(r, [&] { return (found = local::first_satisfied(r)) != SIZE_MAX; });
    return found;
  }
}
template <class T>
std::size_t wait_some(const Req<T>& r, std::size_t* indices) noexcept {
  check(r, indices);
  if constexpr (acl::kCoreWaitType<T>) {
    return core::wait_until_some(core_kind<T>(), r.ivars, r.n, indices, r.status, r.cmp, api::widen(r.value),
                                 r.values);
  } else {
    if (!local::any_eligible(r)) return 0;
    local::block(r, [&] { return local::first_satisfied(r) != SIZE_MAX; });
    return local::collect(r, indices);
  }
}
template <class T>
bool test_all(const Req<T>& r) noexcept {
  check(r, nullptr);
  if constexpr (acl::kCoreWaitType<T>) {
    return core::test_all(core_kind<T>(), r.ivars, r.n, r.status, r.cmp, api::widen(r.value), r.values);
  } else {
    std::size_t pending = 0;
    return local::all_from(r, pending);
  }
}
template <class T>
std::size_t test_any(const Req<T>& r) noexcept {
  check(r, nullptr);
  if constexpr (acl::kCoreWaitType<T>)
    return core::test_any(core_kind<T>(), r.ivars, r.n, r.status, r.cmp, api::widen(r.value), r.values);
  else
    return local::first_satisfied(r);
}
template <class T>
std::size_t test_some(const Req<T>& r, std::size_t* indices) noexcept {
  check(r, indices);
  if constexpr (acl::kCoreWaitType<T>)
    return core::test_some(core_kind<T>(), r.ivars, r.n, indices, r.status, r.cmp, api::widen(r.value), r.values);
  else
    return local::collect(r, indices);
}

template <class R>
void store(R* out, R value) noexcept {
  if (out != nullptr) *out = value;
}

}  // namespace

extern "C" {

// Scalar forms are the one-element _all forms; _wait is wait_until(NE).
#define ACL_DEF_P2P_(T, NAME)                                                                                    \
  void aclshmem_##NAME##_wait_until(T* ivar, int cmp, T cmp_value) noexcept {                                    \
    wait_all(Req<T>{__func__, ivar, 1, nullptr, cmp, cmp_value, nullptr});                                      \
  }                                                                                                              \
  void aclshmem_##NAME##_wait(T* ivar, T cmp_value) noexcept {                                                   \
    wait_all(Req<T>{__func__, ivar, 1, nullptr, ACLSHMEM_CMP_NE, cmp_value, nullptr});                           \
  }                                                                                                              \
  void aclshmem_##NAME##_wait_until_all(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value)        \
      noexcept {                                                                                                 \
    wait_all(Req<T>{__func__, ivars, nelems, status, cmp, cmp_value, nullptr});                                  \
  }                                                                                                              \
  void aclshmem_##NAME##_wait_until_any(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value,        \
                                        size_t* res_out) noexcept {                                              \
    store(res_out, wait_any(Req<T>{__func__, ivars, nelems, status, cmp, cmp_value, nullptr}));                  \
  }                                                                                                              \
  void aclshmem_##NAME##_wait_until_some(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,   \
                                         T cmp_value, size_t* res_out) noexcept {                                \
    store(res_out, wait_some(Req<T>{__func__, ivars, nelems, status, cmp, cmp_value, nullptr}, indices));        \
  }                                                                                                              \
  void aclshmem_##NAME##_wait_until_all_vector(T* ivars, size_t nelems, const int* status, int cmp,              \
                                               const T* cmp_values) noexcept {                                   \
    wait_all(Req<T>{__func__, ivars, nelems, status, cmp, T{}, cmp_values});                                     \
  }                                                                                                              \
  void aclshmem_##NAME##_wait_until_any_vector(T* ivars, size_t nelems, const int* status, int cmp,              \
                                               const T* cmp_values, size_t* res_out) noexcept {                  \
    store(res_out, wait_any(Req<T>{__func__, ivars, nelems, status, cmp, T{}, cmp_values}));                     \
  }                                                                                                              \
  void aclshmem_##NAME##_wait_until_some_vector(T* ivars, size_t nelems, size_t* indices, const int* status,     \
                                                int cmp, const T* cmp_values, size_t* res_out) noexcept {        \
    store(res_out, wait_some(Req<T>{__func__, ivars, nelems, status, cmp, T{}, cmp_values}, indices));           \
  }                                                                                                              \
  void aclshmem_##NAME##_test(T* ivar, int cmp, T cmp_value, int* res_out) noexcept {                            \
    store(res_out, test_all(Req<T>{__func__, ivar, 1, nullptr, cmp, cmp_value, nullptr}) ? 1 : 0);               \
  }                                                                                                              \
  void aclshmem_##NAME##_test_any(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value,              \
                                  size_t* res_out) noexcept {                                                    \
    store(res_out, test_any(Req<T>{__func__, ivars, nelems, status, cmp, cmp_value, nullptr}));                  \
  }                                                                                                              \
  void aclshmem_##NAME##_test_some(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,         \
                                   T cmp_value, size_t* res_out) noexcept {                                      \
    store(res_out, test_some(Req<T>{__func__, ivars, nelems, status, cmp, cmp_value, nullptr}, indices));        \
  }                                                                                                              \
  void aclshmem_##NAME##_test_all_vector(T* ivars, size_t nelems, const int* status, int cmp, const T* cmp_values, \
                                         int* res_out) noexcept {                                                \
    store(res_out, test_all(Req<T>{__func__, ivars, nelems, status, cmp, T{}, cmp_values}) ? 1 : 0);            \
  }                                                                                                              \
  void aclshmem_##NAME##_test_any_vector(T* ivars, size_t nelems, const int* status, int cmp, const T* cmp_values, \
                                         size_t* res_out) noexcept {                                             \
    store(res_out, test_any(Req<T>{__func__, ivars, nelems, status, cmp, T{}, cmp_values}));                     \
  }                                                                                                              \
  void aclshmem_##NAME##_test_some_vector(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,  \
                                          const T* cmp_values, size_t* res_out) noexcept {                       \
    store(res_out, test_some(Req<T>{__func__, ivars, nelems, status, cmp, T{}, cmp_values}, indices));           \
  }
ACLSHMEM_P2P_SYNC_TYPE_TABLE(ACL_DEF_P2P_)
#undef ACL_DEF_P2P_

}  // extern "C"
