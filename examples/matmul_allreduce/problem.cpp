#include "problem.hpp"

#include <cstdint>

namespace mc2 {
namespace {

// A 32-bit integer hash (xor-shift-multiply): neighbouring indices give unrelated values, so a
// tile written to the wrong place cannot match by a short period.
std::uint32_t mix(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

}  // namespace

KSlice k_slice(std::size_t k, int pe, int npes) {
  const auto p = static_cast<std::size_t>(pe), np = static_cast<std::size_t>(npes);
  const std::size_t base = k / np, extra = k % np;
  return {p * base + (p < extra ? p : extra), base + (p < extra ? 1 : 0)};
}

float a_value(std::size_t i, std::size_t k) {
  const std::uint32_t h = mix(static_cast<std::uint32_t>(i) * 0x9E3779B1U + static_cast<std::uint32_t>(k));
  return static_cast<float>(static_cast<int>(h % 5U) - 2);
}

float b_value(std::size_t k, std::size_t j) {
  const std::uint32_t h = mix(static_cast<std::uint32_t>(k) * 0x85EBCA77U + static_cast<std::uint32_t>(j) + 0x632BE5ABU);
  return static_cast<float>(static_cast<int>(h % 7U) - 3);
}

std::vector<float> make_a(const Shape& s, KSlice slice) {
  std::vector<float> a(s.m * slice.kn);
  for (std::size_t i = 0; i < s.m; ++i)
    for (std::size_t p = 0; p < slice.kn; ++p) a[i * slice.kn + p] = a_value(i, slice.k0 + p);
  return a;
}

std::vector<float> make_b(const Shape& s, KSlice slice) {
  std::vector<float> b(slice.kn * s.n);
  for (std::size_t p = 0; p < slice.kn; ++p)
    for (std::size_t j = 0; j < s.n; ++j) b[p * s.n + j] = b_value(slice.k0 + p, j);
  return b;
}

std::vector<double> reference_rows(const Shape& s, const std::vector<std::size_t>& rows) {
  std::vector<double> ref(rows.size() * s.n, 0.0);
  std::vector<double> brow(s.n);
  for (std::size_t k = 0; k < s.k; ++k) {  // one row of B at a time, used by every requested row
    for (std::size_t j = 0; j < s.n; ++j) brow[j] = b_value(k, j);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const double a = a_value(rows[r], k);
      double* out = ref.data() + r * s.n;
      for (std::size_t j = 0; j < s.n; ++j) out[j] += a * brow[j];
    }
  }
  return ref;
}

double tolerance(const Shape& s) {
  const double bound = 6.0 * static_cast<double>(s.k);  // |any partial sum| <= 6 K
  if (bound <= 16777216.0) return 0.0;                    // 2^24: every partial sum is exact in float
  return static_cast<double>(s.k) * bound * 0x1p-24;
}

}  // namespace mc2
