// Plain double-precision LayerNorm and RMSNorm, forward and backward: the
// oracle the kernels are tested against. Deliberately unoptimized so it is
// obviously right. Every array is a contiguous row-major rows x hidden matrix
// (per-column arrays have `hidden` elements, per-row ones `rows`); values of
// 16-bit tensors are passed as the doubles they represent.
//
// Semantics (those of runtime/halnorm_c.h; "w_eff" is weight +
// weight_offset, or 1 when there is no weight, the offset then ignored):
//
// Forward, on each row:
//   h    = x, or with a residual: round(residual_alpha * x + residual), where
//          round() stores to the activation dtype (the kernels add in f32,
//          then store h to residual_out and normalize the stored value)
//   LayerNorm: mean = mean(h), rstd = 1 / sqrt(biased var(h) + eps)
//              y = (h - mean) * rstd * w_eff + bias   (bias absent: 0)
//   RMSNorm:   rstd = 1 / sqrt(mean(h^2) + eps), y = h * rstd * w_eff
//
// Backward, given dy, the forward's normalized input x (= h: residual_out
// when the forward fused a residual), its mean (LayerNorm) and rstd:
//   xhat = (x - mean) * rstd   (RMSNorm: x * rstd)
//   g    = dy * w_eff
//   LayerNorm: dx = rstd * (g - mean(g) - xhat * mean(g * xhat))
//   RMSNorm:   dx = rstd * (g - xhat * mean(g * xhat))
//   plus, when given, the residual gradient (the gradient arriving at
//   residual_out): dx += dresidual, not scaled by residual_alpha
//   dweight = sum over rows of dy * xhat, dbias = sum over rows of dy
// eps is not used: rstd is an input.
#ifndef HALNORM_TESTS_REFERENCE_ROW_NORM_REFERENCE_H_
#define HALNORM_TESTS_REFERENCE_ROW_NORM_REFERENCE_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/types/span.h"

namespace halnorm::reference {

enum class Norm { kLayerNorm, kRmsNorm };

struct Options {
  Norm norm = Norm::kLayerNorm;
  double eps = 1e-5;  // forward only
  double weight_offset = 0.0;
  double residual_alpha = 1.0;
  // Stores the residual sum h in the activation dtype. Empty: keep the
  // double (finite-difference checks need a smooth forward).
  std::function<double(double)> store_activation;
};

struct ForwardInputs {
  int64_t rows = 0;
  int64_t hidden = 0;
  absl::Span<const double> x;
  absl::Span<const double> residual;  // empty: no fused residual add
  absl::Span<const double> weight;    // empty: none
  absl::Span<const double> bias;      // empty: none; LayerNorm only
};

struct ForwardResult {
  std::vector<double> h;  // residual_out; empty without a residual
  std::vector<double> y;
  std::vector<double> mean;  // LayerNorm; empty for RMSNorm
  std::vector<double> rstd;
};

ForwardResult Forward(const Options& options, const ForwardInputs& inputs);

struct BackwardInputs {
  int64_t rows = 0;
  int64_t hidden = 0;
  absl::Span<const double> dy;
  absl::Span<const double> x;
  absl::Span<const double> mean;  // LayerNorm only
  absl::Span<const double> rstd;
  absl::Span<const double> weight;             // empty: none
  absl::Span<const double> residual_gradient;  // empty: none
};

struct BackwardResult {
  std::vector<double> dx;
  std::vector<double> dweight;  // always computed, whether or not there is a weight
  std::vector<double> dbias;
};

BackwardResult Backward(const Options& options, const BackwardInputs& inputs);

}  // namespace halnorm::reference

#endif  // HALNORM_TESTS_REFERENCE_ROW_NORM_REFERENCE_H_
