// A second oracle for the backward kernels: LayerNorm and RMSNorm forward
// written as plain Halide Funcs (f32, JIT-compiled, independent of
// generators/), differentiated by Halide's propagate_adjoints. The derived
// dx, dweight and dbias must match the hand-written backward kernels.
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "Halide.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/halnorm_c.h"
#include "runtime/row_norm.h"
#include "runtime/variant_registry.h"
#include "tests/test_tensors.h"
#include "tests/tolerance.h"

namespace halnorm {
namespace {

using internal::Direction;
using internal::Op;
using testutil::TestTensor;

constexpr int kRows = 7;
constexpr int kHidden = 37;
constexpr float kEps = 1e-5f;

// A dense Halide buffer of `values`, innermost dimension first (hidden, rows).
Halide::Buffer<float> ToHalide(const std::vector<float>& values, std::vector<int> sizes) {
  Halide::Buffer<float> buffer(sizes);
  std::copy(values.begin(), values.end(), buffer.data());
  return buffer;
}

std::vector<double> ToDoubles(const Halide::Buffer<float>& buffer) {
  return {buffer.data(), buffer.data() + buffer.number_of_elements()};
}

struct Gradients {
  std::vector<double> dx, dweight, dbias;
};

// y as the forward kernels define it (tests/reference/row_norm_reference.h),
// each statistic its own RDom reduction; then d(sum(y * dy)) by adjoints.
Gradients DeriveByAdjoints(Op op, const Halide::Buffer<float>& x,
                           const Halide::Buffer<float>& weight, const Halide::Buffer<float>& bias,
                           const Halide::Buffer<float>& dy, float weight_offset) {
  Halide::Var i("i"), r("r");
  Halide::RDom k(0, kHidden);
  const float hidden = static_cast<float>(kHidden);
  Halide::Func mean("mean"), squares("squares"), rstd("rstd"), y("y");
  if (op == Op::kLayerNorm) {
    Halide::Func sum("sum");
    sum(r) = 0.0f;
    sum(r) += x(k, r);
    mean(r) = sum(r) / hidden;
  } else {
    mean(r) = 0.0f;
  }
  squares(r) = 0.0f;
  squares(r) += (x(k, r) - mean(r)) * (x(k, r) - mean(r));
  rstd(r) = 1.0f / Halide::sqrt(squares(r) / hidden + kEps);
  Halide::Expr normalized = (x(i, r) - mean(r)) * rstd(r) * (weight(i) + weight_offset);
  y(i, r) = op == Op::kLayerNorm ? normalized + bias(i) : normalized;

  const Halide::Derivative d = Halide::propagate_adjoints(y, dy);
  Gradients gradients;
  gradients.dx = ToDoubles(d(x).realize({kHidden, kRows}));
  gradients.dweight = ToDoubles(d(weight).realize({kHidden}));
  if (op == Op::kLayerNorm) gradients.dbias = ToDoubles(d(bias).realize({kHidden}));
  return gradients;
}

class AdjointOracleTest : public ::testing::TestWithParam<std::tuple<Op, float>> {};

TEST_P(AdjointOracleTest, HandWrittenBackwardMatchesDerivedOne) {
  const auto [op, weight_offset] = GetParam();
  const bool layer_norm = op == Op::kLayerNorm;
  const std::vector<float> x_values = testutil::RandomNormal(kRows * kHidden, 1, 0.5, 1.5);
  const std::vector<float> dy_values = testutil::RandomNormal(kRows * kHidden, 2);
  // Non-uniform, so the weight must enter dx's row means.
  const std::vector<float> weight_values = testutil::RandomNormal(kHidden, 3, 0.5, 1.0);
  const std::vector<float> bias_values = testutil::RandomNormal(kHidden, 4);

  const Gradients derived = DeriveByAdjoints(
      op, ToHalide(x_values, {kHidden, kRows}), ToHalide(weight_values, {kHidden}),
      ToHalide(bias_values, {kHidden}), ToHalide(dy_values, {kHidden, kRows}), weight_offset);

  // The kernels: the forward saves mean/rstd, the backward uses them.
  TestTensor x({kRows, kHidden}), dy({kRows, kHidden}), weight({kHidden}), bias({kHidden});
  testutil::Scatter(x_values, x);
  testutil::Scatter(dy_values, dy);
  testutil::Scatter(weight_values, weight);
  testutil::Scatter(bias_values, bias);
  TestTensor y({kRows, kHidden}), mean({kRows}), rstd({kRows});
  TestTensor dx({kRows, kHidden}), dweight({kHidden}), dbias({kHidden});
  halnorm_norm_options options;
  halnorm_norm_options_init(&options);
  options.eps = kEps;
  options.weight_offset = weight_offset;
  absl::Status status =
      layer_norm
          ? internal::LayerNormForward(x.view(), weight.view(), bias.view(), &options, y.view(),
                                       mean.view(), rstd.view())
          : internal::RmsNormForward(x.view(), weight.view(), &options, y.view(), rstd.view());
  ASSERT_TRUE(status.ok()) << status;
  status = layer_norm ? internal::LayerNormBackward(dy.view(), x.view(), mean.view(), rstd.view(),
                                                    weight.view(), &options, dx.view(),
                                                    dweight.view(), dbias.view())
                      : internal::RmsNormBackward(dy.view(), x.view(), rstd.view(), weight.view(),
                                                  &options, dx.view(), dweight.view());
  ASSERT_TRUE(status.ok()) << status;

  const double tol = testutil::Tolerance(op, Direction::kBackward, HALNORM_F32);
  const double sum_tol = testutil::RowSumTolerance(op, Direction::kBackward, HALNORM_F32, kRows);
  testutil::ExpectClose(testutil::Gather(*dx.view()), derived.dx, tol, "dx");
  testutil::ExpectClose(testutil::Gather(*dweight.view()), derived.dweight, sum_tol, "dweight");
  if (layer_norm) {
    testutil::ExpectClose(testutil::Gather(*dbias.view()), derived.dbias, sum_tol, "dbias");
  }
}

std::string TestName(const ::testing::TestParamInfo<std::tuple<Op, float>>& info) {
  const auto [op, weight_offset] = info.param;
  return absl::StrCat(internal::OpName(op), weight_offset == 0.0f ? "" : "_gemma_offset");
}

INSTANTIATE_TEST_SUITE_P(OpsAndWeightOffsets, AdjointOracleTest,
                         ::testing::Combine(::testing::Values(Op::kLayerNorm, Op::kRmsNorm),
                                            ::testing::Values(0.0f, 1.0f)),
                         TestName);

}  // namespace
}  // namespace halnorm
