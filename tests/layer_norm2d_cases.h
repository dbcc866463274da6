// The calls LayerNorm2d is tested with: every registry variant of op
// kLayerNorm2d forced on NCHW tensors normalized over C (the only calls that
// run on the channel-norm kernels), and dispatched calls for every axes and
// layout, which may run on the row-norm kernels instead.
#ifndef HALNORM_TESTS_LAYER_NORM2D_CASES_H_
#define HALNORM_TESTS_LAYER_NORM2D_CASES_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/halnorm_c.h"
#include "runtime/variant_registry.h"
#include "tests/reference/layer_norm2d_reference.h"

namespace halnorm::testutil {

// One call's arguments; the direction says forward or backward.
struct LayerNorm2dCase {
  std::string name;  // unique within a direction's list; [A-Za-z0-9_] only
  const internal::Variant* variant = nullptr;  // forced; nullptr: dispatch picks
  internal::Direction direction = internal::Direction::kForward;
  halnorm_axes axes = HALNORM_AXES_C;
  halnorm_dtype dtype = HALNORM_F32;  // of x, y, dy, dx
  reference::Nchw shape;              // logical NCHW
  // Every activation (x, y, dy, dx) channels-last in memory: strides
  // {H*W*C, 1, W*C, C}. Otherwise NCHW-contiguous.
  bool channels_last = false;
  int64_t data_offset = 0;  // elements before every tensor's data (misalignment)
  double offset = 0.0;      // x = offset + scale * N(0,1)
  double scale = 1.0;
  float eps = 1e-5f;
  bool weight = true;      // non-uniform
  bool bias = true;        //
  bool params_f32 = true;  // weight, bias, dweight, dbias in f32, else in dtype
  bool mean = true;        // forward: request mean
  bool rstd = true;        // forward: request rstd
  bool dweight = true;     // backward: request dweight
  bool dbias = true;       // backward: request dbias
};

void PrintTo(const LayerNorm2dCase& c, std::ostream* os);

// The registry's kLayerNorm2d variants of `direction`, in registry order.
std::vector<const internal::Variant*> LayerNorm2dVariants(internal::Direction direction);

// Every forced variant on its shapes and options, then the dispatched calls.
std::vector<LayerNorm2dCase> LayerNorm2dCases(internal::Direction direction);

// One case of `shape` per way a call can run: each forced variant (AXES_C,
// NCHW) and each dispatched (axes, layout, dtype).
std::vector<LayerNorm2dCase> LayerNorm2dConfigs(internal::Direction direction,
                                                const reference::Nchw& shape);

std::string LayerNorm2dCaseTestName(const ::testing::TestParamInfo<LayerNorm2dCase>& info);

// Skips cases forcing a variant whose ISA this CPU lacks, or a GPU variant
// without its driver (CUDA without a GPU; OpenCL without PoCL).
class LayerNorm2dTest : public ::testing::TestWithParam<LayerNorm2dCase> {
 protected:
  void SetUp() override;
};

std::vector<int64_t> ActivationShape(const LayerNorm2dCase& c);    // [N, C, H, W]
std::vector<int64_t> ActivationStrides(const LayerNorm2dCase& c);  // in elements
std::vector<int64_t> LayerNorm2dStatisticsShape(const LayerNorm2dCase& c);
reference::Axes2d ReferenceAxes(halnorm_axes axes);
halnorm_dtype ParamDtype(const LayerNorm2dCase& c);
const char* AxesName(halnorm_axes axes);

}  // namespace halnorm::testutil

#endif  // HALNORM_TESTS_LAYER_NORM2D_CASES_H_
