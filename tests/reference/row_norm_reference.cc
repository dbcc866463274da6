#include "tests/reference/layer_norm_reference.h"

#include <cmath>
#include <cstdlib>
#include <iostream>

namespace halnorm::reference {

LayerNormForwardResult LayerNormForward(absl::Span<const float> x, int64_t rows, int64_t hidden,
                                        absl::Span<const float> weight,
                                        absl::Span<const float> bias, double eps) {
  // A malformed oracle call is a bug in the test itself: fail loudly.
  const bool sizes_ok = rows >= 0 && hidden >= 0 &&
                        x.size() == static_cast<size_t>(rows * hidden) &&
                        (weight.empty() || weight.size() == static_cast<size_t>(hidden)) &&
                        (bias.empty() || bias.size() == static_cast<size_t>(hidden));
  if (!sizes_ok) {
    std::cerr << "reference::LayerNormForward: inconsistent sizes\n";
    std::abort();
  }

  LayerNormForwardResult result;
  result.y.resize(x.size());
  result.mean.resize(rows);
  result.rstd.resize(rows);
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x.data() + r * hidden;
    // Two passes in double: exact enough that the kernels' f32 error dominates.
    double sum = 0.0;
    for (int64_t i = 0; i < hidden; ++i) sum += row[i];
    const double mean = sum / static_cast<double>(hidden);
    double squared_deviations = 0.0;
    for (int64_t i = 0; i < hidden; ++i) {
      const double d = row[i] - mean;
      squared_deviations += d * d;
    }
    const double var = squared_deviations / static_cast<double>(hidden);  // biased
    const double rstd = 1.0 / std::sqrt(var + eps);
    result.mean[r] = mean;
    result.rstd[r] = rstd;
    for (int64_t i = 0; i < hidden; ++i) {
      double v = (row[i] - mean) * rstd;
      if (!weight.empty()) v *= weight[i];
      if (!bias.empty()) v += bias[i];
      result.y[r * hidden + i] = v;
    }
  }
  return result;
}

}  // namespace halnorm::reference
