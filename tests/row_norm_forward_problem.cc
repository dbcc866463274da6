#include "tests/layer_norm_forward_problem.h"

#include <cstring>

#include "gtest/gtest.h"
#include "runtime/layer_norm.h"
#include "tests/tolerance.h"

namespace halnorm::testutil {
namespace {

// Fixed seeds: every run of every variant sees the same numbers.
constexpr uint32_t kXSeed = 1;
constexpr uint32_t kWeightSeed = 2;
constexpr uint32_t kBiasSeed = 3;

std::vector<int64_t> Leading(const ForwardCase& c) {
  return {c.shape.begin(), c.shape.end() - c.normalized_rank};
}

std::vector<int64_t> Normalized(const ForwardCase& c) {
  return {c.shape.end() - c.normalized_rank, c.shape.end()};
}

// mean/rstd have x's leading dims; with none left they are [1].
std::vector<int64_t> StatisticsShape(const ForwardCase& c) {
  std::vector<int64_t> shape = Leading(c);
  if (shape.empty()) shape = {1};
  return shape;
}

std::vector<float> GatherOrEmpty(const std::optional<TestTensor>& tensor) {
  return tensor ? Gather(*tensor->view()) : std::vector<float>();
}

bool BitwiseEqual(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

ForwardProblem::ForwardProblem(const ForwardCase& c)
    : rows_(NumElements(Leading(c))),
      hidden_(NumElements(Normalized(c))),
      x_(c.shape, c.x_strides, c.data_offset),
      y_(c.shape, c.y_strides, c.data_offset) {
  FillNormal(x_, kXSeed, c.offset, c.scale);
  if (c.weight) {
    weight_.emplace(Normalized(c), /*strides=*/absl::Span<const int64_t>(), c.data_offset);
    FillNormal(*weight_, kWeightSeed, /*offset=*/1.0, /*scale=*/0.5);
  }
  if (c.bias) {
    bias_.emplace(Normalized(c), /*strides=*/absl::Span<const int64_t>(), c.data_offset);
    FillNormal(*bias_, kBiasSeed, /*offset=*/0.0, /*scale=*/0.5);
  }
  if (c.mean) mean_.emplace(StatisticsShape(c), c.stats_strides, c.data_offset);
  if (c.rstd) rstd_.emplace(StatisticsShape(c), c.stats_strides, c.data_offset);
  halnorm_norm_options_init(&options_);
  options_.eps = c.eps;
  options_.normalized_rank = c.normalized_rank;
}

halnorm_tensor* ForwardProblem::ViewOrNull(std::optional<TestTensor>& tensor) {
  return tensor ? tensor->view() : nullptr;
}

absl::Status ForwardProblem::Run(const internal::Variant* variant) {
  x_before_ = x_.storage();
  return internal::LayerNormForward(x_.view(), ViewOrNull(weight_), ViewOrNull(bias_), &options_,
                                    y_.view(), ViewOrNull(mean_), ViewOrNull(rstd_), variant);
}

int ForwardProblem::RunPublic() {
  x_before_ = x_.storage();
  return halnorm_layer_norm_forward(x_.view(), ViewOrNull(weight_), ViewOrNull(bias_), &options_,
                                    y_.view(), ViewOrNull(mean_), ViewOrNull(rstd_));
}

reference::LayerNormForwardResult ForwardProblem::Expected() const {
  return reference::LayerNormForward(Gather(*x_.view()), rows_, hidden_, GatherOrEmpty(weight_),
                                     GatherOrEmpty(bias_), options_.eps);
}

void ForwardProblem::ExpectMatchesReference() const {
  const reference::LayerNormForwardResult expected = Expected();
  const double tolerance =
      Tolerance(internal::Op::kLayerNorm, internal::Direction::kForward, HALNORM_F32);
  ExpectClose(Gather(*y_.view()), expected.y, tolerance, "y");
  if (mean_) ExpectClose(Gather(*mean_->view()), expected.mean, tolerance, "mean");
  if (rstd_) ExpectClose(Gather(*rstd_->view()), expected.rstd, tolerance, "rstd");
  EXPECT_EQ(CountPaddingWrites(y_), 0) << "y's storage written outside its view";
  if (mean_) {
    EXPECT_EQ(CountPaddingWrites(*mean_), 0) << "mean's storage written outside its view";
  }
  if (rstd_) {
    EXPECT_EQ(CountPaddingWrites(*rstd_), 0) << "rstd's storage written outside its view";
  }
  EXPECT_TRUE(BitwiseEqual(x_.storage(), x_before_)) << "x modified";
}

}  // namespace halnorm::testutil
