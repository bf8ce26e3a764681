#pragma once
// float16 and bfloat16: conversions to and from float (round to nearest even, as PyTorch does)
// and the reductions over them. The library's reductions have no 16-bit float types, so these
// convert in the binding: every PE widens its part to float, the float reduction combines them
// (sum and prod accumulate in float, min and max are exact), and the result is rounded once.
#include <bit>
#include <cstdint>
#include <cstring>

#include "common.hpp"

namespace shmem_py {

inline float bf16_to_float(std::uint16_t h) noexcept {
  const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline std::uint16_t float_to_bf16(float f) noexcept {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40);  // quiet NaN
  bits += 0x7fffu + ((bits >> 16) & 1u);  // round to nearest, ties to even
  return static_cast<std::uint16_t>(bits >> 16);
}

inline float f16_to_float(std::uint16_t h) noexcept { return static_cast<float>(std::bit_cast<_Float16>(h)); }
inline std::uint16_t float_to_f16(float f) noexcept { return std::bit_cast<std::uint16_t>(static_cast<_Float16>(f)); }

// Allocates the symmetric scratch the 16-bit reductions use (collective over every PE: called
// right after initialisation).
void half_scratch_init();
// target = op over the team of source, n elements of float16 (bf16 = false) or bfloat16.
// op is "sum", "prod", "max" or "min". Collective over the team.
void half_reduce(const std::string& op, shmem_team_t team, void* target, const void* source, std::size_t n, bool bf16);

}  // namespace shmem_py
