// Blocking point-to-point synchronization: shmem_TYPENAME_wait_until for the point-to-point
// synchronization types, shmem_TYPENAME_wait_until_{all,any,some}[_vector] for the standard AMO
// types, and the deprecated shmem_wait_until (long), shmem_wait, shmem_TYPENAME_wait.
// Each C type maps to a core::WaitKind by its size and signedness (api::wait_kind<T>).
#include "api/shim.hpp"

namespace api = shmem::api;
namespace core = shmem::core;

namespace {
template <class T>
void wait_until(const char* f, T* ivar, int cmp, T value) noexcept {
  if (api::checking()) api::check_wait(f, cmp, "ivar", ivar, sizeof(T));
  else if (core::hot::already(ivar, cmp, value)) return;
  core::wait_until(api::wait_kind<T>(), ivar, cmp, api::widen(value), f);
}
}  // namespace

extern "C" {

#define SHMEM_DEF_WAIT_UNTIL_(T, N)                                     \
  void shmem_##N##_wait_until(T* ivar, int cmp, T cmp_value) noexcept { \
    wait_until<T>(__func__, ivar, cmp, cmp_value);                      \
  }
SHMEM_P2P_TYPE_TABLE(SHMEM_DEF_WAIT_UNTIL_)
#undef SHMEM_DEF_WAIT_UNTIL_

// `values` is null for the scalar-comparand forms and cmp_values for the *_vector forms.
#define SHMEM_DEF_WAIT_MULTI_(T, N, SUFFIX, CMP_PARAM, VALUE, VALUES)                                                \
  void shmem_##N##_wait_until_all##SUFFIX(T* ivars, size_t nelems, const int* status, int cmp,                       \
                                          CMP_PARAM) noexcept {                                                      \
    if (api::checking()) api::check_multi<T>(__func__, ivars, nelems, status, cmp, VALUES, nullptr);                 \
    core::wait_until_all(api::wait_kind<T>(), ivars, nelems, status, cmp, VALUE, VALUES, __func__);                  \
  }                                                                                                                  \
  size_t shmem_##N##_wait_until_any##SUFFIX(T* ivars, size_t nelems, const int* status, int cmp,                     \
                                            CMP_PARAM) noexcept {                                                    \
    if (api::checking()) api::check_multi<T>(__func__, ivars, nelems, status, cmp, VALUES, nullptr);                 \
    return core::wait_until_any(api::wait_kind<T>(), ivars, nelems, status, cmp, VALUE, VALUES, __func__);           \
  }                                                                                                                  \
  size_t shmem_##N##_wait_until_some##SUFFIX(T* ivars, size_t nelems, size_t* indices, const int* status,            \
                                             int cmp, CMP_PARAM) noexcept {                                          \
    if (api::checking()) api::check_multi<T>(__func__, ivars, nelems, status, cmp, VALUES, indices);                 \
    return core::wait_until_some(api::wait_kind<T>(), ivars, nelems, indices, status, cmp, VALUE, VALUES, __func__); \
  }
#define SHMEM_DEF_WAIT_MULTI_TYPE_(T, N)                                                            \
  SHMEM_DEF_WAIT_MULTI_(T, N, , T cmp_value, api::widen(cmp_value), static_cast<const T*>(nullptr)) \
  SHMEM_DEF_WAIT_MULTI_(T, N, _vector, const T* cmp_values, 0, cmp_values)
SHMEM_P2P_MULTI_TYPE_TABLE(SHMEM_DEF_WAIT_MULTI_TYPE_)
#undef SHMEM_DEF_WAIT_MULTI_TYPE_
#undef SHMEM_DEF_WAIT_MULTI_

// Deprecated (1.4): shmem_wait(ivar, v) == wait_until(ivar, SHMEM_CMP_NE, v).
void shmem_wait_until(long* ivar, int cmp, long cmp_value) noexcept {
  wait_until<long>(__func__, ivar, cmp, cmp_value);
}
void shmem_wait(long* ivar, long cmp_value) noexcept {
  wait_until<long>(__func__, ivar, SHMEM_CMP_NE, cmp_value);
}
#define SHMEM_DEF_WAIT_DEPRECATED_(T, N)                    \
  void shmem_##N##_wait(T* ivar, T cmp_value) noexcept {    \
    wait_until<T>(__func__, ivar, SHMEM_CMP_NE, cmp_value); \
  }
SHMEM_WAIT_DEPRECATED_TYPE_TABLE(SHMEM_DEF_WAIT_DEPRECATED_)
#undef SHMEM_DEF_WAIT_DEPRECATED_

}  // extern "C"
