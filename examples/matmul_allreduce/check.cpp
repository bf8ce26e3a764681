#include "check.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

namespace mc2 {

std::vector<std::size_t> rows_to_check(const Shape& s, std::size_t requested) {
  if (requested == 0) {
    const double work = static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
    requested = work <= 67108864.0 ? s.m : 16;  // 2^26 multiply-adds: a fraction of a second
  }
  std::vector<std::size_t> rows;
  if (requested >= s.m) {
    for (std::size_t i = 0; i < s.m; ++i) rows.push_back(i);
    return rows;
  }
  if (requested == 1) return {0};
  for (std::size_t r = 0; r < requested; ++r) {
    const std::size_t i = r * (s.m - 1) / (requested - 1);  // strictly increasing since requested < M
    rows.push_back(i);
  }
  return rows;
}

Checker::Checker(const Shape& s, std::vector<std::size_t> rows)
    : shape_(s), rows_(std::move(rows)), ref_(reference_rows(s, rows_)), tolerance_(mc2::tolerance(s)) {}

Checker::Result Checker::check(const float* c) const {
  Result r;
  for (std::size_t x = 0; x < rows_.size(); ++x) {
    const std::size_t i = rows_[x];
    for (std::size_t j = 0; j < shape_.n; ++j) {
      const double got = c[i * shape_.n + j], want = ref_[x * shape_.n + j];
      double err = std::fabs(got - want);
      if (std::isnan(err)) err = std::numeric_limits<double>::infinity();
      if (err > r.max_abs_error) r.max_abs_error = err;
      if (err > tolerance_) {
        if (r.wrong++ == 0) {
          char msg[128];
          std::snprintf(msg, sizeof msg, "C[%zu,%zu] = %g, expected %g", i, j, got, want);
          r.first_wrong = msg;
        }
      }
    }
  }
  return r;
}

}  // namespace mc2
