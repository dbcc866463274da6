// Every compiled LayerNorm and RMSNorm backward variant (f32, f16, bf16)
// against the float64 reference, on the cases of row_norm_cases.cc; plus
// non-finite propagation, a weight the row means must see, deterministic
// dweight/dbias across thread counts and the public (dispatching) entry points.
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "runtime/device_call.h"
#include "runtime/halnorm_c.h"
#include "runtime/variant_registry.h"
#include "tests/reference/row_norm_reference.h"
#include "tests/row_norm_backward_problem.h"
#include "tests/row_norm_cases.h"
#include "tests/test_tensors.h"
#include "tests/thread_count_check.h"
#include "tests/tolerance.h"
#include "tests/variant_params.h"

namespace halnorm {
namespace {

using internal::Direction;
using internal::Op;
using internal::Variant;
using testutil::BackwardProblem;
using testutil::MatrixCase;
using testutil::RowNormCase;
using testutil::VariantAndCase;

std::vector<const Variant*> BackwardVariants() {
  return testutil::RowNormVariants(Direction::kBackward);
}

using RowNormBackwardTest = testutil::VariantTest<VariantAndCase>;

TEST_P(RowNormBackwardTest, MatchesReference) {
  BackwardProblem problem(GetParam().row_case);
  const absl::Status status = problem.Run(GetParam().variant);
  if (internal::IsConfigRefusal(status)) GTEST_SKIP() << status;
  ASSERT_TRUE(status.ok()) << status;
  problem.ExpectMatchesReference();
}

INSTANTIATE_TEST_SUITE_P(AllCases, RowNormBackwardTest,
                         ::testing::ValuesIn(testutil::VariantsAndCases(Direction::kBackward)),
                         testutil::VariantAndCaseTestName);

using RowNormBackwardVariantTest = testutil::VariantTest<const Variant*>;

// An inf or NaN in dy poisons its row of dx and its column of dweight/dbias,
// nothing else. A NaN reaches all of its row (through the row means) and
// its column's sums; for an inf the reference's non-finite outputs must be
// non-finite (inf - inf gives NaN or inf depending on the order).
TEST_P(RowNormBackwardVariantTest, NonFiniteStaysInItsRowAndColumn) {
  constexpr int64_t kHidden = 37;
  constexpr int64_t kNanRow = 3;
  constexpr int64_t kNanColumn = 0;
  BackwardProblem problem(MatrixCase(*GetParam(), 5, kHidden));
  std::vector<float> dy = testutil::Gather(*problem.dy().view());
  dy[1 * kHidden + 18] = INFINITY;            // mid-row
  dy[kNanRow * kHidden + kNanColumn] = NAN;   // the first element
  dy[4 * kHidden + kHidden - 1] = -INFINITY;  // the last element (a vector tail)
  testutil::Scatter(dy, problem.dy());
  const absl::Status status = problem.Run(GetParam());
  if (internal::IsConfigRefusal(status)) GTEST_SKIP() << status;
  ASSERT_TRUE(status.ok()) << status;

  const reference::BackwardResult expected = problem.Expected();
  const RowNormCase& c = problem.row_case();
  const double tol = testutil::Tolerance(c.op, Direction::kBackward, c.dtype);
  const double sum_tol = testutil::RowSumTolerance(c.op, Direction::kBackward, c.dtype, 5);
  const std::vector<float> dx = testutil::Gather(*problem.dx().view());
  testutil::ExpectCloseOutsidePoisoned(dx, expected.dx, kHidden, {1, kNanRow, 4}, tol, "dx");
  testutil::ExpectAllNan(absl::MakeConstSpan(dx).subspan(kNanRow * kHidden, kHidden),
                         "dx of the row with a NaN");
  const std::vector<int64_t> poisoned_columns = {kNanColumn, 18, kHidden - 1};
  struct ColumnSums {
    const std::optional<testutil::TestTensor>& got;
    const std::vector<double>& want;
    const char* name;
  };
  for (const ColumnSums& sums : {ColumnSums{problem.dweight(), expected.dweight, "dweight"},
                                 ColumnSums{problem.dbias(), expected.dbias, "dbias"}}) {
    if (!sums.got) continue;
    const std::vector<float> got = testutil::Gather(*sums.got->view());
    testutil::ExpectCloseOutsidePoisoned(got, sums.want, 1, poisoned_columns, sum_tol, sums.name);
    testutil::ExpectAllNan(absl::MakeConstSpan(got).subspan(kNanColumn, 1), sums.name);
  }
}

// g = dy * w enters both row means. A kernel that leaves w out of them
// (dx = w * rstd * (dy - mean(dy) - xhat * mean(dy * xhat))) agrees with
// the right formula for a uniform weight only; this weight tells them apart.
TEST_P(RowNormBackwardVariantTest, NonUniformWeightEntersTheRowMeans) {
  constexpr int64_t kHidden = 64;
  BackwardProblem problem(MatrixCase(*GetParam(), 7, kHidden));
  std::vector<float> weight(kHidden);
  for (int64_t i = 0; i < kHidden; ++i) weight[i] = i % 4 == 0 ? 3.0f : -0.5f;
  testutil::Scatter(weight, *problem.weight());
  const absl::Status status = problem.Run(GetParam());
  if (internal::IsConfigRefusal(status)) GTEST_SKIP() << status;
  ASSERT_TRUE(status.ok()) << status;
  problem.ExpectMatchesReference();

  // The case discriminates: the wrong formula, w * (dx without a weight),
  // misses the reference by far more than the tolerance.
  RowNormCase unweighted = problem.row_case();
  unweighted.weight = false;
  const std::vector<double> right = problem.Expected().dx;
  const std::vector<double> unweighted_dx = BackwardProblem(unweighted).Expected().dx;
  double largest_difference = 0.0;
  for (size_t i = 0; i < right.size(); ++i) {
    const double wrong = weight[i % kHidden] * unweighted_dx[i];
    largest_difference =
        std::max(largest_difference, std::abs(wrong - right[i]) / (std::abs(right[i]) + 1));
  }
  EXPECT_GT(largest_difference,
            10 * testutil::Tolerance(GetParam()->op, Direction::kBackward, GetParam()->dtype));
}

// dweight/dbias reduce over rows in fixed chunks in a fixed order: no bit of
// any output may depend on how many threads ran.
TEST_P(RowNormBackwardVariantTest, ThreadCountDoesNotChangeResults) {
  const RowNormCase c = MatrixCase(*GetParam(), 1000, 257);
  BackwardProblem one_thread(c), two_threads(c);
  testutil::ExpectThreadCountDoesNotMatter(one_thread, two_threads,
                                           [&](BackwardProblem& p) { return p.Run(GetParam()); });
}

INSTANTIATE_TEST_SUITE_P(AllVariants, RowNormBackwardVariantTest,
                         ::testing::ValuesIn(BackwardVariants()), testutil::VariantTestName);

// Guards against a silently empty or partial parameterization above.
TEST(RowNormBackwardRegistryTest, EveryOpAndDtypeHasARunnableVariant) {
  std::set<std::string> names;
  std::set<std::tuple<Op, halnorm_dtype>> runnable;
  for (const Variant* variant : BackwardVariants()) {
    EXPECT_TRUE(names.insert(testutil::Sanitize(variant->name)).second)
        << "duplicate " << variant->name;
    EXPECT_FALSE(variant->fused_residual) << variant->name;
    if (internal::HostSupports(variant->isa)) runnable.insert({variant->op, variant->dtype});
  }
  for (Op op : {Op::kLayerNorm, Op::kRmsNorm}) {
    for (halnorm_dtype dtype : {HALNORM_F32, HALNORM_F16, HALNORM_BF16}) {
      EXPECT_EQ(runnable.count({op, dtype}), 1)
          << internal::OpName(op) << " " << internal::DtypeName(dtype)
          << ": no backward variant runs on this CPU";
    }
  }
}

// Forcing a variant this CPU cannot execute is an error, not SIGILL.
TEST(RowNormBackwardForcedVariantTest, VariantTheCpuLacksIsRefused) {
  int refused = 0;
  for (const Variant* variant : BackwardVariants()) {
    if (internal::HostSupports(variant->isa)) continue;
    BackwardProblem problem(MatrixCase(*variant, 5, 33));
    const absl::Status status = problem.Run(variant);
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition)
        << variant->name << ": " << status;
    for (const testutil::TestTensor* output : problem.Outputs()) {
      EXPECT_TRUE(testutil::AllSentinel(*output)) << variant->name << " wrote an output";
    }
    ++refused;
  }
  if (refused == 0) GTEST_SKIP() << "this CPU runs every variant";
}

// The C entry points dispatch to some variant; the result obeys the same contract.
class RowNormBackwardPublicTest
    : public ::testing::TestWithParam<std::tuple<Op, halnorm_dtype, bool>> {};

TEST_P(RowNormBackwardPublicTest, DispatchedResultMatchesReference) {
  const auto [op, dtype, params_f32] = GetParam();
  for (const Variant* variant : BackwardVariants()) {
    if (variant->op != op || variant->dtype != dtype) continue;
    RowNormCase c = MatrixCase(*variant, 64, 768);
    c.x_strides = {768 + 3, 1};
    c.y_strides = {768 + 8, 1};
    c.dx_strides = {768 + 5, 1};
    c.params_f32 = params_f32;
    c.weight_offset = 1.0f;
    c.residual = true;
    BackwardProblem problem(c);
    ASSERT_EQ(problem.RunPublic(), HALNORM_OK) << halnorm_last_error();
    problem.ExpectMatchesReference();
    return;
  }
  FAIL() << "no backward variant for this op and dtype";
}

std::string PublicTestName(
    const ::testing::TestParamInfo<std::tuple<Op, halnorm_dtype, bool>>& info) {
  const auto [op, dtype, params_f32] = info.param;
  return absl::StrCat(internal::OpName(op), "_", internal::DtypeName(dtype),
                      params_f32 ? "_f32_params" : "_params_in_dtype");
}

INSTANTIATE_TEST_SUITE_P(OpsDtypes, RowNormBackwardPublicTest,
                         ::testing::Combine(::testing::Values(Op::kLayerNorm, Op::kRmsNorm),
                                            ::testing::Values(HALNORM_F32, HALNORM_F16,
                                                              HALNORM_BF16),
                                            ::testing::Bool()),
                         PublicTestName);

}  // namespace
}  // namespace halnorm
