// What the forward and backward problems share: a RowNormCase's tensors with
// deterministic contents, the reference options it implies, and the checks
// of one output and of untouched inputs.
#ifndef HALNORM_TESTS_ROW_NORM_TENSORS_H_
#define HALNORM_TESTS_ROW_NORM_TENSORS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "tests/reference/row_norm_reference.h"
#include "tests/row_norm_cases.h"
#include "tests/test_tensors.h"

namespace halnorm::testutil {

// Fixed seeds: every run of every variant sees the same numbers.
enum Seed : uint32_t {
  kXSeed = 1,
  kWeightSeed,
  kBiasSeed,
  kResidualSeed,
  kDySeed,
  kResidualGradientSeed,
};

// An activation-dtype tensor of the case's shape, all sentinel.
TestTensor ActivationTensor(const RowNormCase& c, absl::Span<const int64_t> strides);
// The same, filled with offset + scale * N(0,1).
TestTensor NormalActivation(const RowNormCase& c, absl::Span<const int64_t> strides, Seed seed,
                            double offset = 0.0, double scale = 1.0);
// Per-column parameters in ParamDtype(c): non-uniform around 1 (weight) or 0
// (bias), so a kernel that drops or transposes them fails. Absent unless
// `present`.
std::optional<TestTensor> WeightTensor(const RowNormCase& c, bool present);
std::optional<TestTensor> BiasTensor(const RowNormCase& c, bool present);
// All-sentinel tensors of the normalized shape in ParamDtype(c) (dweight,
// dbias) or of the statistics shape in f32 (mean, rstd); absent unless
// `present`.
std::optional<TestTensor> ParamTensor(const RowNormCase& c, bool present);
std::optional<TestTensor> StatisticsTensor(const RowNormCase& c, bool present);

reference::Options ReferenceOptions(const RowNormCase& c);

// ExpectClose on the output's elements, then no writes outside its view;
// records the worst error as the test property "<name>_error".
void ExpectOutputClose(const TestTensor& output, absl::Span<const double> expected, double tol,
                       const char* name);

}  // namespace halnorm::testutil

#endif  // HALNORM_TESTS_ROW_NORM_TENSORS_H_
