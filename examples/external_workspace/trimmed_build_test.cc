// This workspace builds halnorm trimmed (.bazelrc): without its GPU kernels
// (--define=halnorm_gpu_kernels=off) and with only the baseline CPU kernels
// (--define=halnorm_cpu_kernels=baseline). CPU calls run the SSE4.1 kernels
// whatever this CPU has; a HALNORM_CUDA tensor is refused as by a build
// without CUDA, naming the argument, and the output is left as it was.
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/halnorm_c.h"

namespace {

constexpr int64_t kRows = 2, kHidden = 8;

halnorm_tensor Matrix(std::vector<float>& data, halnorm_device device) {
  halnorm_tensor t{};
  t.data = data.data();
  t.dtype = HALNORM_F32;
  t.device = device;
  t.rank = 2;
  t.shape[0] = kRows;
  t.shape[1] = kHidden;
  t.strides[0] = kHidden;
  t.strides[1] = 1;
  return t;
}

// BUILD sets HALNORM_VERBOSE=dispatch: the call names the kernel it ran.
TEST(TrimmedBuildTest, CpuCallsRunTheBaselineKernels) {
  std::vector<float> x(kRows * kHidden, 2.f), y(kRows * kHidden, -1.f);
  halnorm_tensor xt = Matrix(x, HALNORM_CPU), yt = Matrix(y, HALNORM_CPU);
  testing::internal::CaptureStderr();
  const int rc = halnorm_rms_norm_forward(&xt, nullptr, nullptr, &yt, nullptr);
  const std::string dispatch = testing::internal::GetCapturedStderr();
  ASSERT_EQ(rc, 0) << halnorm_last_error();
  for (float v : y) EXPECT_NEAR(v, 1.f, 1e-5f);
  EXPECT_NE(dispatch.find("-> rms_norm_fwd_f32__x86_sse41_c"), std::string::npos) << dispatch;
}

TEST(TrimmedBuildTest, CudaTensorsAreRefused) {
  std::vector<float> x(kRows * kHidden, 2.f), y(kRows * kHidden, -1.f);
  halnorm_tensor xt = Matrix(x, HALNORM_CUDA), yt = Matrix(y, HALNORM_CUDA);
  EXPECT_EQ(halnorm_rms_norm_forward(&xt, nullptr, nullptr, &yt, nullptr),
            HALNORM_ERROR_UNSUPPORTED);
  const std::string error = halnorm_last_error();
  EXPECT_NE(error.find("x: device HALNORM_CUDA is not available in this build"),
            std::string::npos)
      << error;
  for (float v : y) EXPECT_EQ(v, -1.f);
}

}  // namespace
