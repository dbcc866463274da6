// Bad input to RMSNorm forward, the fused residual options and both
// backward passes through the public C API: the right code, a message that
// names the argument, no output written, inputs untouched, nothing printed.
// (LayerNorm forward's tensor checks: api_errors_test.cc.)
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/halnorm_c.h"
#include "tests/api_error_matchers.h"
#include "tests/test_tensors.h"

namespace halnorm {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testutil::LastError;
using testutil::NamesArgument;
using testutil::TestTensor;

constexpr int64_t kRows = 4;
constexpr int64_t kHidden = 8;

// Valid arguments for all four calls on f32 [4, 8]; each test breaks one
// thing through the pointers below, then calls one entry point.
class RowNormErrorsTest : public ::testing::Test {
 protected:
  RowNormErrorsTest() {
    testutil::FillNormal(x_, 1);
    testutil::FillNormal(dy_, 2);
    testutil::FillNormal(residual_, 3);
    testutil::FillNormal(weight_, 4, /*offset=*/1.0);
    testutil::FillNormal(bias_, 5);
    testutil::FillNormal(saved_mean_, 6);
    testutil::FillNormal(saved_rstd_, 7, /*offset=*/1.0, /*scale=*/0.0);
    halnorm_norm_options_init(&options_);
  }

  void UseResidual() {
    options_.residual = residual;
    options_.residual_out = residual_out;
  }

  int LayerNormForward() {
    return Checked(
        [&] { return halnorm_layer_norm_forward(x, weight, bias, &options_, y, mean, rstd); });
  }
  int RmsNormForward() {
    return Checked([&] { return halnorm_rms_norm_forward(x, weight, &options_, y, rstd); });
  }
  int LayerNormBackward() {
    return Checked([&] {
      return halnorm_layer_norm_backward(dy, x, saved_mean, saved_rstd, weight, &options_, dx,
                                         dweight, dbias);
    });
  }
  int RmsNormBackward() {
    return Checked([&] {
      return halnorm_rms_norm_backward(dy, x, saved_rstd, weight, &options_, dx, dweight);
    });
  }

  // Runs `call` and checks the "no side effects" half of the contract.
  template <typename Call>
  int Checked(Call call) {
    testutil::TensorSnapshot inputs;
    inputs.Add("x", x_);
    inputs.Add("dy", dy_);
    inputs.Add("residual", residual_);
    inputs.Add("weight", weight_);
    inputs.Add("bias", bias_);
    inputs.Add("mean (saved)", saved_mean_);
    inputs.Add("rstd (saved)", saved_rstd_);
    ::testing::internal::CaptureStderr();
    const int code = call();
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
    for (const TestTensor* output :
         {&y_, &residual_out_, &mean_, &rstd_, &dx_, &dweight_, &dbias_}) {
      EXPECT_TRUE(testutil::AllSentinel(*output)) << "an output was written";
    }
    EXPECT_THAT(inputs.Changed(), IsEmpty()) << "inputs modified";
    return code;
  }

  TestTensor x_{{kRows, kHidden}}, dy_{{kRows, kHidden}}, residual_{{kRows, kHidden}};
  TestTensor weight_{{kHidden}}, bias_{{kHidden}};
  TestTensor saved_mean_{{kRows}}, saved_rstd_{{kRows}};  // backward inputs
  TestTensor y_{{kRows, kHidden}}, residual_out_{{kRows, kHidden}};
  TestTensor mean_{{kRows}}, rstd_{{kRows}};  // forward outputs
  TestTensor dx_{{kRows, kHidden}}, dweight_{{kHidden}}, dbias_{{kHidden}};
  halnorm_norm_options options_;
  // The calls' arguments; tests repoint or edit them.
  halnorm_tensor* x = x_.view();
  halnorm_tensor* dy = dy_.view();
  halnorm_tensor* residual = residual_.view();
  halnorm_tensor* weight = weight_.view();
  halnorm_tensor* bias = bias_.view();
  halnorm_tensor* saved_mean = saved_mean_.view();
  halnorm_tensor* saved_rstd = saved_rstd_.view();
  halnorm_tensor* y = y_.view();
  halnorm_tensor* residual_out = residual_out_.view();
  halnorm_tensor* mean = mean_.view();
  halnorm_tensor* rstd = rstd_.view();
  halnorm_tensor* dx = dx_.view();
  halnorm_tensor* dweight = dweight_.view();
  halnorm_tensor* dbias = dbias_.view();
};

// Everything else in this file relies on the baselines being valid (the
// unchecked calls may write their outputs).
TEST_F(RowNormErrorsTest, ValidCallsSucceed) {
  EXPECT_EQ(halnorm_rms_norm_forward(x, weight, &options_, y, rstd), HALNORM_OK) << LastError();
  EXPECT_EQ(halnorm_layer_norm_backward(dy, x, saved_mean, saved_rstd, weight, &options_, dx,
                                        dweight, dbias),
            HALNORM_OK)
      << LastError();
  EXPECT_EQ(halnorm_rms_norm_backward(dy, x, saved_rstd, weight, &options_, dx, dweight),
            HALNORM_OK)
      << LastError();
  UseResidual();
  EXPECT_EQ(halnorm_layer_norm_forward(x, weight, bias, &options_, y, mean, rstd), HALNORM_OK)
      << LastError();
  EXPECT_EQ(halnorm_rms_norm_forward(x, weight, &options_, y, rstd), HALNORM_OK) << LastError();
  options_.residual_out = nullptr;
  options_.residual = dy;  // backward: the gradient arriving at residual_out
  EXPECT_EQ(halnorm_rms_norm_backward(dy, x, saved_rstd, weight, &options_, dx, dweight),
            HALNORM_OK)
      << LastError();
}

// RMSNorm forward.

TEST_F(RowNormErrorsTest, RmsForwardNullX) {
  x = nullptr;
  EXPECT_EQ(RmsNormForward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("x"));
}

TEST_F(RowNormErrorsTest, RmsForwardNullY) {
  y = nullptr;
  EXPECT_EQ(RmsNormForward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("y"));
}

TEST_F(RowNormErrorsTest, RmsForwardWeightF16WithF32X) {
  weight->dtype = HALNORM_F16;
  EXPECT_EQ(RmsNormForward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("weight"));
  EXPECT_THAT(LastError(), HasSubstr("dtype"));
}

TEST_F(RowNormErrorsTest, RmsForwardRstdShapeWrong) {
  rstd->shape[0] = kRows + 1;
  EXPECT_EQ(RmsNormForward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("rstd"));
}

TEST_F(RowNormErrorsTest, RmsForwardYAliasesX) {
  y->data = x->data;
  EXPECT_EQ(RmsNormForward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("y"));
}

// x column-major and y made like it (empty_like): the error is x's.
TEST_F(RowNormErrorsTest, StridedNormalizedDimNamesXNotY) {
  for (halnorm_tensor* t : {x, y}) {
    t->strides[0] = 1;
    t->strides[1] = kRows;
  }
  EXPECT_EQ(RmsNormForward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("x"));
  EXPECT_THAT(LastError(), HasSubstr("contiguous"));
  EXPECT_EQ(LayerNormForward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("x"));
}

// Rows of an output that overlap each other (a row stride shorter than the
// row): threads would race on the shared elements. Found by fuzzing.
TEST_F(RowNormErrorsTest, OutputRowsOverlap) {
  y->strides[0] = kHidden / 2;
  EXPECT_EQ(RmsNormForward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("y"));
  EXPECT_THAT(LastError(), HasSubstr("share memory"));
  dx->strides[0] = 0;  // every row the same memory
  EXPECT_EQ(RmsNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("dx"));
}

TEST_F(RowNormErrorsTest, RmsForwardNegativeEps) {
  options_.eps = -1.0f;
  EXPECT_EQ(RmsNormForward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), HasSubstr("eps"));
}

// 16-bit activations: weight may be f32 or x's dtype, nothing else.
TEST_F(RowNormErrorsTest, WeightF16WithBf16X) {
  TestTensor x16({kRows, kHidden}, {}, 0, HALNORM_BF16);
  TestTensor y16({kRows, kHidden}, {}, 0, HALNORM_BF16);
  testutil::FillNormal(x16, 1);
  TestTensor weight16({kHidden}, {}, 0, HALNORM_F16);
  testutil::FillNormal(weight16, 4);
  x = x16.view();
  y = y16.view();
  weight = weight16.view();
  EXPECT_EQ(RmsNormForward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("weight"));
  EXPECT_TRUE(testutil::AllSentinel(y16));
}

// The fused residual add (forward).

TEST_F(RowNormErrorsTest, ResidualWithoutResidualOut) {
  UseResidual();
  options_.residual_out = nullptr;
  EXPECT_EQ(LayerNormForward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("residual_out"));
  EXPECT_EQ(RmsNormForward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("residual_out"));
}

TEST_F(RowNormErrorsTest, ResidualNullData) {
  UseResidual();
  residual->data = nullptr;
  EXPECT_EQ(RmsNormForward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("residual"));
}

TEST_F(RowNormErrorsTest, ResidualShapeDiffersFromX) {
  UseResidual();
  residual->shape[1] = kHidden - 1;
  EXPECT_EQ(LayerNormForward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("residual"));
}

TEST_F(RowNormErrorsTest, ResidualDtypeDiffersFromX) {
  TestTensor residual16({kRows, kHidden}, {}, 0, HALNORM_BF16);
  testutil::FillNormal(residual16, 3);
  residual = residual16.view();
  UseResidual();
  EXPECT_EQ(RmsNormForward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("residual"));
  EXPECT_THAT(LastError(), HasSubstr("dtype"));
}

TEST_F(RowNormErrorsTest, ResidualOutShapeDiffersFromX) {
  UseResidual();
  residual_out->shape[0] = kRows - 1;
  EXPECT_EQ(LayerNormForward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("residual_out"));
}

TEST_F(RowNormErrorsTest, ResidualOutDtypeDiffersFromX) {
  UseResidual();
  residual_out->dtype = HALNORM_F16;
  EXPECT_EQ(RmsNormForward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("residual_out"));
  EXPECT_THAT(LastError(), HasSubstr("dtype"));
}

TEST_F(RowNormErrorsTest, ResidualOutAliasesY) {
  UseResidual();
  residual_out->data = y->data;
  EXPECT_EQ(LayerNormForward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), AnyOf(NamesArgument("residual_out"), NamesArgument("y")));
}

TEST_F(RowNormErrorsTest, ResidualOutOverlapsX) {
  UseResidual();
  residual_out->data = x->data;
  EXPECT_EQ(RmsNormForward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), AnyOf(NamesArgument("residual_out"), NamesArgument("x")));
}

// Backward.

TEST_F(RowNormErrorsTest, BackwardNullDy) {
  dy = nullptr;
  EXPECT_EQ(LayerNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("dy"));
  EXPECT_EQ(RmsNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("dy"));
}

TEST_F(RowNormErrorsTest, BackwardNullX) {
  x = nullptr;
  EXPECT_EQ(RmsNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("x"));
}

TEST_F(RowNormErrorsTest, BackwardNullDx) {
  dx = nullptr;
  EXPECT_EQ(LayerNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("dx"));
}

TEST_F(RowNormErrorsTest, LayerNormBackwardNeedsMean) {
  saved_mean = nullptr;
  EXPECT_EQ(LayerNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("mean"));
}

TEST_F(RowNormErrorsTest, BackwardNeedsRstd) {
  saved_rstd = nullptr;
  EXPECT_EQ(LayerNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("rstd"));
  EXPECT_EQ(RmsNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("rstd"));
}

TEST_F(RowNormErrorsTest, BackwardDyDtypeDiffersFromX) {
  dy->dtype = HALNORM_BF16;
  EXPECT_EQ(LayerNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), AnyOf(NamesArgument("dy"), NamesArgument("x")));
  EXPECT_THAT(LastError(), HasSubstr("dtype"));
}

TEST_F(RowNormErrorsTest, BackwardDxDtypeDiffersFromX) {
  dx->dtype = HALNORM_F16;
  EXPECT_EQ(RmsNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("dx"));
}

TEST_F(RowNormErrorsTest, BackwardDyShapeDiffersFromX) {
  dy->shape[1] = kHidden + 1;
  EXPECT_EQ(RmsNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), AnyOf(NamesArgument("dy"), NamesArgument("x")));
}

TEST_F(RowNormErrorsTest, BackwardDweightShapeWrong) {
  dweight->shape[0] = kHidden - 1;
  EXPECT_EQ(LayerNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("dweight"));
  EXPECT_EQ(RmsNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("dweight"));
}

TEST_F(RowNormErrorsTest, BackwardDbiasShapeWrong) {
  dbias->shape[0] = kHidden + 1;
  EXPECT_EQ(LayerNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("dbias"));
}

TEST_F(RowNormErrorsTest, BackwardDweightF16WithF32X) {
  dweight->dtype = HALNORM_F16;
  EXPECT_EQ(RmsNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("dweight"));
}

TEST_F(RowNormErrorsTest, BackwardWeightF16WithF32X) {
  weight->dtype = HALNORM_F16;
  EXPECT_EQ(LayerNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("weight"));
}

TEST_F(RowNormErrorsTest, BackwardWeightSizeMismatch) {
  weight->shape[0] = kHidden - 1;
  EXPECT_EQ(RmsNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("weight"));
}

TEST_F(RowNormErrorsTest, BackwardMeanNotF32) {
  saved_mean->dtype = HALNORM_F16;
  EXPECT_EQ(LayerNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("mean"));
  EXPECT_THAT(LastError(), HasSubstr("dtype"));
}

TEST_F(RowNormErrorsTest, BackwardRstdShapeWrong) {
  saved_rstd->shape[0] = kRows - 1;
  EXPECT_EQ(RmsNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("rstd"));
}

TEST_F(RowNormErrorsTest, BackwardDxAliasesDy) {
  dx->data = dy->data;
  EXPECT_EQ(LayerNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), AnyOf(NamesArgument("dx"), NamesArgument("dy")));
}

TEST_F(RowNormErrorsTest, BackwardDweightAliasesDbias) {
  dbias->data = dweight->data;
  EXPECT_EQ(LayerNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), AnyOf(NamesArgument("dweight"), NamesArgument("dbias")));
}

TEST_F(RowNormErrorsTest, BackwardResidualGradientShapeWrong) {
  options_.residual = residual;
  residual->shape[0] = kRows + 1;
  EXPECT_EQ(RmsNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("residual"));
}

TEST_F(RowNormErrorsTest, BackwardResidualGradientDtypeDiffersFromX) {
  options_.residual = residual;
  residual->dtype = HALNORM_BF16;
  EXPECT_EQ(LayerNormBackward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("residual"));
}

}  // namespace
}  // namespace halnorm
