#pragma once
// Checking a computed C against the double-precision reference, row by row.
#include <cstddef>
#include <string>
#include <vector>

#include "problem.hpp"

namespace mc2 {

// The rows to check: `requested` rows spread evenly over [0, M) including the first and the last
// (all of them when requested >= M); requested == 0 means all rows when M·N·K <= 2^26, else 16.
std::vector<std::size_t> rows_to_check(const Shape& s, std::size_t requested);

// Holds the reference rows for one set of rows and compares results with them.
class Checker {
 public:
  Checker(const Shape& s, std::vector<std::size_t> rows);

  struct Result {
    double max_abs_error = 0;  // over the checked elements (infinite for a NaN)
    std::size_t wrong = 0;     // elements further than the tolerance from the reference
    std::string first_wrong;   // "C[i,j] = x, expected y" for the first of them
  };
  // c: the whole M x N result, row-major.
  Result check(const float* c) const;

  const std::vector<std::size_t>& rows() const { return rows_; }
  double tolerance() const { return tolerance_; }

 private:
  Shape shape_;
  std::vector<std::size_t> rows_;
  std::vector<double> ref_;  // rows_.size() x N
  double tolerance_;
};

}  // namespace mc2
