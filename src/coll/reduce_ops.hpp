#pragma once
// The element operations of the reductions and scans, and the core::Combine callback built from
// them: combine<T, Op> does out[i] = Op(a[i], b[i]). The shims instantiate it once per
// (type, operation) pair of the spec's tables (src/api, src/stream); the algorithms only move bytes
// and call it.
//
// Integer SUM and PROD wrap around (two's complement) instead of overflowing: they are computed
// in the unsigned type of at least int's width, which is defined behaviour for every input (a
// signed overflow, or a promotion of unsigned short to int, would not be). MAX and MIN of
// floating-point values follow operator<, so a NaN operand gives an unspecified one of the two.
#include <complex>
#include <cstddef>
#include <type_traits>

#include "coll/ops.hpp"

namespace shmem::coll {

template <class T>
using Wide = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

struct OpAnd {
  template <class T>
  static T apply(T a, T b) noexcept { return static_cast<T>(a & b); }
};
struct OpOr {
  template <class T>
  static T apply(T a, T b) noexcept { return static_cast<T>(a | b); }
};
struct OpXor {
  template <class T>
  static T apply(T a, T b) noexcept { return static_cast<T>(a ^ b); }
};
struct OpMax {
  template <class T>
  static T apply(T a, T b) noexcept { return a < b ? b : a; }
};
struct OpMin {
  template <class T>
  static T apply(T a, T b) noexcept { return b < a ? b : a; }
};
struct OpSum {
  template <class T>
  static T apply(T a, T b) noexcept {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(static_cast<Wide<T>>(static_cast<Wide<T>>(a) + static_cast<Wide<T>>(b)));
    else
      return a + b;
  }
};
struct OpProd {
  template <class T>
  static T apply(T a, T b) noexcept {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(static_cast<Wide<T>>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b)));
    else
      return a * b;
  }
};

template <class T, class Op>
void combine(void* out, const void* a, const void* b, std::size_t n) noexcept {
  T* o = static_cast<T*>(out);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  for (std::size_t i = 0; i < n; ++i) o[i] = Op::apply(x[i], y[i]);
}

// Every instantiation must fit the core's callback type exactly.
static_assert(std::is_same_v<decltype(&combine<int, OpSum>), core::Combine>);

}  // namespace shmem::coll
