#pragma once
// The problem: C = A·B with A (M x K) and B (K x N) defined element by element from their global
// indices, K split across the PEs. Every PE can build its own K-slice of A and B and compute any
// row of the exact C without communicating.
#include <cstddef>
#include <vector>

namespace mc2 {

struct Shape {
  std::size_t m = 0, k = 0, n = 0;
};

// PE `pe`'s share of the K dimension: columns [k0, k0 + kn) of A and rows of B. The first
// K % npes PEs get one more (a PE may get none when K < npes).
struct KSlice {
  std::size_t k0 = 0, kn = 0;
};
KSlice k_slice(std::size_t k, int pe, int npes);

// Small integers, A in [-2, 2] and B in [-3, 3], from a hash of the indices: every product and
// every partial sum of a row of C is an integer of magnitude <= 6 K, exact in float while
// 6 K <= 2^24 (K <= 2796202), so the float GEMM can be checked exactly.
float a_value(std::size_t i, std::size_t k);
float b_value(std::size_t k, std::size_t j);

// This PE's operands, row-major: A[:, slice] is M x kn, B[slice, :] is kn x N.
std::vector<float> make_a(const Shape& s, KSlice slice);
std::vector<float> make_b(const Shape& s, KSlice slice);

// Rows `rows` of the whole C (all of K), in double: rows.size() x N, row-major.
std::vector<double> reference_rows(const Shape& s, const std::vector<std::size_t>& rows);

// The largest |error| a correct float result may show: 0 while it is exact (see above), else
// the worst-case rounding bound of K float additions of values up to 6 K.
double tolerance(const Shape& s);

}  // namespace mc2
