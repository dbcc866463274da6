// Every compiled LayerNorm and RMSNorm forward variant (f32, f16, bf16, with
// and without the fused residual add) against the float64 reference, on the
// cases of row_norm_cases.cc; plus non-finite propagation, thread-count
// independence, forced-variant checks and the public (dispatching) entry points.
#include <cmath>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "runtime/device_call.h"
#include "runtime/dispatch.h"
#include "runtime/halnorm_c.h"
#include "runtime/variant_registry.h"
#include "tests/reference/row_norm_reference.h"
#include "tests/row_norm_cases.h"
#include "tests/row_norm_forward_problem.h"
#include "tests/test_tensors.h"
#include "tests/thread_count_check.h"
#include "tests/tolerance.h"
#include "tests/variant_params.h"

namespace halnorm {
namespace {

using internal::Direction;
using internal::Op;
using internal::Variant;
using testutil::ForwardProblem;
using testutil::MatrixCase;
using testutil::RowNormCase;
using testutil::VariantAndCase;

std::vector<const Variant*> ForwardVariants() {
  return testutil::RowNormVariants(Direction::kForward);
}

using RowNormForwardTest = testutil::VariantTest<VariantAndCase>;

TEST_P(RowNormForwardTest, MatchesReference) {
  ForwardProblem problem(GetParam().row_case);
  const absl::Status status = problem.Run(GetParam().variant);
  if (internal::IsConfigRefusal(status)) GTEST_SKIP() << status;
  ASSERT_TRUE(status.ok()) << status;
  problem.ExpectMatchesReference();
}

INSTANTIATE_TEST_SUITE_P(AllCases, RowNormForwardTest,
                         ::testing::ValuesIn(testutil::VariantsAndCases(Direction::kForward)),
                         testutil::VariantAndCaseTestName);

using RowNormForwardVariantTest = testutil::VariantTest<const Variant*>;

// An inf or NaN poisons its own row and no other. A NaN makes its whole row
// NaN (mean, rstd and every y depend on it); for an inf the reference's
// non-finite outputs must be non-finite.
TEST_P(RowNormForwardVariantTest, NonFiniteStaysInItsRow) {
  constexpr int64_t kHidden = 37;
  constexpr int64_t kNanRow = 3;
  ForwardProblem problem(MatrixCase(*GetParam(), 5, kHidden));
  std::vector<float> x = testutil::Gather(*problem.x().view());
  x[1 * kHidden + 18] = INFINITY;            // mid-row
  x[kNanRow * kHidden + 0] = NAN;            // the first element
  x[4 * kHidden + kHidden - 1] = -INFINITY;  // the last element (a vector tail)
  testutil::Scatter(x, problem.x());
  const absl::Status status = problem.Run(GetParam());
  if (internal::IsConfigRefusal(status)) GTEST_SKIP() << status;
  ASSERT_TRUE(status.ok()) << status;

  const reference::ForwardResult expected = problem.Expected();
  const RowNormCase& c = problem.row_case();
  const double tol = testutil::Tolerance(c.op, Direction::kForward, c.dtype);
  const std::vector<int64_t> poisoned = {1, kNanRow, 4};
  const std::vector<float> y = testutil::Gather(*problem.y().view());
  testutil::ExpectCloseOutsidePoisoned(y, expected.y, kHidden, poisoned, tol, "y");
  testutil::ExpectAllNan(absl::MakeConstSpan(y).subspan(kNanRow * kHidden, kHidden),
                         "y of the row with a NaN");
  if (problem.mean()) {
    const std::vector<float> mean = testutil::Gather(*problem.mean()->view());
    testutil::ExpectCloseOutsidePoisoned(mean, expected.mean, 1, poisoned, tol, "mean");
    testutil::ExpectAllNan(absl::MakeConstSpan(mean).subspan(kNanRow, 1), "mean of the NaN row");
  }
  const std::vector<float> rstd = testutil::Gather(*problem.rstd()->view());
  testutil::ExpectCloseOutsidePoisoned(rstd, expected.rstd, 1, poisoned, tol, "rstd");
  testutil::ExpectAllNan(absl::MakeConstSpan(rstd).subspan(kNanRow, 1), "rstd of the NaN row");
  // h = alpha * x + residual is elementwise: exactly the poisoned elements.
  if (problem.residual_out()) {
    testutil::ExpectClose(testutil::Gather(*problem.residual_out()->view()), expected.h, tol,
                          "residual_out");
  }
}

// Rows are independent, so splitting them across threads must not change a bit.
TEST_P(RowNormForwardVariantTest, ThreadCountDoesNotChangeResults) {
  const RowNormCase c = MatrixCase(*GetParam(), 256, 1000);
  ForwardProblem one_thread(c), two_threads(c);
  testutil::ExpectThreadCountDoesNotMatter(one_thread, two_threads,
                                           [&](ForwardProblem& p) { return p.Run(GetParam()); });
}

// A call with fewer rows than threads x rows_per_task shares them out in
// smaller tasks (runtime/forward_tasks.h): 13 rows of 2048 go as 7 + 6 rows
// (f32, 2 threads), 8 + 5 (16-bit), 5 + 5 + 3 (f32, 3 threads), cutting
// across the configs' groups of statistics rows.
TEST_P(RowNormForwardVariantTest, FewRowsSharedByThreadsDoNotChangeResults) {
  for (int threads : {2, 3}) {
    SCOPED_TRACE(absl::StrCat(threads, " threads"));
    const RowNormCase c = MatrixCase(*GetParam(), 13, 2048);
    ForwardProblem one_thread(c), shared(c);
    testutil::ExpectThreadCountDoesNotMatter(
        one_thread, shared, [&](ForwardProblem& p) { return p.Run(GetParam()); }, threads);
  }
}

// A forced variant must fit the call: fused or not as the call's residual.
TEST_P(RowNormForwardVariantTest, RefusesACallWithTheOtherResidualMode) {
  RowNormCase c = MatrixCase(*GetParam(), 5, 33);
  c.residual = !c.residual;
  ForwardProblem problem(c);
  const absl::Status status = problem.Run(GetParam());
  EXPECT_FALSE(status.ok()) << GetParam()->name << " ran a call with residual " << c.residual;
  for (const testutil::TestTensor* output : problem.Outputs()) {
    EXPECT_TRUE(testutil::AllSentinel(*output)) << "an output was written";
  }
}

INSTANTIATE_TEST_SUITE_P(AllVariants, RowNormForwardVariantTest,
                         ::testing::ValuesIn(ForwardVariants()), testutil::VariantTestName);

// Guards against a silently empty or partial parameterization above: every
// (op, dtype, fused residual) has a variant this CPU runs, and so has every
// 16-bit (op, dtype) with native params, under a unique name.
TEST(RowNormForwardRegistryTest, EveryOpDtypeAndKindHasARunnableVariant) {
  std::set<std::string> names;
  std::set<std::tuple<Op, halnorm_dtype, bool, bool>> runnable;
  for (const Variant* variant : ForwardVariants()) {
    EXPECT_TRUE(names.insert(testutil::Sanitize(variant->name)).second)
        << "duplicate " << variant->name;
    if (internal::HostSupports(variant->isa) && variant->device == internal::Device::kCpu) {
      runnable.insert({variant->op, variant->dtype, variant->fused_residual,
                       variant->native_params});
    }
  }
  for (Op op : {Op::kLayerNorm, Op::kRmsNorm}) {
    for (halnorm_dtype dtype : {HALNORM_F32, HALNORM_F16, HALNORM_BF16}) {
      for (auto [fused, native] : {std::pair{false, false}, {true, false}, {false, true}}) {
        if (native && dtype == HALNORM_F32) continue;
        EXPECT_EQ(runnable.count({op, dtype, fused, native}), 1)
            << internal::OpName(op) << " " << internal::DtypeName(dtype) << " fused_residual "
            << fused << " native_params " << native << ": no variant runs on this CPU";
      }
    }
  }
}

// Forcing a variant this CPU cannot execute is an error, not SIGILL.
TEST(RowNormForwardForcedVariantTest, VariantTheCpuLacksIsRefused) {
  int refused = 0;
  for (const Variant* variant : ForwardVariants()) {
    if (internal::HostSupports(variant->isa)) continue;
    ForwardProblem problem(MatrixCase(*variant, 5, 33));
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

// A forced variant of another op or dtype is refused too.
TEST(RowNormForwardForcedVariantTest, VariantOfAnotherOpOrDtypeIsRefused) {
  for (const Variant* variant : ForwardVariants()) {
    if (!internal::HostSupports(variant->isa)) continue;
    RowNormCase c = MatrixCase(*variant, 5, 33);
    c.op = variant->op == Op::kLayerNorm ? Op::kRmsNorm : Op::kLayerNorm;
    c.bias = c.mean = c.op == Op::kLayerNorm;
    ForwardProblem other_op(c);
    EXPECT_FALSE(other_op.Run(variant).ok()) << variant->name << " ran " << internal::OpName(c.op);
    c = MatrixCase(*variant, 5, 33);
    c.dtype = variant->dtype == HALNORM_F32 ? HALNORM_BF16 : HALNORM_F32;
    ForwardProblem other_dtype(c);
    EXPECT_FALSE(other_dtype.Run(variant).ok())
        << variant->name << " ran " << internal::DtypeName(c.dtype);
  }
}

// The C entry points dispatch to some variant; the result obeys the same
// contract, with f32 weight and bias and, for 16-bit x, with x's dtype: on
// as many rows as dispatch sends to the native-params variants (which add
// the weight offset themselves; not with a residual) and one more.
class RowNormForwardPublicTest
    : public ::testing::TestWithParam<std::tuple<Op, halnorm_dtype, bool>> {};

TEST_P(RowNormForwardPublicTest, DispatchedResultMatchesReference) {
  const auto [op, dtype, residual] = GetParam();
  for (const Variant* variant : ForwardVariants()) {
    if (variant->op != op || variant->dtype != dtype || variant->fused_residual != residual) {
      continue;
    }
    for (auto [params_f32, rows] : {std::pair{true, int64_t{5}},
                                    {false, internal::kNativeParamsMaxRows},
                                    {false, internal::kNativeParamsMaxRows + 1}}) {
      if (!params_f32 && dtype == HALNORM_F32) continue;
      RowNormCase c = MatrixCase(*variant, rows, 768);
      c.x_strides = {768 + 3, 1};
      c.y_strides = {768 + 8, 1};
      c.weight_offset = 1.0f;
      c.residual_alpha = 2.0f;
      c.params_f32 = params_f32;
      ForwardProblem problem(c);
      ASSERT_EQ(problem.RunPublic(), HALNORM_OK) << halnorm_last_error();
      problem.ExpectMatchesReference();
    }
    return;
  }
  FAIL() << "no variant for this op, dtype and residual mode";
}

std::string PublicTestName(
    const ::testing::TestParamInfo<std::tuple<Op, halnorm_dtype, bool>>& info) {
  const auto [op, dtype, residual] = info.param;
  return absl::StrCat(internal::OpName(op), "_", internal::DtypeName(dtype),
                      residual ? "_residual" : "");
}

INSTANTIATE_TEST_SUITE_P(OpsDtypesResidual, RowNormForwardPublicTest,
                         ::testing::Combine(::testing::Values(Op::kLayerNorm, Op::kRmsNorm),
                                            ::testing::Values(HALNORM_F32, HALNORM_F16,
                                                              HALNORM_BF16),
                                            ::testing::Bool()),
                         PublicTestName);

}  // namespace
}  // namespace halnorm
