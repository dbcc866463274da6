// The reference backward against central differences of the reference
// forward, all in double: the oracle of the backward kernels is itself
// checked from first principles. Loss = sum(y * dy) + sum(x * dresidual), so
// its gradients are the backward's dx (including the residual gradient),
// dweight and dbias. LayerNorm2d (every axes) likewise, with loss = sum(y * dy).
#include <cmath>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "tests/reference/layer_norm2d_reference.h"
#include "tests/reference/row_norm_reference.h"

namespace halnorm::reference {
namespace {

struct GradientCase {
  std::string name;
  Norm norm;
  int64_t rows;
  int64_t hidden;
  bool weight;
  double weight_offset;
  bool bias;
};

void PrintTo(const GradientCase& c, std::ostream* os) { *os << c.name; }

std::vector<double> Normal(int64_t count, uint32_t seed, double offset, double scale) {
  std::mt19937 generator(seed);
  std::normal_distribution<double> normal(offset, scale);
  std::vector<double> values(count);
  for (double& value : values) value = normal(generator);
  return values;
}

// Central differences cost O(delta^2) truncation and eps/delta roundoff;
// 1e-5 keeps both near 1e-10 for O(1) values.
constexpr double kDelta = 1e-5;
constexpr double kTolerance = 1e-6;  // relative to |analytic| + 1

class ReferenceGradientsTest : public ::testing::TestWithParam<GradientCase> {
 protected:
  ReferenceGradientsTest()
      : c_(GetParam()),
        x_(Normal(c_.rows * c_.hidden, 1, 0.3, 1.2)),
        dy_(Normal(c_.rows * c_.hidden, 2, 0.0, 1.0)),
        dresidual_(Normal(c_.rows * c_.hidden, 3, 0.0, 1.0)),
        // Far from uniform, so a dx that leaves w out of the row means fails.
        weight_(c_.weight ? Normal(c_.hidden, 4, 0.5, 1.0) : std::vector<double>()),
        bias_(c_.bias ? Normal(c_.hidden, 5, 0.0, 1.0) : std::vector<double>()) {
    options_.norm = c_.norm;
    options_.eps = 1e-3;  // large enough to matter in rstd
    options_.weight_offset = c_.weight_offset;
  }

  double Loss() const {
    const ForwardResult forward = Forward(options_, {c_.rows, c_.hidden, x_, {}, weight_, bias_});
    double loss = 0.0;
    for (size_t i = 0; i < dy_.size(); ++i) loss += forward.y[i] * dy_[i] + x_[i] * dresidual_[i];
    return loss;
  }

  // Central difference of Loss() in `value`, which Loss() reads.
  double NumericGradient(double& value) {
    const double saved = value;
    value = saved + kDelta;
    const double plus = Loss();
    value = saved - kDelta;
    const double minus = Loss();
    value = saved;
    return (plus - minus) / (2 * kDelta);
  }

  void ExpectGradient(std::vector<double>& values, const std::vector<double>& analytic,
                      const std::string& what) {
    ASSERT_EQ(values.size(), analytic.size()) << what;
    for (size_t i = 0; i < values.size(); ++i) {
      const double numeric = NumericGradient(values[i]);
      EXPECT_LE(std::abs(numeric - analytic[i]), kTolerance * (std::abs(analytic[i]) + 1))
          << what << "[" << i << "]: numeric " << numeric << ", analytic " << analytic[i];
    }
  }

  const GradientCase c_;
  Options options_;
  std::vector<double> x_, dy_, dresidual_, weight_, bias_;
};

TEST_P(ReferenceGradientsTest, BackwardMatchesCentralDifferences) {
  const ForwardResult forward = Forward(options_, {c_.rows, c_.hidden, x_, {}, weight_, bias_});
  const BackwardResult backward = Backward(
      options_, {c_.rows, c_.hidden, dy_, x_, forward.mean, forward.rstd, weight_, dresidual_});
  ExpectGradient(x_, backward.dx, "dx");
  if (c_.weight) ExpectGradient(weight_, backward.dweight, "dweight");
  if (c_.bias) ExpectGradient(bias_, backward.dbias, "dbias");
}

std::vector<GradientCase> Cases() {
  std::vector<GradientCase> cases;
  for (Norm norm : {Norm::kLayerNorm, Norm::kRmsNorm}) {
    const bool layer_norm = norm == Norm::kLayerNorm;
    const std::string op = layer_norm ? "layer_norm" : "rms_norm";
    for (auto [rows, hidden] : {std::pair<int64_t, int64_t>{3, 7}, {2, 16}, {4, 1}}) {
      const std::string shape = absl::StrCat("_M", rows, "_N", hidden);
      cases.push_back({op + shape + "_weight", norm, rows, hidden, true, 0.0, layer_norm});
      cases.push_back({op + shape + "_gemma_offset", norm, rows, hidden, true, 1.0, layer_norm});
      cases.push_back({op + shape + "_no_weight", norm, rows, hidden, false, 1.0, false});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(SmallProblems, ReferenceGradientsTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<GradientCase>& info) {
                           return info.param.name;
                         });

struct LayerNorm2dGradientCase {
  std::string name;
  Axes2d axes;
  Nchw shape;
  bool weight;
  bool bias;
};

void PrintTo(const LayerNorm2dGradientCase& c, std::ostream* os) { *os << c.name; }

// The per-channel affine spans several normalized sets for every axes, so
// dweight/dbias sum across rows and (kHw, kChw) within them.
class LayerNorm2dReferenceGradientsTest : public ::testing::TestWithParam<LayerNorm2dGradientCase> {
 protected:
  LayerNorm2dReferenceGradientsTest()
      : c_(GetParam()),
        size_(c_.shape.n * c_.shape.c * c_.shape.h * c_.shape.w),
        x_(Normal(size_, 1, 0.3, 1.2)),
        dy_(Normal(size_, 2, 0.0, 1.0)),
        weight_(c_.weight ? Normal(c_.shape.c, 4, 0.5, 1.0) : std::vector<double>()),
        bias_(c_.bias ? Normal(c_.shape.c, 5, 0.0, 1.0) : std::vector<double>()) {}

  ForwardResult RunForward() const {
    return LayerNorm2dForward(c_.axes, kEps, {c_.shape, x_, weight_, bias_});
  }

  double Loss() const {
    const ForwardResult forward = RunForward();
    double loss = 0.0;
    for (int64_t i = 0; i < size_; ++i) loss += forward.y[i] * dy_[i];
    return loss;
  }

  void ExpectGradient(std::vector<double>& values, const std::vector<double>& analytic,
                      const std::string& what) {
    ASSERT_EQ(values.size(), analytic.size()) << what;
    for (size_t i = 0; i < values.size(); ++i) {
      const double saved = values[i];
      values[i] = saved + kDelta;
      const double plus = Loss();
      values[i] = saved - kDelta;
      const double minus = Loss();
      values[i] = saved;
      const double numeric = (plus - minus) / (2 * kDelta);
      EXPECT_LE(std::abs(numeric - analytic[i]), kTolerance * (std::abs(analytic[i]) + 1))
          << what << "[" << i << "]: numeric " << numeric << ", analytic " << analytic[i];
    }
  }

  static constexpr double kEps = 1e-3;  // large enough to matter in rstd
  const LayerNorm2dGradientCase c_;
  const int64_t size_;
  std::vector<double> x_, dy_, weight_, bias_;
};

TEST_P(LayerNorm2dReferenceGradientsTest, BackwardMatchesCentralDifferences) {
  const ForwardResult forward = RunForward();
  ASSERT_EQ(forward.mean.size(), static_cast<size_t>(LayerNorm2dRows(c_.axes, c_.shape).rows));
  const BackwardResult backward =
      LayerNorm2dBackward(c_.axes, {c_.shape, dy_, x_, forward.mean, forward.rstd, weight_});
  ExpectGradient(x_, backward.dx, "dx");
  if (c_.weight) ExpectGradient(weight_, backward.dweight, "dweight");
  if (c_.bias) ExpectGradient(bias_, backward.dbias, "dbias");
}

std::vector<LayerNorm2dGradientCase> LayerNorm2dCases() {
  std::vector<LayerNorm2dGradientCase> cases;
  const std::pair<Axes2d, const char*> axes_names[] = {
      {Axes2d::kC, "axes_c"}, {Axes2d::kChw, "axes_chw"}, {Axes2d::kHw, "axes_hw"}};
  // Odd extents everywhere; C = 1 and H = W = 1 degenerate one axes or another.
  const Nchw shapes[] = {{2, 3, 2, 3}, {1, 4, 1, 3}, {2, 1, 3, 2}, {3, 5, 1, 1}};
  for (const auto& [axes, axes_name] : axes_names) {
    for (const Nchw& s : shapes) {
      const std::string shape = absl::StrCat("_", s.n, "x", s.c, "x", s.h, "x", s.w);
      cases.push_back({absl::StrCat(axes_name, shape, "_affine"), axes, s, true, true});
      cases.push_back({absl::StrCat(axes_name, shape, "_no_affine"), axes, s, false, false});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(SmallProblems, LayerNorm2dReferenceGradientsTest,
                         ::testing::ValuesIn(LayerNorm2dCases()),
                         [](const ::testing::TestParamInfo<LayerNorm2dGradientCase>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace halnorm::reference
