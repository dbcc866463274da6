// LayerNorm, RMSNorm and LayerNorm2d (every axes) forward and backward on
// HALNORM_CUDA tensors through the public C entry points (dispatch picks the
// CUDA variant), against the float64 reference, on the same cases as the CPU
// variants and the CPU dispatch: the tensors are
// copied to the device whole (tests/cuda_mirror.h), so the host-side checks
// apply. Runs for real only where a GPU and its driver are; elsewhere every
// case says SKIPPED. (The CUDA kernels also run through the forced-variant
// suites, row_norm_{forward,backward}_test and layer_norm2d_test, on a GPU
// machine.)
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/cuda_driver.h"
#include "runtime/cuda_tensors.h"
#include "runtime/halnorm_c.h"
#include "runtime/variant_registry.h"
#include "tests/cuda_mirror.h"
#include "tests/layer_norm2d_cases.h"
#include "tests/layer_norm2d_problems.h"
#include "tests/row_norm_backward_problem.h"
#include "tests/row_norm_cases.h"
#include "tests/row_norm_forward_problem.h"
#include "tests/variant_params.h"

namespace halnorm {
namespace {

using internal::CudaDriver;
using internal::Direction;
using internal::Variant;
using testutil::CudaMirror;
using testutil::RowNormCase;
using testutil::VariantAndCase;

// The cases of each (op, dtype, residual) kind: those of its CUDA config 0.
std::vector<VariantAndCase> CudaCases(Direction direction) {
  std::vector<VariantAndCase> params;
  for (const Variant* variant : testutil::RowNormVariants(direction)) {
    if (variant->device != internal::Device::kCuda || variant->config_index != 0) continue;
    for (RowNormCase& c : testutil::RowNormCases(*variant)) params.push_back({variant, c});
    // Rows in two dims that do not fold into one (padded lines of 2 rows),
    // with more lines than a launch's grid y holds: the call runs in pieces
    // (the backward adds their dweight/dbias blocks on the device).
    RowNormCase c = testutil::MatrixCase(*variant, 1, 64);
    c.name = "grid_lines";
    c.shape = {internal::kCudaMaxGridYZ + 1000, 2, 64};
    c.x_strides = {256, 64, 1};
    c.y_strides = {200, 96, 1};
    c.dx_strides = {180, 72, 1};
    params.push_back({variant, c});
  }
  return params;
}

// LayerNorm2d: the CPU dispatch's cases, every axes, dtype and option
// (AXES_C over NCHW runs the channel-norm kernels; channels-last, AXES_CHW
// and AXES_HW the row-norm ones, with per-channel planes of the runtime's
// own kernels).
std::vector<testutil::LayerNorm2dCase> CudaLayerNorm2dCases(Direction direction) {
  std::vector<testutil::LayerNorm2dCase> cases;
  for (testutil::LayerNorm2dCase& c : testutil::LayerNorm2dCases(direction)) {
    if (c.variant == nullptr) cases.push_back(std::move(c));
  }
  // More samples than a launch's grid y/z holds (kCudaMaxGridYZ): the call
  // runs in pieces, and the backward adds their dweight/dbias on the device.
  for (halnorm_dtype dtype : {HALNORM_F32, HALNORM_BF16}) {
    testutil::LayerNorm2dCase c;
    c.name = absl::StrCat("grid_pieces_", internal::DtypeName(dtype));
    c.direction = direction;
    c.dtype = dtype;
    c.shape = {internal::kCudaMaxGridYZ + 1000, 3, 1, 2};
    cases.push_back(std::move(c));
  }
  return cases;
}

template <typename Param>
class CudaTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    absl::StatusOr<const CudaDriver*> driver = internal::LoadCudaDriver();
    if (!driver.ok()) GTEST_SKIP() << driver.status().message();
    driver_ = *driver;
    absl::StatusOr<internal::CUcontext> context = internal::PrimaryContext(*driver_, 0);
    ASSERT_TRUE(context.ok()) << context.status();
    ASSERT_EQ(driver_->cuCtxSetCurrent(*context), 0);
    mirror_ = std::make_unique<CudaMirror>(*driver_);
  }

  // Runs `problem` on device copies of its tensors and copies the outputs
  // back.
  template <typename Problem>
  void RunOnDevice(Problem& problem) {
    const int rc = problem.RunPublic(mirror_->Views());
    ASSERT_TRUE(mirror_->status().ok()) << mirror_->status();
    ASSERT_EQ(rc, HALNORM_OK) << halnorm_last_error();
    for (testutil::TestTensor* output : problem.MutableOutputs()) {
      const absl::Status copied = mirror_->CopyBack(*output);
      ASSERT_TRUE(copied.ok()) << copied;
    }
  }

  const CudaDriver* driver_ = nullptr;
  std::unique_ptr<CudaMirror> mirror_;
};

class CudaApiTest : public CudaTest<VariantAndCase> {};
using CudaForwardTest = CudaApiTest;
using CudaBackwardTest = CudaApiTest;
class CudaLayerNorm2dForwardTest : public CudaTest<testutil::LayerNorm2dCase> {};
class CudaLayerNorm2dBackwardTest : public CudaTest<testutil::LayerNorm2dCase> {};

TEST_P(CudaForwardTest, MatchesReference) {
  testutil::ForwardProblem problem(GetParam().row_case);
  RunOnDevice(problem);
  if (IsSkipped() || HasFatalFailure()) return;
  problem.ExpectMatchesReference();
}

TEST_P(CudaBackwardTest, MatchesReference) {
  testutil::BackwardProblem problem(GetParam().row_case);
  RunOnDevice(problem);
  if (IsSkipped() || HasFatalFailure()) return;
  problem.ExpectMatchesReference();
}

INSTANTIATE_TEST_SUITE_P(AllCases, CudaForwardTest,
                         ::testing::ValuesIn(CudaCases(Direction::kForward)),
                         testutil::VariantAndCaseTestName);
INSTANTIATE_TEST_SUITE_P(AllCases, CudaBackwardTest,
                         ::testing::ValuesIn(CudaCases(Direction::kBackward)),
                         testutil::VariantAndCaseTestName);

TEST_P(CudaLayerNorm2dForwardTest, MatchesReference) {
  testutil::LayerNorm2dForwardProblem problem(GetParam());
  RunOnDevice(problem);
  if (IsSkipped() || HasFatalFailure()) return;
  problem.ExpectMatchesReference();
}

TEST_P(CudaLayerNorm2dBackwardTest, MatchesReference) {
  testutil::LayerNorm2dBackwardProblem problem(GetParam());
  RunOnDevice(problem);
  if (IsSkipped() || HasFatalFailure()) return;
  problem.ExpectMatchesReference();
}

INSTANTIATE_TEST_SUITE_P(Dispatched, CudaLayerNorm2dForwardTest,
                         ::testing::ValuesIn(CudaLayerNorm2dCases(Direction::kForward)),
                         testutil::LayerNorm2dCaseTestName);
INSTANTIATE_TEST_SUITE_P(Dispatched, CudaLayerNorm2dBackwardTest,
                         ::testing::ValuesIn(CudaLayerNorm2dCases(Direction::kBackward)),
                         testutil::LayerNorm2dCaseTestName);

// The call runs on the caller's stream: its results are there once that
// stream (a non-blocking one, so not ordered with the legacy default
// stream) is synchronized.
TEST_F(CudaApiTest, RunsOnTheCallersStream) {
  const Variant* variant = nullptr;
  for (const Variant* v : testutil::RowNormVariants(Direction::kForward)) {
    if (v->device == internal::Device::kCuda && !v->fused_residual) variant = v;
  }
  ASSERT_NE(variant, nullptr);
  RowNormCase c = testutil::MatrixCase(*variant, 64, 4096);
  c.weight = c.bias = c.mean = c.rstd = false;
  testutil::ForwardProblem problem(c);
  internal::CUstream stream = nullptr;
  ASSERT_EQ(driver_->cuStreamCreate(&stream, /*CU_STREAM_NON_BLOCKING=*/1), 0);
  halnorm_norm_options options;  // a direct call: the problem's options carry no stream
  halnorm_norm_options_init(&options);
  options.eps = c.eps;
  options.cuda_stream = stream;
  testutil::TestTensor& y = *problem.MutableOutputs()[0];
  halnorm_tensor* x_view = mirror_->View(problem.x());
  halnorm_tensor* y_view = mirror_->View(y);
  const int rc = variant->op == internal::Op::kRmsNorm
                     ? halnorm_rms_norm_forward(x_view, nullptr, &options, y_view, nullptr)
                     : halnorm_layer_norm_forward(x_view, nullptr, nullptr, &options, y_view,
                                                  nullptr, nullptr);
  ASSERT_EQ(rc, HALNORM_OK) << halnorm_last_error();
  ASSERT_EQ(driver_->cuStreamSynchronize(stream), 0);
  ASSERT_TRUE(mirror_->CopyBack(y).ok());
  problem.ExpectMatchesReference();
  driver_->cuStreamDestroy_v2(stream);
}

}  // namespace
}  // namespace halnorm
