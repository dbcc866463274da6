// Bad input to halnorm_layer_norm2d_forward/backward: the right code, a
// message that names the argument, no output written, inputs untouched,
// nothing printed.
#include <cstdint>
#include <initializer_list>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cuda_driver.h"
#include "runtime/halnorm_c.h"
#include "runtime/variant_registry.h"
#include "tests/api_error_matchers.h"
#include "tests/test_tensors.h"

namespace halnorm {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testutil::LastError;
using testutil::NamesArgument;
using testutil::TestTensor;

constexpr int64_t kN = 2, kC = 3, kH = 4, kW = 5;

// Valid f32 NCHW [2, 3, 4, 5] arguments for both calls with every axes'
// statistics; each test breaks one thing through the pointers below, then
// calls one entry point.
class LayerNorm2dErrorsTest : public ::testing::Test {
 protected:
  LayerNorm2dErrorsTest() {
    testutil::FillNormal(x_, 1);
    testutil::FillNormal(dy_, 2);
    testutil::FillNormal(weight_, 3, /*offset=*/1.0);
    testutil::FillNormal(bias_, 4);
    testutil::FillNormal(saved_mean_c_, 5);
    testutil::FillNormal(saved_rstd_c_, 6, /*offset=*/1.0, /*scale=*/0.0);
    testutil::FillNormal(saved_stats_chw_, 7, /*offset=*/1.0, /*scale=*/0.0);
    testutil::FillNormal(saved_stats_hw_, 8, /*offset=*/1.0, /*scale=*/0.0);
  }

  // Points the statistics at those of `new_axes` (AXES_C's by default).
  void UseAxes(halnorm_axes new_axes) {
    axes = new_axes;
    switch (new_axes) {
      case HALNORM_AXES_C:
        mean = mean_c_.view();
        rstd = rstd_c_.view();
        saved_mean = saved_mean_c_.view();
        saved_rstd = saved_rstd_c_.view();
        break;
      case HALNORM_AXES_CHW:
        mean = mean_chw_.view();
        rstd = rstd_chw_.view();
        saved_mean = saved_rstd = saved_stats_chw_.view();
        break;
      case HALNORM_AXES_HW:
        mean = mean_hw_.view();
        rstd = rstd_hw_.view();
        saved_mean = saved_rstd = saved_stats_hw_.view();
        break;
    }
  }

  int Forward() {
    return Checked(
        [&] { return halnorm_layer_norm2d_forward(x, weight, bias, axes, eps, y, mean, rstd); });
  }
  int Backward() {
    return Checked([&] {
      return halnorm_layer_norm2d_backward(dy, x, saved_mean, saved_rstd, weight, axes, dx, dweight,
                                           dbias);
    });
  }

  // Runs `call` and checks the "no side effects" half of the contract.
  template <typename Call>
  int Checked(Call call) {
    testutil::TensorSnapshot inputs;
    for (const auto& [name, tensor] : {std::pair<const char*, const TestTensor*>{"x", &x_},
                                       {"dy", &dy_},
                                       {"weight", &weight_},
                                       {"bias", &bias_},
                                       {"mean (saved, C)", &saved_mean_c_},
                                       {"rstd (saved, C)", &saved_rstd_c_},
                                       {"statistics (saved, CHW)", &saved_stats_chw_},
                                       {"statistics (saved, HW)", &saved_stats_hw_}}) {
      inputs.Add(name, *tensor);
    }
    ::testing::internal::CaptureStderr();
    const int code = call();
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
    for (const TestTensor* output : {&y_, &mean_c_, &rstd_c_, &mean_chw_, &rstd_chw_, &mean_hw_,
                                     &rstd_hw_, &dx_, &dweight_, &dbias_}) {
      EXPECT_TRUE(testutil::AllSentinel(*output)) << "an output was written";
    }
    EXPECT_THAT(inputs.Changed(), IsEmpty()) << "inputs modified";
    return code;
  }

  // Inputs.
  TestTensor x_{{kN, kC, kH, kW}}, dy_{{kN, kC, kH, kW}};
  TestTensor weight_{{kC}}, bias_{{kC}};
  TestTensor saved_mean_c_{{kN, kH, kW}}, saved_rstd_c_{{kN, kH, kW}};
  TestTensor saved_stats_chw_{{kN}}, saved_stats_hw_{{kN, kC}};  // mean and rstd alike
  // Outputs.
  TestTensor y_{{kN, kC, kH, kW}}, dx_{{kN, kC, kH, kW}}, dweight_{{kC}}, dbias_{{kC}};
  TestTensor mean_c_{{kN, kH, kW}}, rstd_c_{{kN, kH, kW}};
  TestTensor mean_chw_{{kN}}, rstd_chw_{{kN}};
  TestTensor mean_hw_{{kN, kC}}, rstd_hw_{{kN, kC}};
  // The calls' arguments; tests repoint or edit them.
  halnorm_axes axes = HALNORM_AXES_C;
  float eps = 1e-5f;
  halnorm_tensor* x = x_.view();
  halnorm_tensor* dy = dy_.view();
  halnorm_tensor* weight = weight_.view();
  halnorm_tensor* bias = bias_.view();
  halnorm_tensor* saved_mean = saved_mean_c_.view();
  halnorm_tensor* saved_rstd = saved_rstd_c_.view();
  halnorm_tensor* y = y_.view();
  halnorm_tensor* mean = mean_c_.view();
  halnorm_tensor* rstd = rstd_c_.view();
  halnorm_tensor* dx = dx_.view();
  halnorm_tensor* dweight = dweight_.view();
  halnorm_tensor* dbias = dbias_.view();
};

// Channels-last strides for t's NCHW shape, as if its buffer held W = `w`
// columns (w > t->shape[3]: each row of pixels padded).
void UseChannelsLast(halnorm_tensor* t, int64_t w) {
  const int64_t c = t->shape[1];
  t->strides[1] = 1;
  t->strides[3] = c;
  t->strides[2] = w * c;
  t->strides[0] = t->shape[2] * w * c;
}

// Everything else in this file relies on the baselines being valid (these
// unchecked calls may write their outputs).
TEST_F(LayerNorm2dErrorsTest, ValidCallsSucceed) {
  for (halnorm_axes each : {HALNORM_AXES_C, HALNORM_AXES_CHW, HALNORM_AXES_HW}) {
    UseAxes(each);
    EXPECT_EQ(halnorm_layer_norm2d_forward(x, weight, bias, axes, eps, y, mean, rstd), HALNORM_OK)
        << "axes " << each << ": " << LastError();
    EXPECT_EQ(halnorm_layer_norm2d_backward(dy, x, saved_mean, saved_rstd, weight, axes, dx,
                                            dweight, dbias),
              HALNORM_OK)
        << "axes " << each << ": " << LastError();
  }
}

// Forward.

TEST_F(LayerNorm2dErrorsTest, ForwardNullX) {
  x = nullptr;
  EXPECT_EQ(Forward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("x"));
}

TEST_F(LayerNorm2dErrorsTest, ForwardXOfRank3) {
  x->rank = 3;  // [2, 3, 4]
  EXPECT_EQ(Forward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("x"));
}

TEST_F(LayerNorm2dErrorsTest, ForwardNullY) {
  y = nullptr;
  EXPECT_EQ(Forward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("y"));
}

TEST_F(LayerNorm2dErrorsTest, ForwardYDtypeDiffersFromX) {
  y->dtype = HALNORM_F16;
  EXPECT_EQ(Forward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("y"));
}

TEST_F(LayerNorm2dErrorsTest, ForwardYShapeDiffersFromX) {
  y->shape[3] = kW - 1;
  EXPECT_EQ(Forward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("y"));
}

TEST_F(LayerNorm2dErrorsTest, ForwardWeightOfWrongSize) {
  weight->shape[0] = kC - 1;
  EXPECT_EQ(Forward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("weight"));
}

// Per channel for every axes: a weight over H*W or C*H*W is not LayerNorm2d's.
TEST_F(LayerNorm2dErrorsTest, ForwardWeightOverTheNormalizedSet) {
  UseAxes(HALNORM_AXES_HW);
  TestTensor per_pixel({kH * kW});
  testutil::FillNormal(per_pixel, 9, /*offset=*/1.0);
  weight = per_pixel.view();
  EXPECT_EQ(Forward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("weight"));
}

// Weights may be f32 or the activation dtype, nothing else.
TEST_F(LayerNorm2dErrorsTest, ForwardWeightF16WithF32X) {
  weight->dtype = HALNORM_F16;
  EXPECT_EQ(Forward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("weight"));
}

TEST_F(LayerNorm2dErrorsTest, ForwardBiasOfWrongSize) {
  bias->shape[0] = kC - 1;
  EXPECT_EQ(Forward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("bias"));
}

// Each axes' statistics shape is refused for the other two.
TEST_F(LayerNorm2dErrorsTest, ForwardMeanOfAnotherAxesShape) {
  struct Mismatch {
    halnorm_axes axes;
    TestTensor* mean;  // of another axes
  };
  for (const Mismatch& mismatch :
       {Mismatch{HALNORM_AXES_C, &mean_chw_}, Mismatch{HALNORM_AXES_CHW, &mean_hw_},
        Mismatch{HALNORM_AXES_HW, &mean_c_}}) {
    UseAxes(mismatch.axes);
    mean = mismatch.mean->view();
    EXPECT_EQ(Forward(), HALNORM_ERROR_INVALID_ARGUMENT) << "axes " << mismatch.axes;
    EXPECT_THAT(LastError(), NamesArgument("mean")) << "axes " << mismatch.axes;
  }
}

TEST_F(LayerNorm2dErrorsTest, ForwardRstdOfAnotherAxesShape) {
  UseAxes(HALNORM_AXES_HW);
  rstd = rstd_chw_.view();
  EXPECT_EQ(Forward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("rstd"));
}

TEST_F(LayerNorm2dErrorsTest, ForwardMeanNotF32) {
  mean->dtype = HALNORM_BF16;
  EXPECT_EQ(Forward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("mean"));
}

TEST_F(LayerNorm2dErrorsTest, ForwardUnknownAxes) {
  for (int value : {3, -1}) {
    axes = static_cast<halnorm_axes>(value);
    EXPECT_EQ(Forward(), HALNORM_ERROR_INVALID_ARGUMENT) << value;
    EXPECT_THAT(LastError(), NamesArgument("axes")) << value;
  }
}

TEST_F(LayerNorm2dErrorsTest, ForwardNegativeEps) {
  eps = -1e-5f;
  EXPECT_EQ(Forward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("eps"));
}

// Backward.

TEST_F(LayerNorm2dErrorsTest, BackwardXOfRank3) {
  x->rank = 3;
  EXPECT_EQ(Backward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("x"));
}

// A null dy once ran the forward pass instead, writing the saved mean/rstd.
TEST_F(LayerNorm2dErrorsTest, BackwardNullDy) {
  for (halnorm_axes each : {HALNORM_AXES_C, HALNORM_AXES_CHW, HALNORM_AXES_HW}) {
    UseAxes(each);
    dy = nullptr;
    EXPECT_EQ(Backward(), HALNORM_ERROR_INVALID_ARGUMENT) << "axes " << each;
    EXPECT_THAT(LastError(), NamesArgument("dy"));
  }
}

TEST_F(LayerNorm2dErrorsTest, BackwardNullMean) {
  saved_mean = nullptr;
  EXPECT_EQ(Backward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("mean"));
}

TEST_F(LayerNorm2dErrorsTest, BackwardNullRstd) {
  saved_rstd = nullptr;
  EXPECT_EQ(Backward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("rstd"));
}

TEST_F(LayerNorm2dErrorsTest, BackwardMeanOfAnotherAxesShape) {
  UseAxes(HALNORM_AXES_HW);
  saved_mean = saved_mean_c_.view();
  EXPECT_EQ(Backward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("mean"));
}

TEST_F(LayerNorm2dErrorsTest, BackwardDyShapeDiffersFromX) {
  dy->shape[1] = kC - 1;
  EXPECT_EQ(Backward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("dy"));
}

TEST_F(LayerNorm2dErrorsTest, BackwardDxDtypeDiffersFromX) {
  dx->dtype = HALNORM_BF16;
  EXPECT_EQ(Backward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("dx"));
}

TEST_F(LayerNorm2dErrorsTest, BackwardWeightOfWrongSize) {
  weight->shape[0] = kC - 1;
  EXPECT_EQ(Backward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("weight"));
}

TEST_F(LayerNorm2dErrorsTest, BackwardDweightOfWrongSize) {
  dweight->shape[0] = kC - 1;
  EXPECT_EQ(Backward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("dweight"));
}

TEST_F(LayerNorm2dErrorsTest, BackwardDbiasOfWrongSize) {
  dbias->shape[0] = kC - 1;
  EXPECT_EQ(Backward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("dbias"));
}

// Layout errors name the tensor that differs from x, not x.
TEST_F(LayerNorm2dErrorsTest, BackwardChannelsLastDyWithNchwX) {
  UseChannelsLast(dy, kW);
  EXPECT_EQ(Backward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("dy"));
  UseAxes(HALNORM_AXES_HW);
  EXPECT_EQ(Backward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("dy"));
}

TEST_F(LayerNorm2dErrorsTest, ForwardNchwYWithChannelsLastX) {
  UseChannelsLast(x, kW);
  EXPECT_EQ(Forward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("y"));
}

// A channels-last sample with padded pixel rows is not one run of C*H*W:
// the message counts dims as the caller does (NCHW: H is dim 2).
TEST_F(LayerNorm2dErrorsTest, ForwardPaddedChannelsLastSample) {
  UseAxes(HALNORM_AXES_CHW);
  for (halnorm_tensor* t : {x, y}) {
    t->shape[3] = kW - 1;
    UseChannelsLast(t, kW);
  }
  EXPECT_EQ(Forward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("x"));
  EXPECT_THAT(LastError(), ::testing::HasSubstr("dim 2 (H) has stride 15, expected 12"));
}

TEST_F(LayerNorm2dErrorsTest, BackwardUnknownAxes) {
  axes = static_cast<halnorm_axes>(7);
  EXPECT_EQ(Backward(), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), NamesArgument("axes"));
}

void PutOnCuda(std::initializer_list<halnorm_tensor*> tensors) {
  for (halnorm_tensor* t : tensors) t->device = HALNORM_CUDA;
}

// Without a GPU (or, on ARM64, without CUDA kernels in the build) a call on
// HALNORM_CUDA tensors says why, over every axes: NCHW, and channels-last
// for AXES_C (these tensors are host memory, so nothing must touch them).
TEST_F(LayerNorm2dErrorsTest, CudaTensorsWithoutAGpu) {
  if (internal::BuildHasDevice(internal::Device::kCuda) && internal::LoadCudaDriver().ok()) {
    GTEST_SKIP() << "a GPU is here: tests/cuda_api_test.cc runs these calls";
  }
  for (halnorm_axes each : {HALNORM_AXES_C, HALNORM_AXES_CHW, HALNORM_AXES_HW}) {
    UseAxes(each);
    PutOnCuda({x, weight, bias, y, mean, rstd, dy, dx, dweight, dbias, saved_mean, saved_rstd});
    EXPECT_EQ(Forward(), HALNORM_ERROR_UNSUPPORTED) << "axes " << each;
    EXPECT_THAT(LastError(), HasSubstr("CUDA"));
    EXPECT_EQ(Backward(), HALNORM_ERROR_UNSUPPORTED) << "axes " << each;
    EXPECT_THAT(LastError(), HasSubstr("CUDA"));
  }
  UseAxes(HALNORM_AXES_C);
  for (halnorm_tensor* t : {x, y}) UseChannelsLast(t, kW);
  EXPECT_EQ(Forward(), HALNORM_ERROR_UNSUPPORTED);
  EXPECT_THAT(LastError(), HasSubstr("CUDA"));
}

}  // namespace
}  // namespace halnorm
