// Plain double-precision LayerNorm forward: the oracle the kernels are tested
// against. Deliberately unoptimized so it is obviously right.
#ifndef HALNORM_TESTS_REFERENCE_LAYER_NORM_REFERENCE_H_
#define HALNORM_TESTS_REFERENCE_LAYER_NORM_REFERENCE_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace halnorm::reference {

struct LayerNormForwardResult {
  std::vector<double> y;     // rows x hidden, row-major
  std::vector<double> mean;  // one per row
  std::vector<double> rstd;  // one per row: 1 / sqrt(biased var + eps)
};

// x is a contiguous row-major rows x hidden matrix. weight and bias have
// `hidden` elements or are empty (absent). PyTorch semantics: biased
// variance, eps inside the square root.
LayerNormForwardResult LayerNormForward(absl::Span<const float> x, int64_t rows, int64_t hidden,
                                        absl::Span<const float> weight,
                                        absl::Span<const float> bias, double eps);

}  // namespace halnorm::reference

#endif  // HALNORM_TESTS_REFERENCE_LAYER_NORM_REFERENCE_H_
