#include "tests/row_norm_backward_problem.h"

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "runtime/row_norm.h"
#include "tests/tolerance.h"

namespace halnorm::testutil {
namespace {

bool IsLayerNorm(const RowNormCase& c) { return c.op == internal::Op::kLayerNorm; }

// Rounds to f32 (what a forward kernel stores) and writes into `tensor`.
void StoreStatistics(const std::vector<double>& values, TestTensor& tensor) {
  Scatter(std::vector<float>(values.begin(), values.end()), tensor);
}

}  // namespace

BackwardProblem::BackwardProblem(const RowNormCase& c)
    : case_(c),
      dy_(NormalActivation(c, c.y_strides, kDySeed)),
      x_(NormalActivation(c, c.x_strides, kXSeed, c.offset, c.scale)),
      mean_(StatisticsTensor(c, IsLayerNorm(c))),
      rstd_(*StatisticsTensor(c, true)),
      weight_(WeightTensor(c, c.weight)),
      dx_(ActivationTensor(c, c.dx_strides)),
      dweight_(ParamTensor(c, c.dweight)),
      dbias_(ParamTensor(c, c.dbias && IsLayerNorm(c))) {
  if (c.residual) {
    residual_gradient_.emplace(NormalActivation(c, c.dx_strides, kResidualGradientSeed));
  }
  // x is the forward's normalized input, so its statistics come from x alone.
  const std::vector<double> x = GatherDouble(*x_.view());
  const reference::ForwardResult forward =
      reference::Forward(ReferenceOptions(c), {Rows(c), Hidden(c), x, {}, {}, {}});
  if (mean_) StoreStatistics(forward.mean, *mean_);
  StoreStatistics(forward.rstd, rstd_);
}

halnorm_norm_options BackwardProblem::Options(const ViewOf& view_of) {
  halnorm_norm_options options;
  halnorm_norm_options_init(&options);
  options.eps = case_.eps;
  options.normalized_rank = case_.normalized_rank;
  options.weight_offset = case_.weight_offset;
  options.residual = ViewOrNull(residual_gradient_, view_of);
  options.residual_alpha = case_.residual_alpha;
  return options;
}

absl::Status BackwardProblem::Run(const internal::Variant* variant) {
  inputs_before_.Clear();
  inputs_before_.Add("dy", dy_);
  inputs_before_.Add("x", x_);
  if (mean_) inputs_before_.Add("mean", *mean_);
  inputs_before_.Add("rstd", rstd_);
  if (weight_) inputs_before_.Add("weight", *weight_);
  if (residual_gradient_) inputs_before_.Add("residual", *residual_gradient_);
  const halnorm_norm_options options = Options();
  if (!IsLayerNorm(case_)) {
    return internal::RmsNormBackward(dy_.view(), x_.view(), rstd_.view(), ViewOrNull(weight_),
                                     &options, dx_.view(), ViewOrNull(dweight_), variant);
  }
  return internal::LayerNormBackward(dy_.view(), x_.view(), ViewOrNull(mean_), rstd_.view(),
                                     ViewOrNull(weight_), &options, dx_.view(),
                                     ViewOrNull(dweight_), ViewOrNull(dbias_), variant);
}

int BackwardProblem::RunPublic(const ViewOf& view_of) {
  const halnorm_norm_options options = Options(view_of);
  if (!IsLayerNorm(case_)) {
    return halnorm_rms_norm_backward(view_of(dy_), view_of(x_), view_of(rstd_),
                                     ViewOrNull(weight_, view_of), &options, view_of(dx_),
                                     ViewOrNull(dweight_, view_of));
  }
  return halnorm_layer_norm_backward(view_of(dy_), view_of(x_), ViewOrNull(mean_, view_of),
                                     view_of(rstd_), ViewOrNull(weight_, view_of), &options,
                                     view_of(dx_), ViewOrNull(dweight_, view_of),
                                     ViewOrNull(dbias_, view_of));
}

reference::BackwardResult BackwardProblem::Expected() const {
  const std::vector<double> dy = GatherDouble(*dy_.view());
  const std::vector<double> x = GatherDouble(*x_.view());
  const std::vector<double> mean = GatherDoubleOrEmpty(mean_);
  const std::vector<double> rstd = GatherDouble(*rstd_.view());
  const std::vector<double> weight = GatherDoubleOrEmpty(weight_);
  const std::vector<double> residual_gradient = GatherDoubleOrEmpty(residual_gradient_);
  return reference::Backward(ReferenceOptions(case_), {Rows(case_), Hidden(case_), dy, x, mean,
                                                       rstd, weight, residual_gradient});
}

void BackwardProblem::ExpectMatchesReference() const {
  const reference::BackwardResult expected = Expected();
  const internal::Direction backward = internal::Direction::kBackward;
  ExpectOutputClose(dx_, expected.dx, Tolerance(case_.op, backward, case_.dtype), "dx");
  const double sum_tol = RowSumTolerance(case_.op, backward, case_.dtype, Rows(case_));
  if (dweight_) ExpectOutputClose(*dweight_, expected.dweight, sum_tol, "dweight");
  if (dbias_) ExpectOutputClose(*dbias_, expected.dbias, sum_tol, "dbias");
  EXPECT_TRUE(inputs_before_.Changed().empty())
      << "inputs modified: " << absl::StrJoin(inputs_before_.Changed(), ", ");
}

std::vector<const TestTensor*> BackwardProblem::Outputs() const {
  const std::vector<TestTensor*> outputs = const_cast<BackwardProblem*>(this)->MutableOutputs();
  return {outputs.begin(), outputs.end()};
}

std::vector<TestTensor*> BackwardProblem::MutableOutputs() {
  std::vector<TestTensor*> outputs = {&dx_};
  for (std::optional<TestTensor>* output : {&dweight_, &dbias_}) {
    if (*output) outputs.push_back(&**output);
  }
  return outputs;
}

}  // namespace halnorm::testutil
