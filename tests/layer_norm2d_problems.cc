#include "tests/layer_norm2d_problems.h"

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "runtime/layer_norm2d.h"
#include "tests/reference/layer_norm2d_reference.h"
#include "tests/row_norm_tensors.h"
#include "tests/tolerance.h"

namespace halnorm::testutil {
namespace {

using internal::Direction;
using internal::Op;

TestTensor Activation(const LayerNorm2dCase& c) {
  return TestTensor(ActivationShape(c), ActivationStrides(c), c.data_offset, c.dtype);
}

TestTensor NormalActivation(const LayerNorm2dCase& c, Seed seed, double offset = 0.0,
                            double scale = 1.0) {
  TestTensor tensor = Activation(c);
  FillNormal(tensor, seed, offset, scale);
  return tensor;
}

// [C] in ParamDtype(c), all sentinel; absent unless `present`.
std::optional<TestTensor> ChannelTensor(const LayerNorm2dCase& c, bool present) {
  if (!present) return std::nullopt;
  return TestTensor({c.shape.c}, {}, c.data_offset, ParamDtype(c));
}

// Non-uniform around 1 (weight) or 0 (bias): a kernel that drops them, or
// indexes them by pixel instead of channel, fails.
std::optional<TestTensor> ChannelParam(const LayerNorm2dCase& c, bool present, Seed seed,
                                       double offset) {
  std::optional<TestTensor> tensor = ChannelTensor(c, present);
  if (tensor) FillNormal(*tensor, seed, offset, /*scale=*/0.5);
  return tensor;
}

TestTensor Statistics(const LayerNorm2dCase& c) {
  return TestTensor(LayerNorm2dStatisticsShape(c), {}, c.data_offset, HALNORM_F32);
}

std::optional<TestTensor> OptionalStatistics(const LayerNorm2dCase& c, bool present) {
  if (!present) return std::nullopt;
  return Statistics(c);
}

}  // namespace

LayerNorm2dForwardProblem::LayerNorm2dForwardProblem(const LayerNorm2dCase& c)
    : case_(c),
      x_(NormalActivation(c, kXSeed, c.offset, c.scale)),
      weight_(ChannelParam(c, c.weight, kWeightSeed, 1.0)),
      bias_(ChannelParam(c, c.bias, kBiasSeed, 0.0)),
      y_(Activation(c)),
      mean_(OptionalStatistics(c, c.mean)),
      rstd_(OptionalStatistics(c, c.rstd)) {}

void LayerNorm2dForwardProblem::SnapshotInputs() {
  inputs_before_.Clear();
  inputs_before_.Add("x", x_);
  if (weight_) inputs_before_.Add("weight", *weight_);
  if (bias_) inputs_before_.Add("bias", *bias_);
}

absl::Status LayerNorm2dForwardProblem::Run() {
  SnapshotInputs();
  return internal::LayerNorm2dForward(x_.view(), ViewOrNull(weight_), ViewOrNull(bias_), case_.axes,
                                      case_.eps, y_.view(), ViewOrNull(mean_), ViewOrNull(rstd_),
                                      case_.variant);
}

int LayerNorm2dForwardProblem::RunPublic(const ViewOf& view_of) {
  SnapshotInputs();
  return halnorm_layer_norm2d_forward(
      view_of(x_), ViewOrNull(weight_, view_of), ViewOrNull(bias_, view_of), case_.axes, case_.eps,
      view_of(y_), ViewOrNull(mean_, view_of), ViewOrNull(rstd_, view_of));
}

reference::ForwardResult LayerNorm2dForwardProblem::Expected() const {
  const std::vector<double> x = GatherDouble(*x_.view());
  const std::vector<double> weight = GatherDoubleOrEmpty(weight_);
  const std::vector<double> bias = GatherDoubleOrEmpty(bias_);
  return reference::LayerNorm2dForward(ReferenceAxes(case_.axes), case_.eps,
                                       {case_.shape, x, weight, bias});
}

void LayerNorm2dForwardProblem::ExpectMatchesReference() const {
  const reference::ForwardResult expected = Expected();
  const double tol = Tolerance(Op::kLayerNorm2d, Direction::kForward, case_.dtype);
  ExpectOutputClose(y_, expected.y, tol, "y");
  if (mean_) ExpectOutputClose(*mean_, expected.mean, tol, "mean");
  if (rstd_) ExpectOutputClose(*rstd_, expected.rstd, tol, "rstd");
  EXPECT_TRUE(inputs_before_.Changed().empty())
      << "inputs modified: " << absl::StrJoin(inputs_before_.Changed(), ", ");
}

std::vector<const TestTensor*> LayerNorm2dForwardProblem::Outputs() const {
  const std::vector<TestTensor*> outputs =
      const_cast<LayerNorm2dForwardProblem*>(this)->MutableOutputs();
  return {outputs.begin(), outputs.end()};
}

std::vector<TestTensor*> LayerNorm2dForwardProblem::MutableOutputs() {
  std::vector<TestTensor*> outputs = {&y_};
  for (std::optional<TestTensor>* output : {&mean_, &rstd_}) {
    if (*output) outputs.push_back(&**output);
  }
  return outputs;
}

LayerNorm2dBackwardProblem::LayerNorm2dBackwardProblem(const LayerNorm2dCase& c)
    : case_(c),
      dy_(NormalActivation(c, kDySeed)),
      x_(NormalActivation(c, kXSeed, c.offset, c.scale)),
      mean_(Statistics(c)),
      rstd_(Statistics(c)),
      weight_(ChannelParam(c, c.weight, kWeightSeed, 1.0)),
      dx_(Activation(c)),
      dweight_(ChannelTensor(c, c.dweight)),
      dbias_(ChannelTensor(c, c.dbias)) {
  // x is the forward's input, so its statistics come from x alone.
  const std::vector<double> x = GatherDouble(*x_.view());
  const reference::ForwardResult forward =
      reference::LayerNorm2dForward(ReferenceAxes(c.axes), c.eps, {c.shape, x, {}, {}});
  Scatter(std::vector<float>(forward.mean.begin(), forward.mean.end()), mean_);
  Scatter(std::vector<float>(forward.rstd.begin(), forward.rstd.end()), rstd_);
}

void LayerNorm2dBackwardProblem::SnapshotInputs() {
  inputs_before_.Clear();
  inputs_before_.Add("dy", dy_);
  inputs_before_.Add("x", x_);
  inputs_before_.Add("mean", mean_);
  inputs_before_.Add("rstd", rstd_);
  if (weight_) inputs_before_.Add("weight", *weight_);
}

absl::Status LayerNorm2dBackwardProblem::Run() {
  SnapshotInputs();
  return internal::LayerNorm2dBackward(dy_.view(), x_.view(), mean_.view(), rstd_.view(),
                                       ViewOrNull(weight_), case_.axes, dx_.view(),
                                       ViewOrNull(dweight_), ViewOrNull(dbias_), case_.variant);
}

int LayerNorm2dBackwardProblem::RunPublic(const ViewOf& view_of) {
  SnapshotInputs();
  return halnorm_layer_norm2d_backward(view_of(dy_), view_of(x_), view_of(mean_), view_of(rstd_),
                                       ViewOrNull(weight_, view_of), case_.axes, view_of(dx_),
                                       ViewOrNull(dweight_, view_of), ViewOrNull(dbias_, view_of));
}

reference::BackwardResult LayerNorm2dBackwardProblem::Expected() const {
  const std::vector<double> dy = GatherDouble(*dy_.view());
  const std::vector<double> x = GatherDouble(*x_.view());
  const std::vector<double> mean = GatherDouble(*mean_.view());
  const std::vector<double> rstd = GatherDouble(*rstd_.view());
  const std::vector<double> weight = GatherDoubleOrEmpty(weight_);
  return reference::LayerNorm2dBackward(ReferenceAxes(case_.axes),
                                        {case_.shape, dy, x, mean, rstd, weight});
}

void LayerNorm2dBackwardProblem::ExpectMatchesReference() const {
  const reference::BackwardResult expected = Expected();
  const Direction backward = Direction::kBackward;
  ExpectOutputClose(dx_, expected.dx, Tolerance(Op::kLayerNorm2d, backward, case_.dtype), "dx");
  // Each channel's sums run over its N*H*W elements.
  const int64_t summed = case_.shape.n * case_.shape.h * case_.shape.w;
  const double sum_tol = RowSumTolerance(Op::kLayerNorm2d, backward, case_.dtype, summed);
  if (dweight_) ExpectOutputClose(*dweight_, expected.dweight, sum_tol, "dweight");
  if (dbias_) ExpectOutputClose(*dbias_, expected.dbias, sum_tol, "dbias");
  EXPECT_TRUE(inputs_before_.Changed().empty())
      << "inputs modified: " << absl::StrJoin(inputs_before_.Changed(), ", ");
}

std::vector<const TestTensor*> LayerNorm2dBackwardProblem::Outputs() const {
  const std::vector<TestTensor*> outputs =
      const_cast<LayerNorm2dBackwardProblem*>(this)->MutableOutputs();
  return {outputs.begin(), outputs.end()};
}

std::vector<TestTensor*> LayerNorm2dBackwardProblem::MutableOutputs() {
  std::vector<TestTensor*> outputs = {&dx_};
  for (std::optional<TestTensor>* output : {&dweight_, &dbias_}) {
    if (*output) outputs.push_back(&**output);
  }
  return outputs;
}

}  // namespace halnorm::testutil
