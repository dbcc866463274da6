// Bad input to LayerNorm forward through the public C API: the right code,
// a message that names the argument, no output written, nothing printed.
// Plus the option defaults and the entry points that are not built yet.
// (The other row norms and the residual options: row_norm_errors_test.cc.)
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cuda_driver.h"
#include "runtime/halnorm_c.h"
#include "runtime/variant_registry.h"
#include "tests/api_error_matchers.h"
#include "tests/test_tensors.h"

namespace halnorm {
namespace {

using ::testing::AnyOf;
using ::testing::Eq;
using ::testing::HasSubstr;
using testutil::AllSentinel;
using testutil::LastError;
using testutil::NamesArgument;
using testutil::TestTensor;

constexpr int64_t kRows = 4;
constexpr int64_t kHidden = 8;

// A valid LayerNorm forward call on [4, 8]; each test breaks one thing.
class LayerNormForwardErrorsTest : public ::testing::Test {
 protected:
  LayerNormForwardErrorsTest()
      : x_({kRows, kHidden}),
        weight_({kHidden}),
        bias_({kHidden}),
        y_({kRows, kHidden}),
        mean_({kRows}),
        rstd_({kRows}) {
    testutil::FillNormal(x_, /*seed=*/1);
    testutil::FillNormal(weight_, /*seed=*/2, /*offset=*/1.0);
    testutil::FillNormal(bias_, /*seed=*/3);
    halnorm_norm_options_init(&options_);
  }

  // Calls halnorm_layer_norm_forward with the arguments below and checks the
  // "no side effects" half of the contract.
  int Call() {
    const std::vector<uint8_t> x_before = x_.bytes();
    ::testing::internal::CaptureStderr();
    const int code = halnorm_layer_norm_forward(x, weight, bias, &options_, y, mean, rstd);
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
    EXPECT_TRUE(AllSentinel(y_)) << "y written";
    EXPECT_TRUE(AllSentinel(mean_)) << "mean written";
    EXPECT_TRUE(AllSentinel(rstd_)) << "rstd written";
    EXPECT_TRUE(x_.bytes() == x_before) << "x modified";
    return code;
  }

  TestTensor x_, weight_, bias_, y_, mean_, rstd_;
  halnorm_norm_options options_;
  // The call's arguments; tests repoint or edit them.
  halnorm_tensor* x = x_.view();
  halnorm_tensor* weight = weight_.view();
  halnorm_tensor* bias = bias_.view();
  halnorm_tensor* y = y_.view();
  halnorm_tensor* mean = mean_.view();
  halnorm_tensor* rstd = rstd_.view();
};

TEST_F(LayerNormForwardErrorsTest, ValidCallSucceeds) {
  // Everything else in this file relies on the baseline being valid.
  EXPECT_EQ(halnorm_layer_norm_forward(x, weight, bias, &options_, y, mean, rstd), HALNORM_OK)
      << LastError();
}

TEST_F(LayerNormForwardErrorsTest, NullX) {
  x = nullptr;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("x"));
}

TEST_F(LayerNormForwardErrorsTest, NullY) {
  y = nullptr;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("y"));
}

TEST_F(LayerNormForwardErrorsTest, NullXData) {
  x->data = nullptr;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("x"));
}

TEST_F(LayerNormForwardErrorsTest, NullWeightData) {
  weight->data = nullptr;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("weight"));
}

TEST_F(LayerNormForwardErrorsTest, RankZero) {
  x->rank = 0;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("x"));
  EXPECT_THAT(LastError(), HasSubstr("rank"));
}

TEST_F(LayerNormForwardErrorsTest, RankFive) {
  x->rank = 5;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("x"));
  EXPECT_THAT(LastError(), HasSubstr("rank"));
}

TEST_F(LayerNormForwardErrorsTest, NegativeShape) {
  x->shape[0] = -1;
  y->shape[0] = -1;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("x"));
  EXPECT_THAT(LastError(), HasSubstr("shape"));
}

TEST_F(LayerNormForwardErrorsTest, WeightSizeMismatch) {
  weight->shape[0] = kHidden - 1;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("weight"));
}

TEST_F(LayerNormForwardErrorsTest, BiasSizeMismatch) {
  bias->shape[0] = kHidden + 1;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("bias"));
}

TEST_F(LayerNormForwardErrorsTest, NegativeEps) {
  options_.eps = -1e-5f;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), HasSubstr("eps"));
}

TEST_F(LayerNormForwardErrorsTest, NanEps) {
  options_.eps = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), HasSubstr("eps"));
}

TEST_F(LayerNormForwardErrorsTest, NormalizedRankZero) {
  options_.normalized_rank = 0;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), HasSubstr("normalized_rank"));
}

TEST_F(LayerNormForwardErrorsTest, NormalizedRankAboveRank) {
  options_.normalized_rank = 3;  // x is rank 2
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), HasSubstr("normalized_rank"));
}

TEST_F(LayerNormForwardErrorsTest, YDtypeDiffersFromX) {
  y->dtype = HALNORM_F16;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("y"));
  EXPECT_THAT(LastError(), HasSubstr("dtype"));
}

TEST_F(LayerNormForwardErrorsTest, WeightF16WithF32X) {
  // weight may be f32 or x's dtype; x is f32, so f16 is neither.
  weight->dtype = HALNORM_F16;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("weight"));
  EXPECT_THAT(LastError(), HasSubstr("dtype"));
}

TEST_F(LayerNormForwardErrorsTest, MeanNotF32) {
  mean->dtype = HALNORM_F16;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("mean"));
  EXPECT_THAT(LastError(), HasSubstr("dtype"));
}

TEST_F(LayerNormForwardErrorsTest, UnknownDtype) {
  x->dtype = static_cast<halnorm_dtype>(7);
  y->dtype = static_cast<halnorm_dtype>(7);
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), HasSubstr("dtype"));
}

// Without a GPU (or, on ARM64, without CUDA kernels in the build) a call on
// HALNORM_CUDA tensors says why and writes nothing.
TEST_F(LayerNormForwardErrorsTest, CudaTensorsWithoutAGpu) {
  if (internal::BuildHasDevice(internal::Device::kCuda) && internal::LoadCudaDriver().ok()) {
    GTEST_SKIP() << "a GPU is here: tests/cuda_api_test.cc runs these calls";
  }
  for (halnorm_tensor* tensor : {x, weight, bias, y, mean, rstd}) tensor->device = HALNORM_CUDA;
  EXPECT_EQ(Call(), HALNORM_ERROR_UNSUPPORTED);
  EXPECT_THAT(LastError(), HasSubstr("CUDA"));
  EXPECT_THAT(LastError(), HasSubstr("not available"));
}

TEST_F(LayerNormForwardErrorsTest, TensorsOnTwoDevices) {
  y->device = HALNORM_CUDA;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("y"));
  EXPECT_THAT(LastError(), HasSubstr("HALNORM_CUDA"));
}

TEST_F(LayerNormForwardErrorsTest, YShapeDiffersFromX) {
  y->shape[1] = kHidden - 1;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("y"));
}

TEST_F(LayerNormForwardErrorsTest, MeanShapeWrong) {
  mean->shape[0] = kRows - 1;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("mean"));
}

TEST_F(LayerNormForwardErrorsTest, RstdShapeWrong) {
  rstd->shape[0] = kRows + 1;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("rstd"));
}

TEST_F(LayerNormForwardErrorsTest, StrideOverflowsElementOffsets) {
  x->strides[0] = int64_t{1} << 62;  // 3 * 2^62 elements overflows int64
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("x"));
  EXPECT_THAT(LastError(), HasSubstr("stride"));
}

TEST_F(LayerNormForwardErrorsTest, StrideOverflowsByteOffsets) {
  x->strides[0] = int64_t{1} << 61;  // 3 * 2^61 elements fits; * 4 bytes does not
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("x"));
  // Tensors past 2 GiB are split, not refused (row_pieces_test.cc), so this
  // is the overflow itself.
  EXPECT_THAT(LastError(), HasSubstr("overflows 64-bit byte offsets"));
}

TEST_F(LayerNormForwardErrorsTest, YStrideOverflow) {
  y->strides[0] = int64_t{1} << 62;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("y"));
  EXPECT_THAT(LastError(), HasSubstr("stride"));
}

// Kernels reduce a contiguous trailing axis; anything else is refused.
// Either code is defensible (bad input vs. not supported), an abort is not.
TEST_F(LayerNormForwardErrorsTest, HiddenStrideNotOne) {
  TestTensor strided_x({kRows, kHidden}, {2 * kHidden, 2});
  testutil::FillNormal(strided_x, /*seed=*/1);
  x = strided_x.view();
  EXPECT_THAT(Call(), AnyOf(Eq(HALNORM_ERROR_INVALID_ARGUMENT), Eq(HALNORM_ERROR_UNSUPPORTED)));
  EXPECT_THAT(LastError(), NamesArgument("x"));
  EXPECT_THAT(LastError(), HasSubstr("stride"));
}

TEST_F(LayerNormForwardErrorsTest, NormalizedDimsNotContiguous) {
  // [2, 4, 8] normalized over [4, 8], but the rows of each [4, 8] are padded.
  TestTensor padded_x({2, 4, kHidden}, {4 * (kHidden + 2), kHidden + 2, 1});
  testutil::FillNormal(padded_x, /*seed=*/1);
  TestTensor matrix_weight({4, kHidden});
  TestTensor matrix_bias({4, kHidden});
  testutil::FillNormal(matrix_weight, /*seed=*/2);
  testutil::FillNormal(matrix_bias, /*seed=*/3);
  TestTensor y3({2, 4, kHidden});
  TestTensor stats({2});
  x = padded_x.view();
  weight = matrix_weight.view();
  bias = matrix_bias.view();
  y = y3.view();
  mean = stats.view();
  rstd = nullptr;
  options_.normalized_rank = 2;
  EXPECT_THAT(Call(), AnyOf(Eq(HALNORM_ERROR_INVALID_ARGUMENT), Eq(HALNORM_ERROR_UNSUPPORTED)));
  EXPECT_THAT(LastError(), NamesArgument("x"));
  EXPECT_THAT(LastError(), HasSubstr("stride"));
  EXPECT_TRUE(AllSentinel(y3));
  EXPECT_TRUE(AllSentinel(stats));
}

TEST_F(LayerNormForwardErrorsTest, YAliasesX) {
  y->data = x->data;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("y"));
}

TEST_F(LayerNormForwardErrorsTest, YRowsOverlapEachOther) {
  y->strides[0] = 0;  // every row of y is the same memory
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("y"));
}

TEST_F(LayerNormForwardErrorsTest, MeanRowsOverlapEachOther) {
  mean->strides[0] = 0;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("mean"));
}

TEST_F(LayerNormForwardErrorsTest, MeanAliasesRstd) {
  rstd->data = mean->data;
  EXPECT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), AnyOf(NamesArgument("mean"), NamesArgument("rstd")));
}

TEST_F(LayerNormForwardErrorsTest, ZeroRowsSucceedsAndWritesNothing) {
  TestTensor empty_x({0, kHidden});
  x = empty_x.view();
  y->shape[0] = 0;
  mean->shape[0] = 0;
  rstd->shape[0] = 0;
  EXPECT_EQ(Call(), HALNORM_OK) << LastError();
}

// halnorm_last_error() is per thread: another thread's error doesn't clobber ours.
TEST_F(LayerNormForwardErrorsTest, LastErrorIsThreadLocal) {
  options_.eps = -1.0f;
  ASSERT_EQ(Call(), HALNORM_ERROR_INVALID_ARGUMENT);
  const std::string ours = LastError();
  std::string theirs;
  std::thread other([&] {
    EXPECT_EQ(halnorm_layer_norm_forward(nullptr, nullptr, nullptr, &options_, y, mean, rstd),
              HALNORM_ERROR_INVALID_ARGUMENT);
    theirs = LastError();
  });
  other.join();
  EXPECT_EQ(LastError(), ours);
  EXPECT_NE(theirs, ours);
}

TEST(NormOptionsTest, InitSetsDefaults) {
  halnorm_norm_options options;
  std::memset(&options, 0xAB, sizeof(options));  // init must set every field
  halnorm_norm_options_init(&options);
  EXPECT_EQ(options.eps, 1e-5f);
  EXPECT_EQ(options.normalized_rank, 1);
  EXPECT_EQ(options.weight_offset, 0.0f);
  EXPECT_EQ(options.residual, nullptr);
  EXPECT_EQ(options.residual_alpha, 1.0f);
  EXPECT_EQ(options.residual_out, nullptr);
  EXPECT_EQ(options.cuda_stream, nullptr);
}

// Entry points of later issues must say so, not crash or pretend to work.
// Delete each case when its op lands (its own tests replace it).
}  // namespace
}  // namespace halnorm
