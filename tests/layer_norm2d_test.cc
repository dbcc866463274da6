// LayerNorm2d forward and backward against the float64 reference: every
// registry variant of op kLayerNorm2d forced on NCHW tensors normalized over
// C, and dispatched calls for every axes, layout and dtype (cases in
// layer_norm2d_cases.cc); plus non-finite propagation, thread-count
// independence, forced-variant refusals and the public C entry points.
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cpu_features.h"
#include "runtime/halnorm_c.h"
#include "runtime/variant_registry.h"
#include "tests/layer_norm2d_cases.h"
#include "tests/layer_norm2d_problems.h"
#include "tests/reference/layer_norm2d_reference.h"
#include "tests/test_tensors.h"
#include "tests/thread_count_check.h"
#include "tests/tolerance.h"
#include "tests/variant_params.h"

namespace halnorm {
namespace {

using internal::Direction;
using internal::Op;
using internal::Variant;
using reference::Nchw;
using testutil::LayerNorm2dBackwardProblem;
using testutil::LayerNorm2dCase;
using testutil::LayerNorm2dForwardProblem;
using testutil::TestTensor;

// Distinct fixtures: one suite per parameter list.
class LayerNorm2dForwardTest : public testutil::LayerNorm2dTest {};
class LayerNorm2dBackwardTest : public testutil::LayerNorm2dTest {};
class LayerNorm2dForwardConfigTest : public testutil::LayerNorm2dTest {};
class LayerNorm2dBackwardConfigTest : public testutil::LayerNorm2dTest {};
class LayerNorm2dForwardThreadsTest : public testutil::LayerNorm2dTest {};
class LayerNorm2dBackwardThreadsTest : public testutil::LayerNorm2dTest {};

TEST_P(LayerNorm2dForwardTest, MatchesReference) {
  LayerNorm2dForwardProblem problem(GetParam());
  const absl::Status status = problem.Run();
  ASSERT_TRUE(status.ok()) << status;
  problem.ExpectMatchesReference();
}

TEST_P(LayerNorm2dBackwardTest, MatchesReference) {
  LayerNorm2dBackwardProblem problem(GetParam());
  const absl::Status status = problem.Run();
  ASSERT_TRUE(status.ok()) << status;
  problem.ExpectMatchesReference();
}

INSTANTIATE_TEST_SUITE_P(AllCases, LayerNorm2dForwardTest,
                         ::testing::ValuesIn(testutil::LayerNorm2dCases(Direction::kForward)),
                         testutil::LayerNorm2dCaseTestName);
INSTANTIATE_TEST_SUITE_P(AllCases, LayerNorm2dBackwardTest,
                         ::testing::ValuesIn(testutil::LayerNorm2dCases(Direction::kBackward)),
                         testutil::LayerNorm2dCaseTestName);

// Non-finite values at three elements of different samples (N = 4, so one
// sample stays clean for AXES_CHW): mid-tensor, the very first element of a
// sample and the very last one (vector tails).
constexpr Nchw kNonFiniteShape = {4, 19, 3, 5};
struct NonFinite {
  Nchw at;  // n, c, h, w
  float value;
};
const NonFinite kNonFinites[] = {
    {{0, 3, 1, 2}, INFINITY}, {{1, 0, 0, 0}, NAN}, {{2, 18, 2, 4}, -INFINITY}};
constexpr int kNanIndex = 1;

int64_t NchwIndex(const Nchw& s, const Nchw& at) {
  return ((at.n * s.c + at.c) * s.h + at.h) * s.w + at.w;
}

// Puts kNonFinites into an NCHW-ordered array.
void Poison(const Nchw& shape, std::vector<float>& values) {
  for (const NonFinite& bad : kNonFinites) values[NchwIndex(shape, bad.at)] = bad.value;
}

// The normalized sets as rows (the reference's layout): values in row order
// and the row each poisoned element lands in.
struct Rows {
  reference::RowLayout layout;
  std::vector<int64_t> poisoned;  // per kNonFinites entry
};

Rows RowsOf(const LayerNorm2dCase& c) {
  Rows rows{reference::LayerNorm2dRows(testutil::ReferenceAxes(c.axes), c.shape), {}};
  for (const NonFinite& bad : kNonFinites) {
    const int64_t index = NchwIndex(c.shape, bad.at);
    for (size_t i = 0; i < rows.layout.nchw_index.size(); ++i) {
      if (rows.layout.nchw_index[i] == index) rows.poisoned.push_back(i / rows.layout.hidden);
    }
  }
  return rows;
}

template <typename T>
std::vector<T> InRowOrder(const reference::RowLayout& layout, absl::Span<const T> nchw) {
  std::vector<T> rows;
  rows.reserve(nchw.size());
  for (int64_t index : layout.nchw_index) rows.push_back(nchw[index]);
  return rows;
}

// An inf or NaN in x poisons its own normalized set (for AXES_C: its pixel's
// channel vector) and nothing else. A NaN makes its whole set and its
// statistics NaN; for an inf the reference's non-finite outputs must be
// non-finite (inf - inf is NaN or inf depending on the order).
TEST_P(LayerNorm2dForwardConfigTest, NonFiniteStaysInItsNormalizedSet) {
  LayerNorm2dForwardProblem problem(GetParam());
  std::vector<float> x = testutil::Gather(*problem.x().view());
  Poison(GetParam().shape, x);
  testutil::Scatter(x, problem.x());
  const absl::Status status = problem.Run();
  ASSERT_TRUE(status.ok()) << status;

  const reference::ForwardResult expected = problem.Expected();
  const double tol = testutil::Tolerance(Op::kLayerNorm2d, Direction::kForward, GetParam().dtype);
  const Rows rows = RowsOf(GetParam());
  const int64_t hidden = rows.layout.hidden;
  const std::vector<float> y =
      InRowOrder<float>(rows.layout, testutil::Gather(*problem.y().view()));
  testutil::ExpectCloseOutsidePoisoned(y, InRowOrder<double>(rows.layout, expected.y), hidden,
                                       rows.poisoned, tol, "y");
  const int64_t nan_row = rows.poisoned[kNanIndex];
  testutil::ExpectAllNan(absl::MakeConstSpan(y).subspan(nan_row * hidden, hidden),
                         "y of the set with a NaN");
  struct Statistic {
    const std::optional<testutil::TestTensor>& got;
    const std::vector<double>& want;
    const char* name;
  };
  for (const Statistic& stat : {Statistic{problem.mean(), expected.mean, "mean"},
                                Statistic{problem.rstd(), expected.rstd, "rstd"}}) {
    ASSERT_TRUE(stat.got.has_value()) << stat.name;
    const std::vector<float> got = testutil::Gather(*stat.got->view());
    testutil::ExpectCloseOutsidePoisoned(got, stat.want, 1, rows.poisoned, tol, stat.name);
    testutil::ExpectAllNan(absl::MakeConstSpan(got).subspan(nan_row, 1), stat.name);
  }
}

// An inf or NaN in dy poisons dx on its normalized set (through the set's
// means of g and g * xhat) and dweight/dbias of its channel, nothing else.
TEST_P(LayerNorm2dBackwardConfigTest, NonFiniteStaysInItsSetAndChannel) {
  LayerNorm2dBackwardProblem problem(GetParam());
  std::vector<float> dy = testutil::Gather(*problem.dy().view());
  Poison(GetParam().shape, dy);
  testutil::Scatter(dy, problem.dy());
  const absl::Status status = problem.Run();
  ASSERT_TRUE(status.ok()) << status;

  const reference::BackwardResult expected = problem.Expected();
  const halnorm_dtype dtype = GetParam().dtype;
  const double tol = testutil::Tolerance(Op::kLayerNorm2d, Direction::kBackward, dtype);
  const Rows rows = RowsOf(GetParam());
  const int64_t hidden = rows.layout.hidden;
  const std::vector<float> dx =
      InRowOrder<float>(rows.layout, testutil::Gather(*problem.dx().view()));
  testutil::ExpectCloseOutsidePoisoned(dx, InRowOrder<double>(rows.layout, expected.dx), hidden,
                                       rows.poisoned, tol, "dx");
  testutil::ExpectAllNan(absl::MakeConstSpan(dx).subspan(rows.poisoned[kNanIndex] * hidden, hidden),
                         "dx of the set with a NaN");

  const Nchw& s = GetParam().shape;
  const double sum_tol =
      testutil::RowSumTolerance(Op::kLayerNorm2d, Direction::kBackward, dtype, s.n * s.h * s.w);
  std::vector<int64_t> poisoned_channels;
  for (const NonFinite& bad : kNonFinites) poisoned_channels.push_back(bad.at.c);
  struct ChannelSums {
    const std::optional<testutil::TestTensor>& got;
    const std::vector<double>& want;
    const char* name;
  };
  for (const ChannelSums& sums : {ChannelSums{problem.dweight(), expected.dweight, "dweight"},
                                  ChannelSums{problem.dbias(), expected.dbias, "dbias"}}) {
    ASSERT_TRUE(sums.got.has_value()) << sums.name;
    const std::vector<float> got = testutil::Gather(*sums.got->view());
    testutil::ExpectCloseOutsidePoisoned(got, sums.want, 1, poisoned_channels, sum_tol, sums.name);
    testutil::ExpectAllNan(absl::MakeConstSpan(got).subspan(kNonFinites[kNanIndex].at.c, 1),
                           sums.name);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryWayToRun, LayerNorm2dForwardConfigTest,
                         ::testing::ValuesIn(testutil::LayerNorm2dConfigs(Direction::kForward,
                                                                          kNonFiniteShape)),
                         testutil::LayerNorm2dCaseTestName);
INSTANTIATE_TEST_SUITE_P(EveryWayToRun, LayerNorm2dBackwardConfigTest,
                         ::testing::ValuesIn(testutil::LayerNorm2dConfigs(Direction::kBackward,
                                                                          kNonFiniteShape)),
                         testutil::LayerNorm2dCaseTestName);

// Enough pixels (2*28*28) and samples for several parallel tasks and chunks.
constexpr Nchw kThreadsShape = {2, 96, 28, 28};

template <typename Problem>
void ExpectThreadCountDoesNotMatter(const LayerNorm2dCase& c) {
  Problem one_thread(c), two_threads(c);
  testutil::ExpectThreadCountDoesNotMatter(one_thread, two_threads,
                                           [](Problem& p) { return p.Run(); });
}

TEST_P(LayerNorm2dForwardThreadsTest, ThreadCountDoesNotChangeResults) {
  ExpectThreadCountDoesNotMatter<LayerNorm2dForwardProblem>(GetParam());
}

// dweight/dbias reduce in fixed chunks in a fixed order (outputs: dx, dweight, dbias).
TEST_P(LayerNorm2dBackwardThreadsTest, ThreadCountDoesNotChangeResults) {
  ExpectThreadCountDoesNotMatter<LayerNorm2dBackwardProblem>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(EveryWayToRun, LayerNorm2dForwardThreadsTest,
                         ::testing::ValuesIn(testutil::LayerNorm2dConfigs(Direction::kForward,
                                                                          kThreadsShape)),
                         testutil::LayerNorm2dCaseTestName);
INSTANTIATE_TEST_SUITE_P(EveryWayToRun, LayerNorm2dBackwardThreadsTest,
                         ::testing::ValuesIn(testutil::LayerNorm2dConfigs(Direction::kBackward,
                                                                          kThreadsShape)),
                         testutil::LayerNorm2dCaseTestName);

// Guards against a silently empty or partial parameterization above.
TEST(LayerNorm2dRegistryTest, EveryDirectionAndDtypeHasARunnableVariant) {
  std::set<std::string> names;
  std::set<std::tuple<Direction, halnorm_dtype>> runnable;
  for (Direction direction : {Direction::kForward, Direction::kBackward}) {
    for (const Variant* variant : testutil::LayerNorm2dVariants(direction)) {
      EXPECT_TRUE(names.insert(testutil::Sanitize(variant->name)).second)
          << "duplicate " << variant->name;
      EXPECT_FALSE(variant->fused_residual) << variant->name;
      if (internal::HostSupports(variant->isa)) runnable.insert({direction, variant->dtype});
    }
  }
  for (Direction direction : {Direction::kForward, Direction::kBackward}) {
    for (halnorm_dtype dtype : {HALNORM_F32, HALNORM_F16, HALNORM_BF16}) {
      EXPECT_EQ(runnable.count({direction, dtype}), 1)
          << internal::DirectionName(direction) << " " << internal::DtypeName(dtype)
          << ": no layer_norm2d variant runs on this CPU";
    }
  }
}

// A small AXES_C NCHW call (the channel-norm kernels' own) forcing `variant`.
LayerNorm2dCase ChannelCall(const Variant* variant, Direction direction, halnorm_dtype dtype) {
  LayerNorm2dCase c;
  c.name = "channel_call";
  c.variant = variant;
  c.direction = direction;
  c.dtype = dtype;
  c.shape = {2, 5, 3, 7};
  return c;
}

// Runs the call and expects a refusal (with `code`, if given) that wrote no output.
void ExpectRefused(const LayerNorm2dCase& c, std::optional<absl::StatusCode> code,
                   const char* why) {
  std::vector<const testutil::TestTensor*> outputs;
  absl::Status status;
  if (c.direction == Direction::kForward) {
    LayerNorm2dForwardProblem problem(c);
    status = problem.Run();
    for (const testutil::TestTensor* output : problem.Outputs()) {
      EXPECT_TRUE(testutil::AllSentinel(*output)) << c.variant->name << " wrote an output";
    }
  } else {
    LayerNorm2dBackwardProblem problem(c);
    status = problem.Run();
    for (const testutil::TestTensor* output : problem.Outputs()) {
      EXPECT_TRUE(testutil::AllSentinel(*output)) << c.variant->name << " wrote an output";
    }
  }
  EXPECT_FALSE(status.ok()) << c.variant->name << " " << why;
  if (code) {
    EXPECT_EQ(status.code(), *code) << c.variant->name << " " << why << ": " << status;
  }
}

// Forcing a variant this CPU cannot execute is an error, not SIGILL.
TEST(LayerNorm2dForcedVariantTest, VariantTheCpuLacksIsRefused) {
  int refused = 0;
  for (Direction direction : {Direction::kForward, Direction::kBackward}) {
    for (const Variant* variant : testutil::LayerNorm2dVariants(direction)) {
      if (internal::HostSupports(variant->isa)) continue;
      ExpectRefused(ChannelCall(variant, direction, variant->dtype),
                    absl::StatusCode::kFailedPrecondition, "on a CPU without its ISA");
      ++refused;
    }
  }
  if (refused == 0) GTEST_SKIP() << "this CPU runs every variant";
}

// On a call the channel-norm kernels run, a forced variant must fit it.
TEST(LayerNorm2dForcedVariantTest, VariantOfAnotherDtypeOrDirectionIsRefused) {
  for (Direction direction : {Direction::kForward, Direction::kBackward}) {
    const Direction other =
        direction == Direction::kForward ? Direction::kBackward : Direction::kForward;
    for (const Variant* variant : testutil::LayerNorm2dVariants(direction)) {
      if (!internal::HostSupports(variant->isa)) continue;
      const halnorm_dtype other_dtype = variant->dtype == HALNORM_F32 ? HALNORM_BF16 : HALNORM_F32;
      ExpectRefused(ChannelCall(variant, direction, other_dtype), std::nullopt,
                    "ran another dtype");
      ExpectRefused(ChannelCall(variant, other, variant->dtype), std::nullopt,
                    "ran the other direction");
    }
  }
}

// Over CHW and HW the host reuses a thread's weight and bias planes when a
// call's parameters repeat (runtime/channel_planes.h). Neither parameters
// changed in place (same address and shape) nor a call of another size in
// between, whose planes overlap these, may leave them stale.
TEST(LayerNorm2dPlaneReuseTest, PlanesNeverGoStale) {
  auto change = [](std::optional<TestTensor>& t) {
    ASSERT_TRUE(t.has_value());
    for (int64_t i = t->data_offset(); i < t->storage_elements(); i++) {
      t->Store(i, 0.25f - 1.5f * t->Load(i));
    }
  };
  for (halnorm_axes axes : {HALNORM_AXES_CHW, HALNORM_AXES_HW}) {
    for (bool channels_last : {false, true}) {
      if (axes == HALNORM_AXES_HW && channels_last) continue;  // refused
      SCOPED_TRACE(testing::Message()
                   << testutil::AxesName(axes) << " channels_last " << channels_last);
      LayerNorm2dCase c;
      c.name = "plane_reuse";
      c.axes = axes;
      c.channels_last = channels_last;
      c.direction = Direction::kForward;
      c.shape = {1, 24, 5, 9};
      LayerNorm2dForwardProblem forward(c);
      // Its weight plane overwrites the start of the forward's bias plane.
      c.direction = Direction::kBackward;
      c.shape = {1, 24, 5, 13};
      LayerNorm2dBackwardProblem backward(c);
      auto run_forward = [&] {
        ASSERT_EQ(forward.RunPublic(), HALNORM_OK) << halnorm_last_error();
        forward.ExpectMatchesReference();
      };
      auto run_backward = [&] {
        ASSERT_EQ(backward.RunPublic(), HALNORM_OK) << halnorm_last_error();
        backward.ExpectMatchesReference();
      };
      run_forward();
      run_forward();  // the same parameters: the planes as they are
      change(forward.weight());
      change(forward.bias());
      run_forward();
      run_backward();
      run_forward();
      change(backward.weight());
      run_backward();
    }
  }
}

// The C entry points: every axes, layout and dtype, through dispatch.
class LayerNorm2dPublicTest
    : public ::testing::TestWithParam<std::tuple<halnorm_axes, bool, halnorm_dtype>> {
 protected:
  LayerNorm2dCase Case(Direction direction, const Nchw& shape) const {
    const auto [axes, channels_last, dtype] = GetParam();
    LayerNorm2dCase c;
    c.name = "public";
    c.direction = direction;
    c.axes = axes;
    c.channels_last = channels_last;
    c.dtype = dtype;
    c.params_f32 = dtype == HALNORM_F32;  // 16-bit: parameters in the activation dtype
    c.shape = shape;
    return c;
  }

  // AXES_HW on channels-last would need a copy: the runtime refuses it
  // (README), naming x and the axes.
  template <typename Problem>
  void RunAndCheck(Problem& problem) {
    const auto [axes, channels_last, dtype] = GetParam();
    const int code = problem.RunPublic();
    if (axes == HALNORM_AXES_HW && channels_last) {
      EXPECT_EQ(code, HALNORM_ERROR_INVALID_ARGUMENT);
      EXPECT_THAT(std::string(halnorm_last_error()), ::testing::HasSubstr("x: AXES_HW"));
      return;
    }
    ASSERT_EQ(code, HALNORM_OK) << halnorm_last_error();
    problem.ExpectMatchesReference();
  }
};

// Two samples, and one (rows of one channel each over HW).
constexpr Nchw kPublicShapes[] = {{2, 24, 5, 9}, {1, 24, 5, 9}};

TEST_P(LayerNorm2dPublicTest, ForwardMatchesReference) {
  for (const Nchw& shape : kPublicShapes) {
    SCOPED_TRACE(testing::Message() << "N=" << shape.n);
    LayerNorm2dForwardProblem problem(Case(Direction::kForward, shape));
    RunAndCheck(problem);
  }
}

TEST_P(LayerNorm2dPublicTest, BackwardMatchesReference) {
  for (const Nchw& shape : kPublicShapes) {
    SCOPED_TRACE(testing::Message() << "N=" << shape.n);
    LayerNorm2dBackwardProblem problem(Case(Direction::kBackward, shape));
    RunAndCheck(problem);
  }
}

std::string PublicTestName(
    const ::testing::TestParamInfo<std::tuple<halnorm_axes, bool, halnorm_dtype>>& info) {
  const auto [axes, channels_last, dtype] = info.param;
  return absl::StrCat(testutil::AxesName(axes), channels_last ? "_nhwc_" : "_nchw_",
                      internal::DtypeName(dtype));
}

INSTANTIATE_TEST_SUITE_P(
    AxesLayoutsDtypes, LayerNorm2dPublicTest,
    ::testing::Combine(::testing::Values(HALNORM_AXES_C, HALNORM_AXES_CHW, HALNORM_AXES_HW),
                       ::testing::Bool(),
                       ::testing::Values(HALNORM_F32, HALNORM_F16, HALNORM_BF16)),
    PublicTestName);

}  // namespace
}  // namespace halnorm
