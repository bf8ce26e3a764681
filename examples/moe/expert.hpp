#pragma once
// The experts: expert e maps x to x * scale(e) + bias(e), element by element. Used by the expert
// kernel and by the owners' reference alike. Token values are integers in -32..31, so every
// result is an integer below 2^13 in magnitude: exact in a float.
#include <cstddef>

namespace moe {

inline float expert_scale(int e) { return static_cast<float>(1 + e % 7); }
inline float expert_bias(int e) { return static_cast<float>(e + 1); }

inline void apply_expert(int e, const float* x, float* y, std::size_t n) {
  const float s = expert_scale(e), b = expert_bias(e);
  for (std::size_t i = 0; i < n; ++i) y[i] = x[i] * s + b;
}

}  // namespace moe
