// Plain double-precision LayerNorm2d, forward and backward, for the three
// normalized axis sets of halnorm_layer_norm2d_*: the oracle its kernels are
// tested against. Every normalized set is gathered into a row and handed to
// the row-norm reference (row_norm_reference.h), so the statistics and the
// dx formula are the same code LayerNorm is checked with; only the per-
// channel affine and its gradients are computed here.
//
// x, y, dy and dx are contiguous NCHW arrays; weight, bias, dweight and
// dbias have C elements (per channel, for every axes). mean and rstd are
// contiguous arrays of the statistics shape: [N,H,W] for kC, [N] for kChw,
// [N,C] for kHw. 16-bit values are passed as the doubles they represent.
//
// Forward, on each normalized set S (the C values of a pixel; all C*H*W
// values of a sample; the H*W values of a channel of a sample):
//   mean = mean(x over S), rstd = 1 / sqrt(biased var(x over S) + eps)
//   y = (x - mean) * rstd * w[c] + b[c]   (absent weight: 1, bias: 0)
// Backward, given the forward's mean and rstd:
//   xhat = (x - mean) * rstd, g = dy * w[c]
//   dx = rstd * (g - mean(g over S) - xhat * mean(g * xhat over S))
//   dweight[c] = sum of dy * xhat over every element of channel c
//   dbias[c]   = sum of dy over every element of channel c
#ifndef HALNORM_TESTS_REFERENCE_LAYER_NORM2D_REFERENCE_H_
#define HALNORM_TESTS_REFERENCE_LAYER_NORM2D_REFERENCE_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "tests/reference/row_norm_reference.h"

namespace halnorm::reference {

// The sets normalized together (halnorm_axes, without depending on the runtime).
enum class Axes2d { kC, kChw, kHw };

struct Nchw {
  int64_t n = 0, c = 0, h = 0, w = 0;
};

// The NCHW array as a rows x hidden matrix, one normalized set per row, in
// the order of the statistics: element (r, i) of the matrix is
// nchw_index[r * hidden + i] of the array, in channel channel[r * hidden + i].
struct RowLayout {
  int64_t rows = 0;
  int64_t hidden = 0;
  std::vector<int64_t> nchw_index;
  std::vector<int64_t> channel;
};

RowLayout LayerNorm2dRows(Axes2d axes, const Nchw& shape);

// What the statistics shape is for `axes` ([N,H,W], [N] or [N,C]).
std::vector<int64_t> LayerNorm2dStatisticsShape(Axes2d axes, const Nchw& shape);

struct LayerNorm2dForwardInputs {
  Nchw shape;
  absl::Span<const double> x;
  absl::Span<const double> weight;  // empty: none
  absl::Span<const double> bias;    // empty: none
};

// y in NCHW order, mean and rstd in statistics order; h is empty.
ForwardResult LayerNorm2dForward(Axes2d axes, double eps, const LayerNorm2dForwardInputs& inputs);

struct LayerNorm2dBackwardInputs {
  Nchw shape;
  absl::Span<const double> dy;
  absl::Span<const double> x;
  absl::Span<const double> mean;
  absl::Span<const double> rstd;
  absl::Span<const double> weight;  // empty: none
};

// dx in NCHW order; dweight and dbias always computed.
BackwardResult LayerNorm2dBackward(Axes2d axes, const LayerNorm2dBackwardInputs& inputs);

}  // namespace halnorm::reference

#endif  // HALNORM_TESTS_REFERENCE_LAYER_NORM2D_REFERENCE_H_
