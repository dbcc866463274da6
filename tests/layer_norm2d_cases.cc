#include "tests/layer_norm2d_cases.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/cpu_features.h"
#include "runtime/device_call.h"
#include "tests/variant_params.h"

namespace halnorm::testutil {
namespace {

using internal::Direction;
using internal::Variant;
using reference::Nchw;

// ConvNeXt-T's four stages at batch 2 and SAM's image-encoder neck: the
// models that use LayerNorm2d over C.
constexpr Nchw kConvNextStages[] = {
    {2, 96, 56, 56}, {2, 192, 28, 28}, {2, 384, 14, 14}, {2, 768, 7, 7}};
constexpr Nchw kSamNeck = {1, 256, 64, 64};
// C = 1 (zero variance everywhere), H = W = 1 (NCHW and NHWC strides agree),
// odd and prime extents, and pixel counts (H*W) below, at and above 16-wide
// vectors and a 64-pixel task: 15, 16, 33, 64, 65.
constexpr Nchw kSmallShapes[] = {{2, 1, 5, 7},   {4, 96, 1, 1}, {3, 5, 7, 9},
                                 {2, 13, 1, 17}, {1, 7, 1, 15}, {1, 7, 4, 4},
                                 {1, 3, 3, 11},  {2, 17, 8, 8}, {1, 5, 5, 13}};
// 16-bit variants share the f32 code but the conversions: fewer, smaller shapes.
constexpr Nchw kConvNextStages16Bit[] = {{2, 384, 14, 14}, {2, 768, 7, 7}};
constexpr Nchw kOptionShapes[] = {{2, 96, 7, 7}, {3, 5, 7, 9}};
constexpr Nchw kOdd = {3, 5, 7, 9};

std::string ShapeName(const Nchw& s) { return absl::StrCat(s.n, "x", s.c, "x", s.h, "x", s.w); }

LayerNorm2dCase With(LayerNorm2dCase c, const char* suffix) {
  absl::StrAppend(&c.name, "_", suffix);
  return c;
}

LayerNorm2dCase ForcedCase(const Variant& variant, const Nchw& shape) {
  LayerNorm2dCase c;
  c.name = absl::StrCat(variant.name, "__", ShapeName(shape));
  c.variant = &variant;
  c.direction = variant.direction;
  c.dtype = variant.dtype;
  c.shape = shape;
  return c;
}

LayerNorm2dCase DispatchedCase(Direction direction, halnorm_axes axes, bool channels_last,
                               halnorm_dtype dtype, const Nchw& shape) {
  LayerNorm2dCase c;
  c.name = absl::StrCat("dispatch_", AxesName(axes), channels_last ? "_nhwc_" : "_nchw_",
                        internal::DtypeName(dtype), "__", ShapeName(shape));
  c.direction = direction;
  c.axes = axes;
  c.channels_last = channels_last;
  c.dtype = dtype;
  c.shape = shape;
  return c;
}

// Options shared by forced and dispatched cases, on `base`'s shape.
void AddOptionCases(const LayerNorm2dCase& base, std::vector<LayerNorm2dCase>& cases) {
  const bool f32 = base.dtype == HALNORM_F32;
  const bool forward = base.direction == Direction::kForward;
  auto add = [&](const char* suffix, auto&& edit) {
    LayerNorm2dCase c = With(base, suffix);
    edit(c);
    cases.push_back(std::move(c));
  };
  // A large common offset: naive sums cancel. A 16-bit dtype cannot hold
  // such values' noise (an f16 ulp at 1e4 is 8).
  if (f32) add("offset1e4", [](LayerNorm2dCase& c) { c.offset = 1e4; });
  add("no_affine", [](LayerNorm2dCase& c) { c.weight = c.bias = c.dweight = c.dbias = false; });
  add("weight_only", [](LayerNorm2dCase& c) { c.bias = c.dbias = false; });
  add("bias_only", [](LayerNorm2dCase& c) { c.weight = c.dweight = false; });
  if (!f32) add("params_in_dtype", [](LayerNorm2dCase& c) { c.params_f32 = false; });
  add("misaligned", [](LayerNorm2dCase& c) { c.data_offset = 1; });
  if (forward) {
    add("no_stats", [](LayerNorm2dCase& c) { c.mean = c.rstd = false; });
    add("mean_only", [](LayerNorm2dCase& c) { c.rstd = false; });
    add("rstd_only", [](LayerNorm2dCase& c) { c.mean = false; });
  } else {
    add("no_dweight", [](LayerNorm2dCase& c) { c.dweight = false; });
    add("no_dbias", [](LayerNorm2dCase& c) { c.dbias = false; });
  }
}

std::vector<LayerNorm2dCase> ForcedCases(const Variant& variant) {
  const bool f32 = variant.dtype == HALNORM_F32;
  std::vector<LayerNorm2dCase> cases;
  if (f32) {
    for (const Nchw& shape : kConvNextStages) cases.push_back(ForcedCase(variant, shape));
    cases.push_back(ForcedCase(variant, kSamNeck));
  } else {
    for (const Nchw& shape : kConvNextStages16Bit) cases.push_back(ForcedCase(variant, shape));
  }
  for (const Nchw& shape : kSmallShapes) cases.push_back(ForcedCase(variant, shape));
  for (const Nchw& shape : kOptionShapes) AddOptionCases(ForcedCase(variant, shape), cases);
  if (f32) {
    // The accuracy contract's hardest rows: mean 1e6 times the std.
    LayerNorm2dCase c = With(ForcedCase(variant, {2, 96, 7, 7}), "offset1e6");
    c.offset = 1e6;
    cases.push_back(c);
  }
  // With var ~ 1, eps = 1e-5 is below the tolerance; make it matter.
  LayerNorm2dCase large_eps = With(ForcedCase(variant, {2, 16, 5, 5}), "eps0p5");
  large_eps.eps = 0.5f;
  large_eps.scale = 0.5;
  cases.push_back(large_eps);
  // Constant pixels: zero variance, xhat = 0, y = bias. Backward: dx =
  // rstd * (g - mean(g)), where rstd = 1/sqrt(1e-5) = 316 would scale f32's
  // rounding of mean(g) past the policy; eps = 1 keeps rstd = 1.
  LayerNorm2dCase constant = With(ForcedCase(variant, {2, 16, 5, 5}), "constant");
  constant.offset = 3.0;
  constant.scale = 0.0;
  if (variant.direction == Direction::kBackward) constant.eps = 1.0f;
  cases.push_back(constant);
  // Calls the channel-norm kernels do not run: the forced variant is
  // ignored and the row-norm kernels give the same results.
  for (halnorm_axes axes : {HALNORM_AXES_CHW, HALNORM_AXES_HW}) {
    LayerNorm2dCase c = ForcedCase(variant, kOdd);
    c.axes = axes;
    cases.push_back(With(c, absl::StrCat("ignored_for_", AxesName(axes)).c_str()));
  }
  LayerNorm2dCase nhwc = With(ForcedCase(variant, kOdd), "ignored_for_nhwc");
  nhwc.channels_last = true;
  cases.push_back(nhwc);
  return cases;
}

struct Layout {
  halnorm_axes axes;
  bool channels_last;
};
// AXES_CHW and AXES_HW on channels-last tensors are checked through the
// public API only (layer_norm2d_test.cc, LayerNorm2dPublicTest), so that
// one failure there does not multiply across this matrix.
constexpr Layout kLayouts[] = {{HALNORM_AXES_C, false},
                               {HALNORM_AXES_C, true},
                               {HALNORM_AXES_CHW, false},
                               {HALNORM_AXES_HW, false}};
constexpr halnorm_dtype kDtypes[] = {HALNORM_F32, HALNORM_F16, HALNORM_BF16};

std::vector<LayerNorm2dCase> DispatchedCases(Direction direction) {
  // One sample too: AXES_HW's backward then sums each row (a channel) apart.
  constexpr Nchw kShapes[] = {
      {2, 96, 14, 14}, {2, 1, 5, 7}, {4, 96, 1, 1}, {2, 13, 1, 17}, {1, 7, 4, 4}};
  std::vector<LayerNorm2dCase> cases;
  for (const Layout& layout : kLayouts) {
    for (halnorm_dtype dtype : kDtypes) {
      auto make = [&](const Nchw& shape) {
        return DispatchedCase(direction, layout.axes, layout.channels_last, dtype, shape);
      };
      // The first ConvNeXt stage: 301056-element samples for AXES_CHW.
      if (dtype == HALNORM_F32) cases.push_back(make(kConvNextStages[0]));
      for (const Nchw& shape : kShapes) cases.push_back(make(shape));
      cases.push_back(make(kOdd));
      AddOptionCases(make(kOdd), cases);
    }
  }
  return cases;
}

}  // namespace

void PrintTo(const LayerNorm2dCase& c, std::ostream* os) {
  *os << c.name << " {" << (c.variant ? c.variant->name : "dispatched") << ", " << AxesName(c.axes)
      << " " << internal::DtypeName(c.dtype) << ", shape ["
      << absl::StrJoin(ActivationShape(c), ",") << "], strides ["
      << absl::StrJoin(ActivationStrides(c), ",") << "], data_offset " << c.data_offset
      << ", x = " << c.offset << " + " << c.scale << "*N(0,1), eps " << c.eps << ", weight "
      << c.weight << ", bias " << c.bias << ", params_f32 " << c.params_f32 << ", mean " << c.mean
      << ", rstd " << c.rstd << ", dweight " << c.dweight << ", dbias " << c.dbias << "}";
}

std::vector<const Variant*> LayerNorm2dVariants(Direction direction) {
  std::vector<const Variant*> variants;
  for (const Variant& variant : internal::AllVariants()) {
    if (variant.op == internal::Op::kLayerNorm2d && variant.direction == direction) {
      variants.push_back(&variant);
    }
  }
  return variants;
}

std::vector<LayerNorm2dCase> LayerNorm2dCases(Direction direction) {
  std::vector<LayerNorm2dCase> cases;
  for (const Variant* variant : LayerNorm2dVariants(direction)) {
    for (LayerNorm2dCase& c : ForcedCases(*variant)) cases.push_back(std::move(c));
  }
  for (LayerNorm2dCase& c : DispatchedCases(direction)) cases.push_back(std::move(c));
  return cases;
}

std::vector<LayerNorm2dCase> LayerNorm2dConfigs(Direction direction, const Nchw& shape) {
  std::vector<LayerNorm2dCase> cases;
  for (const Variant* variant : LayerNorm2dVariants(direction)) {
    cases.push_back(ForcedCase(*variant, shape));
  }
  for (const Layout& layout : kLayouts) {
    for (halnorm_dtype dtype : kDtypes) {
      cases.push_back(DispatchedCase(direction, layout.axes, layout.channels_last, dtype, shape));
    }
  }
  return cases;
}

std::string LayerNorm2dCaseTestName(const ::testing::TestParamInfo<LayerNorm2dCase>& info) {
  return Sanitize(info.param.name);
}

void LayerNorm2dTest::SetUp() {
  const Variant* variant = GetParam().variant;
  if (variant == nullptr) return;
  if (!internal::HostSupports(variant->isa)) {
    GTEST_SKIP() << "CPU lacks " << internal::IsaName(variant->isa);
  }
  if (absl::Status device = internal::DeviceAvailable(variant->device); !device.ok()) {
    GTEST_SKIP() << device.message();
  }
}

std::vector<int64_t> ActivationShape(const LayerNorm2dCase& c) {
  return {c.shape.n, c.shape.c, c.shape.h, c.shape.w};
}

std::vector<int64_t> ActivationStrides(const LayerNorm2dCase& c) {
  const Nchw& s = c.shape;
  if (c.channels_last) return {s.h * s.w * s.c, 1, s.w * s.c, s.c};
  return {s.c * s.h * s.w, s.h * s.w, s.w, 1};
}

std::vector<int64_t> LayerNorm2dStatisticsShape(const LayerNorm2dCase& c) {
  return reference::LayerNorm2dStatisticsShape(ReferenceAxes(c.axes), c.shape);
}

reference::Axes2d ReferenceAxes(halnorm_axes axes) {
  switch (axes) {
    case HALNORM_AXES_C:
      return reference::Axes2d::kC;
    case HALNORM_AXES_CHW:
      return reference::Axes2d::kChw;
    case HALNORM_AXES_HW:
      return reference::Axes2d::kHw;
  }
  return reference::Axes2d::kC;
}

halnorm_dtype ParamDtype(const LayerNorm2dCase& c) { return c.params_f32 ? HALNORM_F32 : c.dtype; }

const char* AxesName(halnorm_axes axes) {
  switch (axes) {
    case HALNORM_AXES_C:
      return "axes_c";
    case HALNORM_AXES_CHW:
      return "axes_chw";
    case HALNORM_AXES_HW:
      return "axes_hw";
  }
  return "axes_unknown";
}

}  // namespace halnorm::testutil
