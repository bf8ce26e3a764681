// Nonblocking point-to-point synchronization: shmem_TYPENAME_test for the point-to-point
// synchronization types and shmem_TYPENAME_test_{all,any,some}[_vector] for the standard AMO
// types. test_all returns 1 for an empty test set (1.6 clarification); test_any returns SIZE_MAX
// and test_some 0 when nothing is satisfied.
#include "api/shim.hpp"

namespace api = shmem::api;
namespace core = shmem::core;

extern "C" {

#define SHMEM_DEF_TEST_(T, N)                                                                   \
  int shmem_##N##_test(T* ivar, int cmp, T cmp_value) noexcept {                                \
    if (api::checking()) {                                                                      \
      api::check_wait(__func__, cmp, "ivar", ivar, sizeof(T));                                  \
    } else if (const int now = core::hot::test(ivar, cmp, cmp_value); now >= 0) {               \
      return now;                                                                               \
    }                                                                                           \
    return core::test(api::wait_kind<T>(), ivar, cmp, api::widen(cmp_value), __func__) ? 1 : 0; \
  }
SHMEM_P2P_TYPE_TABLE(SHMEM_DEF_TEST_)
#undef SHMEM_DEF_TEST_

// `values` is null for the scalar-comparand forms and cmp_values for the *_vector forms.
#define SHMEM_DEF_TEST_MULTI_(T, N, SUFFIX, CMP_PARAM, VALUE, VALUES)                                          \
  int shmem_##N##_test_all##SUFFIX(T* ivars, size_t nelems, const int* status, int cmp,                        \
                                   CMP_PARAM) noexcept {                                                       \
    if (api::checking()) api::check_multi<T>(__func__, ivars, nelems, status, cmp, VALUES, nullptr);           \
    return core::test_all(api::wait_kind<T>(), ivars, nelems, status, cmp, VALUE, VALUES, __func__) ? 1 : 0;   \
  }                                                                                                            \
  size_t shmem_##N##_test_any##SUFFIX(T* ivars, size_t nelems, const int* status, int cmp,                     \
                                      CMP_PARAM) noexcept {                                                    \
    if (api::checking()) api::check_multi<T>(__func__, ivars, nelems, status, cmp, VALUES, nullptr);           \
    return core::test_any(api::wait_kind<T>(), ivars, nelems, status, cmp, VALUE, VALUES, __func__);           \
  }                                                                                                            \
  size_t shmem_##N##_test_some##SUFFIX(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,   \
                                       CMP_PARAM) noexcept {                                                   \
    if (api::checking()) api::check_multi<T>(__func__, ivars, nelems, status, cmp, VALUES, indices);           \
    return core::test_some(api::wait_kind<T>(), ivars, nelems, indices, status, cmp, VALUE, VALUES, __func__); \
  }
#define SHMEM_DEF_TEST_MULTI_TYPE_(T, N)                                                            \
  SHMEM_DEF_TEST_MULTI_(T, N, , T cmp_value, api::widen(cmp_value), static_cast<const T*>(nullptr)) \
  SHMEM_DEF_TEST_MULTI_(T, N, _vector, const T* cmp_values, 0, cmp_values)
SHMEM_P2P_MULTI_TYPE_TABLE(SHMEM_DEF_TEST_MULTI_TYPE_)
#undef SHMEM_DEF_TEST_MULTI_TYPE_
#undef SHMEM_DEF_TEST_MULTI_

}  // extern "C"
