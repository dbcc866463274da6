#include "tests/row_norm_forward_problem.h"

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "runtime/row_norm.h"
#include "tests/tolerance.h"

namespace halnorm::testutil {

ForwardProblem::ForwardProblem(const RowNormCase& c)
    : case_(c),
      x_(NormalActivation(c, c.x_strides, kXSeed, c.offset, c.scale)),
      weight_(WeightTensor(c, c.weight)),
      bias_(BiasTensor(c, c.bias)),
      y_(ActivationTensor(c, c.y_strides)),
      mean_(StatisticsTensor(c, c.mean)),
      rstd_(StatisticsTensor(c, c.rstd)) {
  if (c.residual) {
    residual_.emplace(NormalActivation(c, c.x_strides, kResidualSeed));
    residual_out_.emplace(ActivationTensor(c, c.y_strides));
  }
}

halnorm_norm_options ForwardProblem::Options(const ViewOf& view_of) {
  halnorm_norm_options options;
  halnorm_norm_options_init(&options);
  options.eps = case_.eps;
  options.normalized_rank = case_.normalized_rank;
  options.weight_offset = case_.weight_offset;
  options.residual = ViewOrNull(residual_, view_of);
  options.residual_alpha = case_.residual_alpha;
  options.residual_out = ViewOrNull(residual_out_, view_of);
  return options;
}

absl::Status ForwardProblem::Run(const internal::Variant* variant) {
  inputs_before_.Clear();
  inputs_before_.Add("x", x_);
  if (residual_) inputs_before_.Add("residual", *residual_);
  if (weight_) inputs_before_.Add("weight", *weight_);
  if (bias_) inputs_before_.Add("bias", *bias_);
  const halnorm_norm_options options = Options();
  if (case_.op == internal::Op::kRmsNorm) {
    return internal::RmsNormForward(x_.view(), ViewOrNull(weight_), &options, y_.view(),
                                    ViewOrNull(rstd_), variant);
  }
  return internal::LayerNormForward(x_.view(), ViewOrNull(weight_), ViewOrNull(bias_), &options,
                                    y_.view(), ViewOrNull(mean_), ViewOrNull(rstd_), variant);
}

int ForwardProblem::RunPublic(const ViewOf& view_of) {
  const halnorm_norm_options options = Options(view_of);
  if (case_.op == internal::Op::kRmsNorm) {
    return halnorm_rms_norm_forward(view_of(x_), ViewOrNull(weight_, view_of), &options,
                                    view_of(y_), ViewOrNull(rstd_, view_of));
  }
  return halnorm_layer_norm_forward(view_of(x_), ViewOrNull(weight_, view_of),
                                    ViewOrNull(bias_, view_of), &options, view_of(y_),
                                    ViewOrNull(mean_, view_of), ViewOrNull(rstd_, view_of));
}

reference::ForwardResult ForwardProblem::Expected() const {
  const std::vector<double> x = GatherDouble(*x_.view());
  const std::vector<double> residual = GatherDoubleOrEmpty(residual_);
  const std::vector<double> weight = GatherDoubleOrEmpty(weight_);
  const std::vector<double> bias = GatherDoubleOrEmpty(bias_);
  return reference::Forward(ReferenceOptions(case_),
                            {Rows(case_), Hidden(case_), x, residual, weight, bias});
}

void ForwardProblem::ExpectMatchesReference() const {
  const reference::ForwardResult expected = Expected();
  const double tol = Tolerance(case_.op, internal::Direction::kForward, case_.dtype);
  ExpectOutputClose(y_, expected.y, tol, "y");
  if (residual_out_) ExpectOutputClose(*residual_out_, expected.h, tol, "residual_out");
  if (mean_) ExpectOutputClose(*mean_, expected.mean, tol, "mean");
  if (rstd_) ExpectOutputClose(*rstd_, expected.rstd, tol, "rstd");
  EXPECT_TRUE(inputs_before_.Changed().empty())
      << "inputs modified: " << absl::StrJoin(inputs_before_.Changed(), ", ");
}

std::vector<const TestTensor*> ForwardProblem::Outputs() const {
  const std::vector<TestTensor*> outputs = const_cast<ForwardProblem*>(this)->MutableOutputs();
  return {outputs.begin(), outputs.end()};
}

std::vector<TestTensor*> ForwardProblem::MutableOutputs() {
  std::vector<TestTensor*> outputs = {&y_};
  for (std::optional<TestTensor>* output : {&residual_out_, &mean_, &rstd_}) {
    if (*output) outputs.push_back(&**output);
  }
  return outputs;
}

}  // namespace halnorm::testutil
