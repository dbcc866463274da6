// LayerNorm2d at the edges of f32 arithmetic, on every way a call runs: each
// channel-norm variant forced (AXES_C on NCHW) and dispatched calls for
// every axes, layout and dtype (layer_norm2d_cases.h). The behaviors are
// the row norms' (edge_numerics_test.cc), per normalized set: a pixel's C
// values, a sample's C*H*W, or a channel's H*W.
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "runtime/halnorm_c.h"
#include "tests/edge_values.h"
#include "tests/layer_norm2d_cases.h"
#include "tests/layer_norm2d_problems.h"
#include "tests/reference/layer_norm2d_reference.h"
#include "tests/test_tensors.h"
#include "tests/tolerance.h"

namespace halnorm {
namespace {

using internal::Direction;
using reference::Nchw;
using testutil::Gather;
using testutil::LayerNorm2dBackwardProblem;
using testutil::LayerNorm2dCase;
using testutil::LayerNorm2dForwardProblem;

// Sets of 19 (pixels), 285 (samples) and 15 (channel planes) values.
constexpr Nchw kShape = {3, 19, 3, 5};

class EdgeForward2dTest : public testutil::LayerNorm2dTest {};
class EdgeBackward2dTest : public testutil::LayerNorm2dTest {};

// The NCHW indices of normalized set `row` (the statistics' element `row`).
std::vector<int64_t> SetIndices(const LayerNorm2dCase& c, int64_t row) {
  const reference::RowLayout layout =
      reference::LayerNorm2dRows(testutil::ReferenceAxes(c.axes), c.shape);
  return {layout.nchw_index.begin() + row * layout.hidden,
          layout.nchw_index.begin() + (row + 1) * layout.hidden};
}

// eps = 0 and one constant set: its rstd is +inf, its mean exact and its y
// NaN; every other set as usual (the reference agrees, NaNs included).
TEST_P(EdgeForward2dTest, ZeroEpsConstantSetIsNanWithInfiniteRstd) {
  LayerNorm2dCase c = GetParam();
  c.eps = 0.f;
  LayerNorm2dForwardProblem problem(c);
  std::vector<float> x = Gather(*problem.x().view());
  const std::vector<int64_t> set = SetIndices(c, 1);
  for (int64_t i : set) x[i] = 3.f;
  testutil::Scatter(x, problem.x());
  ASSERT_TRUE(problem.Run().ok());
  testutil::ExpectAllWritten(problem.y(), "y");
  const std::vector<float> y = Gather(*problem.y().view());
  for (int64_t i : set) ASSERT_TRUE(std::isnan(y[i])) << "y[" << i << "] = " << y[i];
  EXPECT_EQ(Gather(*problem.mean()->view())[1], 3.f);
  EXPECT_EQ(Gather(*problem.rstd()->view())[1], INFINITY);
  problem.ExpectMatchesReference();
}

// Subnormal inputs give subnormal outputs (eps = 1 keeps rstd ~ 1 so y ~ x):
// f32/bf16 x ~ 1e-39, f16 x ~ 1e-5. No affine: y = (x - mean) * rstd.
TEST_P(EdgeForward2dTest, SubnormalsAreNotFlushed) {
  LayerNorm2dCase c = GetParam();
  c.eps = 1.f;
  c.weight = c.bias = false;
  c.scale = c.dtype == HALNORM_F16 ? 1e-5 : 1e-39;
  LayerNorm2dForwardProblem problem(c);
  const int64_t elements = testutil::NumElements(testutil::ActivationShape(c));
  ASSERT_GT(testutil::CountSubnormal(Gather(*problem.x().view()), c.dtype), elements / 2);
  ASSERT_TRUE(problem.Run().ok());
  const reference::ForwardResult expected = problem.Expected();
  const double rel = testutil::Tolerance(internal::Op::kLayerNorm2d, Direction::kForward, c.dtype);
  EXPECT_GT(
      testutil::ExpectCloseNotFlushed(Gather(*problem.y().view()), expected.y, rel, c.dtype, "y"),
      elements / 2);
  testutil::ExpectCloseNotFlushed(Gather(*problem.mean()->view()), expected.mean, rel, HALNORM_F32,
                                  "mean");
}

// 16-bit values whose squares overflow f16 (|x| up to 65000) or are huge
// (bf16 ~ 1e15) accumulate in f32: within the usual tolerance.
TEST_P(EdgeForward2dTest, LargeValuesAccumulateInF32) {
  const LayerNorm2dCase& c = GetParam();
  if (c.dtype == HALNORM_F32) GTEST_SKIP() << "nothing to overflow in f32 at these values";
  LayerNorm2dForwardProblem problem(c);
  const bool f16 = c.dtype == HALNORM_F16;
  const int64_t elements = testutil::NumElements(testutil::ActivationShape(c));
  testutil::Scatter(
      testutil::LargeMagnitudes(elements, f16 ? 30000 : 1e14, f16 ? 65000 : 1e15, 11, c.dtype),
      problem.x());
  ASSERT_TRUE(problem.Run().ok());
  problem.ExpectMatchesReference();
}

INSTANTIATE_TEST_SUITE_P(EveryPath, EdgeForward2dTest,
                         ::testing::ValuesIn(testutil::LayerNorm2dConfigs(Direction::kForward,
                                                                          kShape)),
                         testutil::LayerNorm2dCaseTestName);

// Every set constant with the statistics of eps = 0 (rstd = +inf): dx and
// dweight are all NaN (xhat = 0 * inf), dbias is the usual sum of dy.
TEST_P(EdgeBackward2dTest, InfiniteRstdGivesNanDxAndDweight) {
  LayerNorm2dCase c = GetParam();
  c.eps = 0.f;
  c.offset = 3.0;
  c.scale = 0.0;
  LayerNorm2dBackwardProblem problem(c);
  ASSERT_TRUE(problem.Run().ok());
  testutil::ExpectAllWritten(problem.dx(), "dx");
  testutil::ExpectAllWritten(*problem.dweight(), "dweight");
  testutil::ExpectAllNan(Gather(*problem.dx().view()), "dx");
  testutil::ExpectAllNan(Gather(*problem.dweight()->view()), "dweight");
  problem.ExpectMatchesReference();  // dbias finite and close, NaNs matched
}

INSTANTIATE_TEST_SUITE_P(EveryPath, EdgeBackward2dTest,
                         ::testing::ValuesIn(testutil::LayerNorm2dConfigs(Direction::kBackward,
                                                                          kShape)),
                         testutil::LayerNorm2dCaseTestName);

}  // namespace
}  // namespace halnorm
