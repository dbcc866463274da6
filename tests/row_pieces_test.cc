// Calls on tensors past the kernels' 32-bit offsets run in pieces of whole
// rows (runtime/row_batch.h). Cheap enough for every run (and --config=asan):
//  - PlanPieces, the planner, on small made-up shapes and limits: each piece
//    fits, is the largest that does, starts on a chunk boundary, and a unit
//    that cannot fit is refused naming its argument;
//  - every op through the same pieces a 2 GiB tensor takes, on small tensors
//    under a lowered limit (ScopedKernelSpanLimitForTesting): the outputs are
//    bitwise those of the unsplit call, dweight/dbias included, at every
//    limit down to the one refused, which writes nothing.
// tests/large_tensor_test.cc runs a real tensor of more than 2^31 elements.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cpu_features.h"
#include "runtime/device_call.h"
#include "runtime/dispatch.h"
#include "runtime/halnorm_c.h"
#include "runtime/row_batch.h"
#include "runtime/tensor_checks.h"
#include "runtime/variant_registry.h"
#include "tests/layer_norm2d_cases.h"
#include "tests/layer_norm2d_problems.h"
#include "tests/row_norm_backward_problem.h"
#include "tests/row_norm_cases.h"
#include "tests/row_norm_forward_problem.h"
#include "tests/test_tensors.h"
#include "tests/variant_params.h"

namespace halnorm {
namespace {

using internal::Direction;
using internal::kKernelMaxSpanBytes;
using internal::Op;
using internal::PieceOperand;
using internal::PiecePartials;
using internal::PiecePlan;
using internal::PlanPieces;
using internal::ScopedKernelSpanLimitForTesting;
using internal::Variant;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testutil::TestTensor;

// ---- PlanPieces --------------------------------------------------------

// The planner's rule, restated: a piece of `rows` x `lines` fits.
struct PlanProblem {
  int64_t r_extent, b_extent, unit_elements;
  std::vector<PieceOperand> operands;
  PiecePartials partials;
  int64_t limit;

  bool Fits(int64_t rows, int64_t lines, int64_t rows_per_slot) const {
    if (rows * lines * unit_elements > internal::kKernelMaxElements) return false;
    for (const PieceOperand& op : operands) {
      const int64_t last = (rows - 1) * op.r_stride + (lines - 1) * op.b_stride + op.unit_span;
      if (last * op.elem_bytes > limit) return false;
    }
    if (partials.name == nullptr) return true;
    const int64_t slots = rows_per_slot > 0 ? (rows + rows_per_slot - 1) / rows_per_slot : 1;
    return slots * lines * partials.slot_bytes <= limit;
  }

  absl::StatusOr<PiecePlan> Plan() const {
    return PlanPieces(r_extent, b_extent, unit_elements, operands, partials, limit, "row",
                      "the normalized dims");
  }
};

// What every plan must be: pieces that fit, each the largest of its kind
// (whole slabs, then whole lines, then rows on chunk boundaries).
void ExpectPlanIsLargestThatFits(const PlanProblem& p, const PiecePlan& plan) {
  const int64_t rps = p.partials.rows_per_slot;
  ASSERT_GE(plan.rows_per_piece, 1);
  ASSERT_GE(plan.lines_per_piece, 1);
  ASSERT_LE(plan.rows_per_piece, p.r_extent);
  ASSERT_LE(plan.lines_per_piece, p.b_extent);
  EXPECT_TRUE(p.Fits(plan.rows_per_piece, plan.lines_per_piece, plan.rows_per_slot));
  if (plan.rows_per_piece == p.r_extent) {
    EXPECT_EQ(plan.rows_per_slot, rps) << "chunks change only where lines split";
    if (plan.lines_per_piece < p.b_extent) {
      EXPECT_FALSE(p.Fits(p.r_extent, plan.lines_per_piece + 1, rps));
    }
    return;
  }
  EXPECT_FALSE(p.Fits(p.r_extent, 1, rps)) << "a line fits, yet lines are split";
  EXPECT_EQ(plan.lines_per_piece, 1);
  if (rps == 0) {
    EXPECT_EQ(plan.rows_per_slot, 0);
    EXPECT_FALSE(p.Fits(plan.rows_per_piece + 1, 1, 0));
    return;
  }
  ASSERT_GE(plan.rows_per_slot, 1);
  EXPECT_EQ(plan.rows_per_piece % plan.rows_per_slot, 0) << "a piece must start on a chunk";
  if (plan.rows_per_slot == rps) {
    // The next chunk boundary does not fit.
    EXPECT_FALSE(p.Fits(plan.rows_per_piece + rps, 1, rps));
  } else {
    // Chunks shrink only where one chunk does not fit, to the rows that do.
    EXPECT_LT(plan.rows_per_slot, rps);
    EXPECT_FALSE(p.Fits(rps, 1, rps));
    EXPECT_EQ(plan.rows_per_piece, plan.rows_per_slot);
    EXPECT_FALSE(p.Fits(plan.rows_per_piece + 1, 1, rps));
  }
}

PieceOperand RowOperand(const char* name, int64_t hidden, int64_t elem_bytes, int64_t r_stride,
                        int64_t b_stride = 0) {
  return {name, hidden, elem_bytes, r_stride, b_stride};
}

TEST(PlanPiecesTest, WholeCallWhenEverythingFits) {
  const PlanProblem p{
      100, 3, 64, {RowOperand("x", 64, 4, 64, 6400), RowOperand("y", 64, 4, 64, 6400)}, {}, 76800};
  const absl::StatusOr<PiecePlan> plan = p.Plan();
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->rows_per_piece, 100);
  EXPECT_EQ(plan->lines_per_piece, 3);
}

TEST(PlanPiecesTest, WholeLinesWhenALineFits) {
  // A line is 100 rows of 256 bytes; y's lines are padded to 7000 elements.
  const PlanProblem p{
      100, 5, 64, {RowOperand("x", 64, 4, 64, 6400), RowOperand("y", 64, 4, 64, 7000)}, {}, 60000};
  const absl::StatusOr<PiecePlan> plan = p.Plan();
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->rows_per_piece, 100);
  EXPECT_EQ(plan->lines_per_piece, 2);  // y: (7000 + 6400) * 4 bytes fit, (14000 + 6400) * 4 not
  ExpectPlanIsLargestThatFits(p, *plan);
}

TEST(PlanPiecesTest, RowsOnChunkBoundaries) {
  // 1000 rows of 256 bytes in 16-row chunks; 300 rows fit, so 288.
  const PlanProblem p{1000, 1, 64, {RowOperand("x", 64, 4, 64)}, {"x", 64 * 4, 16}, 300 * 256};
  const absl::StatusOr<PiecePlan> plan = p.Plan();
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->rows_per_piece, 288);
  EXPECT_EQ(plan->lines_per_piece, 1);
  EXPECT_EQ(plan->rows_per_slot, 16);
}

TEST(PlanPiecesTest, ChunksShrinkOnlyWhereOneDoesNotFit) {
  // Rows 1000 elements apart: 5 rows fit, a 16-row chunk does not.
  const PlanProblem p{
      100, 1, 64, {RowOperand("x", 64, 4, 1000)}, {"x", 64 * 4, 16}, 4 * 1000 * 4 + 256};
  const absl::StatusOr<PiecePlan> plan = p.Plan();
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->rows_per_piece, 5);
  EXPECT_EQ(plan->rows_per_slot, 5);
}

TEST(PlanPiecesTest, GpuPartialsOneSlotPerPiece) {
  const PlanProblem p{1000, 1, 64, {RowOperand("x", 64, 2, 64)}, {"x", 64 * 4, 0}, 300 * 128};
  const absl::StatusOr<PiecePlan> plan = p.Plan();
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->rows_per_piece, 300);
  EXPECT_EQ(plan->rows_per_slot, 0);
}

TEST(PlanPiecesTest, BroadcastInputIsBoundByElementCount) {
  // x read with row stride 0 spans one row however many rows a piece has;
  // the kernels also count a buffer's elements (< 2^31).
  const int64_t hidden = 1 << 20;
  const PlanProblem p{1 << 12, 1, hidden, {RowOperand("x", hidden, 2, 0)}, {}, kKernelMaxSpanBytes};
  const absl::StatusOr<PiecePlan> plan = p.Plan();
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->rows_per_piece, 2047);  // 2048 rows of 2^20 would be 2^31 elements
  ExpectPlanIsLargestThatFits(p, *plan);
}

// The shape tests/large_tensor_test.cc runs: [262148, 8192] f16, 4 GiB.
TEST(PlanPiecesTest, TwoToThe31ElementsOfF16) {
  const int64_t rows = 262148, hidden = 8192;
  const std::vector<PieceOperand> activations = {
      RowOperand("x", hidden, 2, hidden), RowOperand("y", hidden, 2, hidden),
      RowOperand("rstd", 1, 4, 1), RowOperand("weight", hidden, 4, 0)};
  const PlanProblem forward{rows, 1, hidden, activations, {}, kKernelMaxSpanBytes};
  absl::StatusOr<PiecePlan> plan = forward.Plan();
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->rows_per_piece, 131071);  // 131072 rows of 16 KiB are 2^31 bytes
  // Backward: 16-row chunks (row_norm_backward.cc RowsPerChunk at 16 KiB rows).
  const PlanProblem backward{
      rows, 1, hidden, activations, {"x", hidden * 4, 16}, kKernelMaxSpanBytes};
  plan = backward.Plan();
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->rows_per_piece, 131056);
  EXPECT_EQ(plan->rows_per_slot, 16);
}

TEST(PlanPiecesTest, RowTooLargeNamesItsArgument) {
  const PlanProblem p{10, 1, 64, {RowOperand("x", 64, 2, 64), RowOperand("y", 64, 4, 64)}, {}, 200};
  const absl::StatusOr<PiecePlan> plan = p.Plan();
  ASSERT_FALSE(plan.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(plan.status()));
  EXPECT_THAT(std::string(plan.status().message()),
              StartsWith("y: one row (the normalized dims) spans 256 bytes"));
  EXPECT_THAT(std::string(plan.status().message()), HasSubstr("less than 201 bytes per tensor"));
  EXPECT_THAT(std::string(plan.status().message()), HasSubstr("split only between whole rows"));
}

TEST(PlanPiecesTest, RowOfPartialSumsTooLarge) {
  const PlanProblem p{10, 1, 64, {RowOperand("x", 64, 2, 64)}, {"x", 64 * 4, 8}, 200};
  const absl::StatusOr<PiecePlan> plan = p.Plan();
  ASSERT_FALSE(plan.ok());
  EXPECT_THAT(std::string(plan.status().message()),
              StartsWith("x: one row (the normalized dims) needs 256 bytes"));
  EXPECT_THAT(std::string(plan.status().message()), HasSubstr("partial sums"));
}

TEST(PlanPiecesTest, RealLimitSaysTwoToThe31) {
  const int64_t hidden = int64_t{1} << 30;
  const PlanProblem p{2, 1, hidden, {RowOperand("x", hidden, 2, hidden)}, {}, kKernelMaxSpanBytes};
  const absl::StatusOr<PiecePlan> plan = p.Plan();
  ASSERT_FALSE(plan.ok());
  EXPECT_THAT(std::string(plan.status().message()),
              StartsWith("x: one row (the normalized dims) spans 2147483648 bytes; a kernel call "
                         "addresses less than 2^31 bytes per tensor"));
}

TEST(PlanPiecesTest, RandomProblemsGetTheLargestPiecesThatFit) {
  std::mt19937 random(7);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(random);
  };
  int whole = 0, lines = 0, rows = 0, refused = 0;
  for (int trial = 0; trial < 20000; trial++) {
    PlanProblem p{uniform(1, 40), uniform(1, 6), uniform(1, 10), {}, {}, uniform(1, 3000)};
    const int operands = static_cast<int>(uniform(1, 4));
    for (int i = 0; i < operands; i++) {
      p.operands.push_back({"t", uniform(1, p.unit_elements), uniform(0, 1) ? 4 : 2, uniform(0, 25),
                            uniform(0, 400)});
    }
    switch (uniform(0, 2)) {
      case 1:
        p.partials = {"x", uniform(1, 40), uniform(1, 9)};
        break;
      case 2:
        p.partials = {"x", uniform(1, 40), 0};
        break;
      default:
        break;
    }
    SCOPED_TRACE(absl::StrCat("trial ", trial));
    const absl::StatusOr<PiecePlan> plan = p.Plan();
    if (!p.Fits(1, 1, p.partials.rows_per_slot)) {
      EXPECT_FALSE(plan.ok());
      refused++;
      continue;
    }
    ASSERT_TRUE(plan.ok()) << plan.status();
    ExpectPlanIsLargestThatFits(p, *plan);
    if (plan->rows_per_piece < p.r_extent) {
      rows++;
    } else if (plan->lines_per_piece < p.b_extent) {
      lines++;
    } else {
      whole++;
    }
  }
  // Every kind of plan came up often.
  EXPECT_GT(whole, 1000);
  EXPECT_GT(lines, 1000);
  EXPECT_GT(rows, 1000);
  EXPECT_GT(refused, 50);
}

// ---- Every op, split at lowered limits ---------------------------------

// Bytes of the largest activation tensor (padding included).
int64_t LargestBytes(std::initializer_list<const TestTensor*> tensors) {
  int64_t bytes = 0;
  for (const TestTensor* t : tensors) bytes = std::max<int64_t>(bytes, t->bytes().size());
  return bytes;
}

std::vector<std::vector<uint8_t>> OutputBytes(const std::vector<const TestTensor*>& outputs) {
  std::vector<std::vector<uint8_t>> bytes;
  for (const TestTensor* t : outputs) bytes.push_back(t->bytes());
  return bytes;
}

// One way to run a case: makes a fresh problem (outputs all sentinel),
// runs it, and says which of its tensors are the largest.
template <typename P>
struct CaseRunner {
  std::function<std::unique_ptr<P>()> make;
  std::function<absl::Status(P&)> run;
  std::function<int64_t(P&)> largest_bytes;
};

// Runs the case unsplit, then under limits from half its largest tensor
// down by thirds (by ninths under qemu, where a case takes ~6x as long and
// the splitting is the same C++), then 1 byte, where the call must be
// refused (not even one row or sample fits) and write nothing. Each split
// run must match the unsplit run bitwise: the first `always_bitwise`
// outputs (in Outputs() order) always; the others (dweight, dbias) where
// `sums_bitwise` and the chunks they are summed in were kept (row_batch.h),
// and the reference where not.
template <typename P>
void ExpectPiecesChangeNothing(const CaseRunner<P>& runner, size_t always_bitwise,
                               bool sums_bitwise) {
  std::unique_ptr<P> unsplit = runner.make();
  const absl::Status status = runner.run(*unsplit);
  if (internal::IsConfigRefusal(status)) GTEST_SKIP() << status;
  ASSERT_TRUE(status.ok()) << status;
  unsplit->ExpectMatchesReference();
  const std::vector<std::vector<uint8_t>> want = OutputBytes(unsplit->Outputs());
  const int64_t step = std::getenv("HALNORM_TEST_UNDER_QEMU") != nullptr ? 9 : 3;
  std::vector<int64_t> limits;
  for (int64_t limit = runner.largest_bytes(*unsplit) / 2; limit > 1; limit /= step) {
    limits.push_back(limit);
  }
  limits.push_back(1);
  int split_runs = 0, split_runs_sums_compared = 0;
  for (int64_t limit : limits) {
    SCOPED_TRACE(absl::StrCat("limit ", limit, " bytes"));
    std::unique_ptr<P> split = runner.make();
    absl::Status split_status;
    internal::PieceRecordForTesting record;
    {
      ScopedKernelSpanLimitForTesting lowered(limit);
      split_status = runner.run(*split);
      record = lowered.record();
    }
    if (!split_status.ok()) {
      // Refused: only because one unit does not fit, and nothing written.
      EXPECT_TRUE(absl::IsInvalidArgument(split_status)) << split_status;
      EXPECT_THAT(std::string(split_status.message()), HasSubstr("split only between whole"));
      for (const TestTensor* output : split->Outputs()) {
        EXPECT_TRUE(testutil::AllSentinel(*output)) << "an output was written";
      }
      break;
    }
    // Only a call with nothing to run (no rows) gets past 1 byte.
    if (limit == 1) {
      EXPECT_EQ(record.calls, 0) << "1 byte was enough";
    }
    const std::vector<std::vector<uint8_t>> got = OutputBytes(split->Outputs());
    const bool sums_kept = sums_bitwise && record.chunks_shrunk == 0;
    bool all_compared = true;
    for (size_t i = 0; i < got.size(); i++) {
      if (i < always_bitwise || sums_kept) {
        EXPECT_TRUE(got[i] == want[i]) << "output " << i << " differs from the unsplit call's";
      } else {
        all_compared = false;
      }
    }
    // Outputs equal to the unsplit call's (padding included) match the
    // reference as those did; the others are checked here.
    if (!all_compared) split->ExpectMatchesReference();
    split_runs += record.split_calls > 0;
    split_runs_sums_compared += record.split_calls > 0 && sums_kept && got.size() > always_bitwise;
    if (::testing::Test::HasFailure()) return;
  }
  ::testing::Test::RecordProperty("split_runs", split_runs);
  ::testing::Test::RecordProperty("split_runs_sums_compared", split_runs_sums_compared);
}

// Rows enough for several dweight/dbias chunks (row_norm_backward.cc
// RowsPerChunk: 16 rows of 2048, 16 of 512 f32 in 100-row lines, 375 of 40
// f32 in 3000 rows), so that pieces keep whole chunks at several limits:
// contiguous, and padded lines (pieces of whole lines, then of rows within
// a line).
std::vector<testutil::RowNormCase> ManyRowCases(const Variant& variant) {
  std::vector<testutil::RowNormCase> cases = {testutil::MatrixCase(variant, 128, 2048),
                                              testutil::MatrixCase(variant, 3000, 40)};
  testutil::RowNormCase lines = testutil::MatrixCase(variant, 0, 512);
  lines.name = "shape4x100x512_nr1_padded_lines";
  lines.shape = {4, 100, 512};
  lines.x_strides = {100 * 512 + 64, 512, 1};
  lines.y_strides = {105 * 520, 520, 1};
  lines.dx_strides = {100 * 512 + 8, 512, 1};
  cases.push_back(lines);
  return cases;
}

// Case lists: every op, dtype and option of the row-norm suites, on the
// variant dispatch picks for the host (forced, so split and unsplit calls
// run the same kernel), minus the widest rows (2^16 and 2^20 elements,
// which split like any other), plus ManyRowCases; and a case or two of
// each GPU variant (OpenCL through PoCL), whose pieces each sum their own
// chunks.
std::vector<testutil::VariantAndCase> SplitCases(Direction direction) {
  std::vector<testutil::VariantAndCase> params;
  std::vector<const Variant*> seen;
  for (const Variant* v : testutil::RowNormVariants(direction)) {
    const bool gpu = v->device != internal::Device::kCpu;
    const Variant* run = v;
    if (!gpu) {
      if (!internal::HostSupports(v->isa)) continue;
      internal::KernelRequest request{v->op, direction, v->dtype, v->fused_residual, 768, 64};
      request.native_params = v->native_params;
      absl::StatusOr<const Variant*> picked = internal::PickVariant(request);
      if (!picked.ok() || std::find(seen.begin(), seen.end(), *picked) != seen.end()) continue;
      run = *picked;
      seen.push_back(run);
    } else if (v->config_index != 0 || v->device != internal::Device::kOpenCL) {
      continue;
    }
    std::vector<testutil::RowNormCase> cases;
    if (gpu) {
      // Rows of whole aligned vectors (any config runs them): one line;
      // for the backward (its partial sums per piece) padded lines too.
      cases = {testutil::MatrixCase(*run, 64, 768)};
      if (direction == Direction::kBackward) cases.push_back(ManyRowCases(*run).back());
    } else {
      cases = testutil::RowNormCases(*run);
      for (testutil::RowNormCase& c : ManyRowCases(*run)) cases.push_back(std::move(c));
    }
    for (testutil::RowNormCase& c : cases) {
      if (testutil::Hidden(c) >= 65536) continue;
      params.push_back({run, std::move(c)});
    }
  }
  return params;
}

class RowNormForwardPiecesTest : public testutil::VariantTest<testutil::VariantAndCase> {};
class RowNormBackwardPiecesTest : public testutil::VariantTest<testutil::VariantAndCase> {};

TEST_P(RowNormForwardPiecesTest, SplitMatchesUnsplitBitwise) {
  const testutil::VariantAndCase& param = GetParam();
  ExpectPiecesChangeNothing(
      CaseRunner<testutil::ForwardProblem>{
          [&] { return std::make_unique<testutil::ForwardProblem>(param.row_case); },
          [&](testutil::ForwardProblem& p) { return p.Run(param.variant); },
          [](testutil::ForwardProblem& p) {
            return LargestBytes({&p.x(), &p.y()});
          }},
      SIZE_MAX, false);
}

TEST_P(RowNormBackwardPiecesTest, SplitMatchesUnsplitBitwise) {
  const testutil::VariantAndCase& param = GetParam();
  // GPU kernels sum each piece's chunks in the piece: dweight/dbias then
  // round differently (the reference still holds them); dx is per row.
  const bool gpu = param.variant->device != internal::Device::kCpu;
  ExpectPiecesChangeNothing(
      CaseRunner<testutil::BackwardProblem>{
          [&] { return std::make_unique<testutil::BackwardProblem>(param.row_case); },
          [&](testutil::BackwardProblem& p) { return p.Run(param.variant); },
          [](testutil::BackwardProblem& p) {
            return LargestBytes({&p.dy(), &p.dx()});
          }},
      1, !gpu);
}

INSTANTIATE_TEST_SUITE_P(HostVariants, RowNormForwardPiecesTest,
                         ::testing::ValuesIn(SplitCases(Direction::kForward)),
                         testutil::VariantAndCaseTestName);
INSTANTIATE_TEST_SUITE_P(HostVariants, RowNormBackwardPiecesTest,
                         ::testing::ValuesIn(SplitCases(Direction::kBackward)),
                         testutil::VariantAndCaseTestName);

// LayerNorm2d: every axes and layout (the row-norm routes split like the
// row norms; AXES_C on NCHW splits the channel-norm kernels by samples).
class LayerNorm2dForwardPiecesTest : public testutil::LayerNorm2dTest {};
class LayerNorm2dBackwardPiecesTest : public testutil::LayerNorm2dTest {};

TEST_P(LayerNorm2dForwardPiecesTest, SplitMatchesUnsplitBitwise) {
  ExpectPiecesChangeNothing(
      CaseRunner<testutil::LayerNorm2dForwardProblem>{
          [&] { return std::make_unique<testutil::LayerNorm2dForwardProblem>(GetParam()); },
          [](testutil::LayerNorm2dForwardProblem& p) { return p.Run(); },
          [](testutil::LayerNorm2dForwardProblem& p) {
            return LargestBytes({&p.x(), &p.y()});
          }},
      SIZE_MAX, false);
}

TEST_P(LayerNorm2dBackwardPiecesTest, SplitMatchesUnsplitBitwise) {
  // GPU kernels sum each piece's partials in the piece (as the row norms').
  const internal::Variant* variant = GetParam().variant;
  const bool gpu = variant != nullptr && variant->device != internal::Device::kCpu;
  ExpectPiecesChangeNothing(
      CaseRunner<testutil::LayerNorm2dBackwardProblem>{
          [&] { return std::make_unique<testutil::LayerNorm2dBackwardProblem>(GetParam()); },
          [](testutil::LayerNorm2dBackwardProblem& p) { return p.Run(); },
          [](testutil::LayerNorm2dBackwardProblem& p) {
            return LargestBytes({&p.dy(), &p.dx()});
          }},
      1, !gpu);
}

// The dispatched cases, and the forced channel-norm ones of each target's
// first config (the others differ in lanes and tiles per task only); of a
// GPU target's (OpenCL through PoCL), two images of several samples.
std::vector<testutil::LayerNorm2dCase> LayerNorm2dSplitCases(Direction direction) {
  std::vector<testutil::LayerNorm2dCase> cases;
  for (testutil::LayerNorm2dCase& c : testutil::LayerNorm2dCases(direction)) {
    if (c.variant != nullptr && c.variant->config_index != 0) continue;
    const bool gpu = c.variant != nullptr && c.variant->device != internal::Device::kCpu;
    if (gpu && !absl::EndsWith(c.name, "__3x5x7x9") && !absl::EndsWith(c.name, "__2x17x8x8")) {
      continue;
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Cases, LayerNorm2dForwardPiecesTest,
                         ::testing::ValuesIn(LayerNorm2dSplitCases(Direction::kForward)),
                         testutil::LayerNorm2dCaseTestName);
INSTANTIATE_TEST_SUITE_P(Cases, LayerNorm2dBackwardPiecesTest,
                         ::testing::ValuesIn(LayerNorm2dSplitCases(Direction::kBackward)),
                         testutil::LayerNorm2dCaseTestName);

// ---- Refusals through the C API ----------------------------------------

std::string LastError() { return halnorm_last_error(); }

TEST(PiecesErrorsTest, RowLargerThanTheLimitNamesX) {
  TestTensor x({4, 64}), y({4, 64});
  testutil::FillNormal(x, 1);
  ScopedKernelSpanLimitForTesting lowered(255);  // a row is 256 bytes
  EXPECT_EQ(
      halnorm_layer_norm_forward(x.view(), nullptr, nullptr, nullptr, y.view(), nullptr, nullptr),
      HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), StartsWith("x: one row (the normalized dims) spans 256 bytes"));
  EXPECT_TRUE(testutil::AllSentinel(y));
}

TEST(PiecesErrorsTest, F32WeightLargerThanTheLimitNamesWeight) {
  // f16 rows of 128 bytes fit; the f32 weight the kernel takes (256) does
  // not. (More rows than go to the native-params kernels, which take it as
  // it is.)
  constexpr int64_t kRows = internal::kNativeParamsMaxRows + 1;
  TestTensor x({kRows, 64}, {}, 0, HALNORM_F16), y({kRows, 64}, {}, 0, HALNORM_F16);
  TestTensor weight({64}, {}, 0, HALNORM_F16);
  testutil::FillNormal(x, 1);
  testutil::FillNormal(weight, 2);
  ScopedKernelSpanLimitForTesting lowered(200);
  EXPECT_EQ(halnorm_rms_norm_forward(x.view(), weight.view(), nullptr, y.view(), nullptr),
            HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), StartsWith("weight: one row"));
  EXPECT_TRUE(testutil::AllSentinel(y));
}

TEST(PiecesErrorsTest, BackwardPartialSumsLargerThanTheLimit) {
  TestTensor dy({4, 64}, {}, 0, HALNORM_BF16), x({4, 64}, {}, 0, HALNORM_BF16);
  TestTensor dx({4, 64}, {}, 0, HALNORM_BF16), rstd({4});
  testutil::FillNormal(dy, 1);
  testutil::FillNormal(x, 2);
  testutil::FillNormal(rstd, 3, 1.0, 0.1);
  ScopedKernelSpanLimitForTesting lowered(200);  // rows 128 bytes, f32 partials 256
  EXPECT_EQ(halnorm_rms_norm_backward(dy.view(), x.view(), rstd.view(), nullptr, nullptr, dx.view(),
                                      nullptr),
            HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), StartsWith("x: one row (the normalized dims) needs 256 bytes of f32 "
                                      "dweight/dbias partial sums"));
  EXPECT_TRUE(testutil::AllSentinel(dx));
}

TEST(PiecesErrorsTest, LayerNorm2dSampleLargerThanTheLimit) {
  // AXES_C on NCHW runs the channel-norm kernels, split between samples.
  TestTensor x({2, 4, 8, 8}), y({2, 4, 8, 8});
  testutil::FillNormal(x, 1);
  ScopedKernelSpanLimitForTesting lowered(1000);  // a sample is 1024 bytes
  EXPECT_EQ(halnorm_layer_norm2d_forward(x.view(), nullptr, nullptr, HALNORM_AXES_C, 1e-5f,
                                         y.view(), nullptr, nullptr),
            HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), StartsWith("x: one sample (C*H*W"));
  EXPECT_THAT(LastError(), HasSubstr("split only between whole samples"));
  EXPECT_TRUE(testutil::AllSentinel(y));
}

// A 16 GiB x is no longer refused by the argument checks (the call would
// run in pieces): here the error is y's. Nothing reads x's (absent) memory.
TEST(PiecesErrorsTest, TensorPast2GiBPassesTheChecks) {
  float storage[1] = {0.f};
  halnorm_tensor x = internal::DenseTensor(storage, HALNORM_F32, HALNORM_CPU, {1 << 20, 4096});
  halnorm_tensor y = x;
  y.dtype = HALNORM_F16;
  EXPECT_EQ(halnorm_layer_norm_forward(&x, nullptr, nullptr, nullptr, &y, nullptr, nullptr),
            HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), StartsWith("y: dtype f16 must be f32"));
}

TEST(PiecesErrorsTest, SpanPastTheAddressSpace) {
  halnorm_tensor x = internal::DenseTensor(reinterpret_cast<void*>(UINTPTR_MAX - 4096), HALNORM_F32,
                                           HALNORM_CPU, {4, 4096});
  TestTensor y({4, 4096});
  EXPECT_EQ(halnorm_layer_norm_forward(&x, nullptr, nullptr, nullptr, y.view(), nullptr, nullptr),
            HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(),
              StartsWith("x: its 65536 bytes from data run past the end of the address space"));
  EXPECT_TRUE(testutil::AllSentinel(y));
}

TEST(PiecesErrorsTest, LimitIsPerThread) {
  TestTensor x({4, 64}), y({4, 64});
  testutil::FillNormal(x, 1);
  ScopedKernelSpanLimitForTesting lowered(255);
  int code = -1;
  std::thread other([&] {
    code =
        halnorm_layer_norm_forward(x.view(), nullptr, nullptr, nullptr, y.view(), nullptr, nullptr);
  });
  other.join();
  EXPECT_EQ(code, HALNORM_OK);
  EXPECT_EQ(internal::KernelSpanLimit(), 255);
}

}  // namespace
}  // namespace halnorm
