#include "rms_norm_layer.h"

#include <cmath>
#include <stdexcept>
#include <vector>

#include "gtest/gtest.h"

namespace {

constexpr int64_t kRows = 5, kHidden = 67;  // 67: the kernels' vector tails run too

std::vector<float> Ramp(float scale, float offset) {
  std::vector<float> v(kRows * kHidden);
  for (size_t i = 0; i < v.size(); ++i) v[i] = offset + scale * std::sin(0.37f * i);
  return v;
}

TEST(RmsNormLayerTest, ForwardMatchesTheFormula) {
  RmsNormLayer layer(kHidden, 1e-6f);
  for (int64_t j = 0; j < kHidden; ++j) layer.weight()[j] = 0.5f + 0.01f * j;
  const std::vector<float> x = Ramp(2.0f, 0.3f);
  const std::vector<float> y = layer.Forward(x);
  for (int64_t r = 0; r < kRows; ++r) {
    double sum_squares = 0;
    for (int64_t j = 0; j < kHidden; ++j) sum_squares += double(x[r * kHidden + j]) * x[r * kHidden + j];
    const double rstd = 1.0 / std::sqrt(sum_squares / kHidden + 1e-6);
    for (int64_t j = 0; j < kHidden; ++j) {
      const double want = x[r * kHidden + j] * rstd * layer.weight()[j];
      EXPECT_NEAR(y[r * kHidden + j], want, 1e-5 * (std::fabs(want) + 1)) << r << "," << j;
    }
  }
}

// d/dx of sum(y * dy) by central differences in the one element each
// direction perturbs, against the layer's backward.
TEST(RmsNormLayerTest, BackwardMatchesFiniteDifferences) {
  RmsNormLayer layer(kHidden, 1e-6f);
  const std::vector<float> x = Ramp(1.0f, 0.5f), dy = Ramp(0.7f, -0.1f);
  layer.Forward(x);
  const std::vector<float> dx = layer.Backward(dy);
  auto loss = [&](const std::vector<float>& input) {
    const std::vector<float> y = layer.Forward(input);
    double sum = 0;
    for (size_t i = 0; i < y.size(); ++i) sum += double(y[i]) * dy[i];
    return sum;
  };
  for (int64_t i : {0L, 13L, kHidden + 5, 3 * kHidden + 66}) {
    const float h = 1e-2f;
    std::vector<float> plus = x, minus = x;
    plus[i] += h;
    minus[i] -= h;
    const double numeric = (loss(plus) - loss(minus)) / (double(plus[i]) - minus[i]);
    EXPECT_NEAR(dx[i], numeric, 2e-3 * (std::fabs(numeric) + 1)) << "element " << i;
  }
}

TEST(RmsNormLayerTest, ABadShapeThrowsNamingTheArgument) {
  RmsNormLayer layer(kHidden, 1e-6f);
  layer.weight().pop_back();
  try {
    layer.Forward(Ramp(1.0f, 0.0f));
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("weight"), std::string::npos) << e.what();
  }
}

}  // namespace
