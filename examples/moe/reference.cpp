#include "reference.hpp"

#include <algorithm>
#include <cstdio>

#include "expert.hpp"

namespace moe {

long check_outputs(const MoeShape& shape, int me, int epoch, const std::vector<float>& x, const Routing& routing,
                   const std::vector<float>& out) {
  constexpr int kMaxReports = 4;
  const auto d = static_cast<std::size_t>(shape.hidden);
  const auto k = static_cast<std::size_t>(shape.topk);
  std::vector<float> y(d), want(d);
  long wrong = 0;
  int reported = 0;
  for (std::size_t t = 0; t < static_cast<std::size_t>(shape.tokens); ++t) {
    std::fill(want.begin(), want.end(), 0.0f);
    for (std::size_t j = 0; j < k; ++j) {
      apply_expert(routing.expert[t * k + j], &x[t * d], y.data(), d);
      for (std::size_t i = 0; i < d; ++i) want[i] += routing.weight[t * k + j] * y[i];
    }
    long bad = 0;
    std::size_t first_bad = 0;
    for (std::size_t i = 0; i < d; ++i)
      if (out[t * d + i] != want[i] && bad++ == 0) first_bad = i;
    wrong += bad;
    if (bad != 0 && reported++ < kMaxReports) {
      std::printf("FAILED: PE %d iteration %d: token %zu has %ld wrong floats; float %zu is %g, expected %g "
                  "(experts",
                  me, epoch, t, bad, first_bad, static_cast<double>(out[t * d + first_bad]),
                  static_cast<double>(want[first_bad]));
      for (std::size_t j = 0; j < k; ++j)
        std::printf(" %d (PE %d, weight %g)", routing.expert[t * k + j],
                    routing.expert[t * k + j] / shape.experts_per_pe, static_cast<double>(routing.weight[t * k + j]));
      std::printf(")\n");
    }
  }
  return wrong;
}

}  // namespace moe
