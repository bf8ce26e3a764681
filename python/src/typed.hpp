#pragma once
// Typed C entry points gathered per C type, generated from the type tables of
// <shmem/shmem_types.h> (never written out per type). A family supports T exactly when its trait
// has the member: `if constexpr (requires { AmoStd<T>::add; })`.
#include <type_traits>

#include "common.hpp"

namespace shmem_py {

// ---- atomics ---------------------------------------------------------------------------------------
template <class T>
struct AmoStd {};
template <class T>
struct AmoExt {};
template <class T>
struct AmoBit {};

#define SHMEM_PY_AMO_STD_(T, N)                                                       \
  template <>                                                                         \
  struct AmoStd<T> {                                                                  \
    static constexpr auto compare_swap = shmem_ctx_##N##_atomic_compare_swap;         \
    static constexpr auto compare_swap_nbi = shmem_ctx_##N##_atomic_compare_swap_nbi; \
    static constexpr auto fetch_inc = shmem_ctx_##N##_atomic_fetch_inc;               \
    static constexpr auto fetch_inc_nbi = shmem_ctx_##N##_atomic_fetch_inc_nbi;       \
    static constexpr auto inc = shmem_ctx_##N##_atomic_inc;                           \
    static constexpr auto fetch_add = shmem_ctx_##N##_atomic_fetch_add;               \
    static constexpr auto fetch_add_nbi = shmem_ctx_##N##_atomic_fetch_add_nbi;       \
    static constexpr auto add = shmem_ctx_##N##_atomic_add;                           \
  };
SHMEM_AMO_STD_TYPE_TABLE_BASE(SHMEM_PY_AMO_STD_)
#undef SHMEM_PY_AMO_STD_

// Extended AMO types = float, double + the standard ones.
#define SHMEM_PY_AMO_EXT_(T, N)                                           \
  template <>                                                             \
  struct AmoExt<T> {                                                      \
    static constexpr auto fetch = shmem_ctx_##N##_atomic_fetch;           \
    static constexpr auto fetch_nbi = shmem_ctx_##N##_atomic_fetch_nbi;   \
    static constexpr auto set = shmem_ctx_##N##_atomic_set;               \
    static constexpr auto swap = shmem_ctx_##N##_atomic_swap;             \
    static constexpr auto swap_nbi = shmem_ctx_##N##_atomic_swap_nbi;     \
  };
SHMEM_AMO_EXT_TYPE_TABLE_BASE(SHMEM_PY_AMO_EXT_)
#undef SHMEM_PY_AMO_EXT_

// Bitwise AMO types: unsigned int/long/long long and int32_t/int64_t (int and long here).
#define SHMEM_PY_AMO_BIT_(T, N)                                                \
  template <>                                                                  \
  struct AmoBit<T> {                                                           \
    static constexpr auto fetch_and = shmem_ctx_##N##_atomic_fetch_and;        \
    static constexpr auto fetch_and_nbi = shmem_ctx_##N##_atomic_fetch_and_nbi; \
    static constexpr auto and_ = shmem_ctx_##N##_atomic_and;                   \
    static constexpr auto fetch_or = shmem_ctx_##N##_atomic_fetch_or;          \
    static constexpr auto fetch_or_nbi = shmem_ctx_##N##_atomic_fetch_or_nbi;  \
    static constexpr auto or_ = shmem_ctx_##N##_atomic_or;                     \
    static constexpr auto fetch_xor = shmem_ctx_##N##_atomic_fetch_xor;        \
    static constexpr auto fetch_xor_nbi = shmem_ctx_##N##_atomic_fetch_xor_nbi; \
    static constexpr auto xor_ = shmem_ctx_##N##_atomic_xor;                   \
  };
SHMEM_AMO_BIT_TYPE_TABLE_BASE(SHMEM_PY_AMO_BIT_)
#undef SHMEM_PY_AMO_BIT_

// ---- point-to-point synchronization ----------------------------------------------------------------
template <class T>
struct P2P {};
template <class T>
struct P2PMulti {};

#define SHMEM_PY_P2P_(T, N)                                    \
  template <>                                                  \
  struct P2P<T> {                                              \
    static constexpr auto wait_until = shmem_##N##_wait_until; \
    static constexpr auto test = shmem_##N##_test;             \
  };
SHMEM_P2P_TYPE_TABLE_BASE(SHMEM_PY_P2P_)
#undef SHMEM_PY_P2P_

// The multi-variable forms take the standard AMO types.
#define SHMEM_PY_P2P_MULTI_(T, N)                                                      \
  template <>                                                                          \
  struct P2PMulti<T> {                                                                 \
    static constexpr auto wait_until_all = shmem_##N##_wait_until_all;                 \
    static constexpr auto wait_until_any = shmem_##N##_wait_until_any;                 \
    static constexpr auto wait_until_some = shmem_##N##_wait_until_some;               \
    static constexpr auto wait_until_all_vector = shmem_##N##_wait_until_all_vector;   \
    static constexpr auto wait_until_any_vector = shmem_##N##_wait_until_any_vector;   \
    static constexpr auto wait_until_some_vector = shmem_##N##_wait_until_some_vector; \
    static constexpr auto test_all = shmem_##N##_test_all;                             \
    static constexpr auto test_any = shmem_##N##_test_any;                             \
    static constexpr auto test_some = shmem_##N##_test_some;                           \
    static constexpr auto test_all_vector = shmem_##N##_test_all_vector;               \
    static constexpr auto test_any_vector = shmem_##N##_test_any_vector;               \
    static constexpr auto test_some_vector = shmem_##N##_test_some_vector;             \
  };
SHMEM_AMO_STD_TYPE_TABLE_BASE(SHMEM_PY_P2P_MULTI_)
#undef SHMEM_PY_P2P_MULTI_

// Calls f(args...) without the GIL and returns its result as a Python object (None for void).
template <class F, class... A>
py::object call_nogil(F f, A... args) {
  using R = std::invoke_result_t<F, A...>;
  if constexpr (std::is_void_v<R>) {
    {
      py::gil_scoped_release nogil;
      f(args...);
    }
    return py::none();
  } else {
    R out{};
    {
      py::gil_scoped_release nogil;
      out = f(args...);
    }
    return py::cast(out);
  }
}

}  // namespace shmem_py
