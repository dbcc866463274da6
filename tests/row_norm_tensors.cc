#include "tests/row_norm_tensors.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "tests/tolerance.h"

namespace halnorm::testutil {

TestTensor ActivationTensor(const RowNormCase& c, absl::Span<const int64_t> strides) {
  return TestTensor(c.shape, strides, c.data_offset, c.dtype);
}

TestTensor NormalActivation(const RowNormCase& c, absl::Span<const int64_t> strides, Seed seed,
                            double offset, double scale) {
  TestTensor tensor = ActivationTensor(c, strides);
  FillNormal(tensor, seed, offset, scale);
  return tensor;
}

std::optional<TestTensor> WeightTensor(const RowNormCase& c, bool present) {
  std::optional<TestTensor> weight = ParamTensor(c, present);
  if (weight) FillNormal(*weight, kWeightSeed, /*offset=*/1.0, /*scale=*/0.5);
  return weight;
}

std::optional<TestTensor> BiasTensor(const RowNormCase& c, bool present) {
  std::optional<TestTensor> bias = ParamTensor(c, present);
  if (bias) FillNormal(*bias, kBiasSeed, /*offset=*/0.0, /*scale=*/0.5);
  return bias;
}

std::optional<TestTensor> ParamTensor(const RowNormCase& c, bool present) {
  if (!present) return std::nullopt;
  return TestTensor(NormalizedShape(c), /*strides=*/{}, c.data_offset, ParamDtype(c));
}

std::optional<TestTensor> StatisticsTensor(const RowNormCase& c, bool present) {
  if (!present) return std::nullopt;
  return TestTensor(StatisticsShape(c), c.stats_strides, c.data_offset, HALNORM_F32);
}

reference::Options ReferenceOptions(const RowNormCase& c) {
  reference::Options options;
  options.norm =
      c.op == internal::Op::kLayerNorm ? reference::Norm::kLayerNorm : reference::Norm::kRmsNorm;
  options.eps = c.eps;
  options.weight_offset = c.weight_offset;
  options.residual_alpha = c.residual_alpha;
  const halnorm_dtype dtype = c.dtype;
  // The kernels add in f32, then store h: round to f32 first, then the dtype.
  options.store_activation = [dtype](double h) {
    return RoundToDtype(static_cast<float>(h), dtype);
  };
  return options;
}

void ExpectOutputClose(const TestTensor& output, absl::Span<const double> expected, double tol,
                       const char* name) {
  const double error = ExpectClose(Gather(*output.view()), expected, tol, name);
  ::testing::Test::RecordProperty(absl::StrCat(name, "_error"), absl::StrFormat("%.3g", error));
  EXPECT_EQ(CountPaddingWrites(output), 0) << name << "'s storage written outside its view";
}

}  // namespace halnorm::testutil
