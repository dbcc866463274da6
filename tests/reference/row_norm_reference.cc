#include "tests/reference/row_norm_reference.h"

#include <cmath>
#include <cstdlib>
#include <iostream>

#include "tests/reference/size_checks.h"

namespace halnorm::reference {
namespace {

std::vector<double> EffectiveWeight(const Options& options, absl::Span<const double> weight,
                                    int64_t hidden) {
  std::vector<double> w_eff(hidden, 1.0);
  if (weight.empty()) return w_eff;
  for (int64_t i = 0; i < hidden; ++i) w_eff[i] = weight[i] + options.weight_offset;
  return w_eff;
}

double Mean(const double* values, int64_t count) {
  double sum = 0.0;
  for (int64_t i = 0; i < count; ++i) sum += values[i];
  return sum / static_cast<double>(count);
}

}  // namespace

ForwardResult Forward(const Options& options, const ForwardInputs& in) {
  const int64_t size = in.rows * in.hidden;
  CheckSizes(in.rows >= 0 && in.hidden >= 0 && SizeIs(in.x, size) &&
                 EmptyOrSize(in.residual, size) && EmptyOrSize(in.weight, in.hidden) &&
                 EmptyOrSize(in.bias, in.hidden),
             "Forward");
  const bool layer_norm = options.norm == Norm::kLayerNorm;
  const std::vector<double> w_eff = EffectiveWeight(options, in.weight, in.hidden);

  ForwardResult result;
  std::vector<double> h(in.x.begin(), in.x.end());
  if (!in.residual.empty()) {
    for (int64_t i = 0; i < size; ++i) {
      h[i] = options.residual_alpha * in.x[i] + in.residual[i];
      if (options.store_activation) h[i] = options.store_activation(h[i]);
    }
    result.h = h;
  }
  result.y.resize(size);
  result.rstd.resize(in.rows);
  if (layer_norm) result.mean.resize(in.rows);
  for (int64_t r = 0; r < in.rows; ++r) {
    const double* row = h.data() + r * in.hidden;
    // Two passes in double: exact enough that the kernels' f32 error dominates.
    const double mean = layer_norm ? Mean(row, in.hidden) : 0.0;
    double squares = 0.0;  // of deviations from the mean (RMSNorm: from 0)
    for (int64_t i = 0; i < in.hidden; ++i) squares += (row[i] - mean) * (row[i] - mean);
    const double rstd = 1.0 / std::sqrt(squares / static_cast<double>(in.hidden) + options.eps);
    if (layer_norm) result.mean[r] = mean;
    result.rstd[r] = rstd;
    for (int64_t i = 0; i < in.hidden; ++i) {
      double v = (row[i] - mean) * rstd * w_eff[i];
      if (!in.bias.empty()) v += in.bias[i];
      result.y[r * in.hidden + i] = v;
    }
  }
  return result;
}

BackwardResult Backward(const Options& options, const BackwardInputs& in) {
  const int64_t size = in.rows * in.hidden;
  const bool layer_norm = options.norm == Norm::kLayerNorm;
  CheckSizes(in.rows >= 0 && in.hidden >= 0 && SizeIs(in.dy, size) && SizeIs(in.x, size) &&
                 (layer_norm ? SizeIs(in.mean, in.rows) : in.mean.empty()) &&
                 SizeIs(in.rstd, in.rows) && EmptyOrSize(in.weight, in.hidden) &&
                 EmptyOrSize(in.residual_gradient, size),
             "Backward");
  const std::vector<double> w_eff = EffectiveWeight(options, in.weight, in.hidden);

  BackwardResult result;
  result.dx.resize(size);
  result.dweight.assign(in.hidden, 0.0);
  result.dbias.assign(in.hidden, 0.0);
  std::vector<double> xhat(in.hidden), g(in.hidden), g_xhat(in.hidden);
  for (int64_t r = 0; r < in.rows; ++r) {
    const double* dy = in.dy.data() + r * in.hidden;
    const double* x = in.x.data() + r * in.hidden;
    const double mean = layer_norm ? in.mean[r] : 0.0;
    const double rstd = in.rstd[r];
    for (int64_t i = 0; i < in.hidden; ++i) {
      xhat[i] = (x[i] - mean) * rstd;
      g[i] = dy[i] * w_eff[i];
      g_xhat[i] = g[i] * xhat[i];
      result.dweight[i] += dy[i] * xhat[i];
      result.dbias[i] += dy[i];
    }
    const double mean_g = layer_norm ? Mean(g.data(), in.hidden) : 0.0;
    const double mean_g_xhat = Mean(g_xhat.data(), in.hidden);
    for (int64_t i = 0; i < in.hidden; ++i) {
      double dx = rstd * (g[i] - mean_g - xhat[i] * mean_g_xhat);
      if (!in.residual_gradient.empty()) dx += in.residual_gradient[r * in.hidden + i];
      result.dx[r * in.hidden + i] = dx;
    }
  }
  return result;
}

}  // namespace halnorm::reference
