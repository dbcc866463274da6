#include "runtime/layer_norm2d.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "runtime/channel_norm_call.h"
#include "runtime/channel_planes.h"
#include "runtime/cuda_tensors.h"
#include "runtime/half_float.h"
#include "runtime/layer_norm2d_args.h"
#include "runtime/layer_norm2d_cuda_backward.h"
#include "runtime/row_norm.h"
#include "runtime/row_norm_checks.h"
#include "runtime/status.h"
#include "runtime/tensor_checks.h"

namespace halnorm::internal {
namespace {

std::vector<int64_t> StatsShape(const Args2d& a) {
  switch (a.axes) {
    case HALNORM_AXES_C:
      return {a.N(), a.x->shape[2], a.x->shape[3]};
    case HALNORM_AXES_CHW:
      return {a.N()};
    default:
      return {a.N(), a.C()};
  }
}

absl::Status Check(const Args2d& a, bool backward) {
  if (a.axes != HALNORM_AXES_C && a.axes != HALNORM_AXES_CHW && a.axes != HALNORM_AXES_HW) {
    return InvalidArgument("axes: unknown value ", static_cast<int>(a.axes));
  }
  if (!(a.eps >= 0.f) || !std::isfinite(a.eps)) {
    return InvalidArgument("eps must be finite and >= 0, got ", a.eps);
  }
  HALNORM_RETURN_IF_ERROR(CheckTensor(a.x, "x"));
  const halnorm_tensor& x = *a.x;
  if (x.rank != 4) return InvalidArgument("x: rank must be 4 (NCHW), got ", x.rank);
  const auto x_shape = absl::MakeConstSpan(x.shape, 4);
  for (auto [name, t] : {NamedTensor{backward ? "dy" : "x", backward ? a.dy : a.x},
                         NamedTensor{a.out_name, a.out}}) {
    HALNORM_RETURN_IF_ERROR(CheckTensor(t, name));
    HALNORM_RETURN_IF_ERROR(CheckSameDevice(*t, name, x));
    HALNORM_RETURN_IF_ERROR(CheckDtype(*t, name, x.dtype, "must match x"));
    HALNORM_RETURN_IF_ERROR(CheckShape(*t, name, x_shape));
  }
  const int64_t channels[] = {a.C()};
  for (auto [name, t] : {NamedTensor{"weight", a.weight}, NamedTensor{"bias", a.bias},
                         NamedTensor{"dweight", a.dweight}, NamedTensor{"dbias", a.dbias}}) {
    if (t != nullptr) HALNORM_RETURN_IF_ERROR(CheckParameter(t, name, x, channels));
  }
  for (auto [name, t] : {NamedTensor{"mean", a.mean}, NamedTensor{"rstd", a.rstd}}) {
    if (t == nullptr) {
      if (backward) return InvalidArgument(name, ": required by the backward pass");
      continue;
    }
    HALNORM_RETURN_IF_ERROR(CheckTensor(t, name));
    HALNORM_RETURN_IF_ERROR(CheckSameDevice(*t, name, x));
    HALNORM_RETURN_IF_ERROR(CheckDtype(*t, name, HALNORM_F32, "statistics are f32"));
    HALNORM_RETURN_IF_ERROR(CheckShape(*t, name, StatsShape(a)));
  }
  const int64_t normalized = a.axes == HALNORM_AXES_C     ? a.C()
                             : a.axes == HALNORM_AXES_CHW ? a.C() * a.HW()
                                                          : a.HW();
  if (normalized == 0) return InvalidArgument("x: the normalized dims are empty");
  const NamedTensor outputs[] = {{a.out_name, a.out}, {"dweight", a.dweight}, {"dbias", a.dbias}};
  const NamedTensor inputs[] = {{"x", a.x},       {"dy", a.dy},     {"weight", a.weight},
                                {"bias", a.bias}, {"mean", a.mean}, {"rstd", a.rstd}};
  if (backward) return CheckOutputsDisjoint(outputs, inputs);
  const NamedTensor stats[] = {{"mean", a.mean}, {"rstd", a.rstd}};
  const NamedTensor fwd_outputs[] = {{a.out_name, a.out}, stats[0], stats[1]};
  return CheckOutputsDisjoint(fwd_outputs, absl::MakeConstSpan(inputs).subspan(0, 4));
}

// H and W of an NCHW activation flatten into one contiguous pixel axis.
bool PixelsContiguous(const halnorm_tensor& t) {
  return (t.shape[3] == 1 || t.strides[3] == 1) && (t.shape[2] == 1 || t.strides[2] == t.shape[3]);
}
// Same for [N,H,W] statistics.
bool StatPixelsContiguous(const halnorm_tensor* t) {
  return t == nullptr || ((t->shape[2] == 1 || t->strides[2] == 1) &&
                          (t->shape[1] == 1 || t->strides[1] == t->shape[2]));
}
bool ChannelsLast(const halnorm_tensor& t) { return t.shape[1] == 1 || t.strides[1] == 1; }

// The first of x, y/dx, dy not in `layout` (nullptr if none): the tensor a
// layout error names, so a mismatched output or gradient is not blamed on x.
const char* OutOfLayout(const Args2d& a, bool (*layout)(const halnorm_tensor&)) {
  if (!layout(*a.x)) return "x";
  if (!layout(*a.out)) return a.out_name;
  if (a.dy != nullptr && !layout(*a.dy)) return "dy";
  return nullptr;
}

// An NCHW tensor seen as NHWC (the rows are pixels, the feature is C).
halnorm_tensor NhwcView(const halnorm_tensor& t) {
  halnorm_tensor v = t;
  const int order[] = {0, 2, 3, 1};
  for (int d = 0; d < 4; d++) {
    v.shape[d] = t.shape[order[d]];
    v.strides[d] = t.strides[order[d]];
  }
  return v;
}

// ---- Row-norm routes -------------------------------------------------

// One row-norm call: forward (dy == nullptr) or backward.
absl::Status RowNorm(const Args2d& a, const halnorm_tensor& x, const halnorm_tensor* dy,
                     const halnorm_tensor* weight, const halnorm_tensor* bias, halnorm_tensor& out,
                     const halnorm_tensor* mean, const halnorm_tensor* rstd,
                     halnorm_tensor* dweight, halnorm_tensor* dbias, int normalized_rank) {
  halnorm_norm_options opt;
  halnorm_norm_options_init(&opt);
  opt.eps = a.eps;
  opt.normalized_rank = normalized_rank;
  if (dy == nullptr) {
    return LayerNormForward(&x, weight, bias, &opt, &out, const_cast<halnorm_tensor*>(mean),
                            const_cast<halnorm_tensor*>(rstd));
  }
  return LayerNormBackward(dy, &x, mean, rstd, weight, &opt, &out, dweight, dbias);
}

// AXES_C, channels-last: rows are pixels, the feature axis is C.
absl::Status ChannelsLastRows(const Args2d& a) {
  halnorm_tensor x = NhwcView(*a.x), out = NhwcView(*a.out);
  halnorm_tensor dy = a.dy ? NhwcView(*a.dy) : halnorm_tensor{};
  return RowNorm(a, x, a.dy ? &dy : nullptr, a.weight, a.bias, out, a.mean, a.rstd, a.dweight,
                 a.dbias, 1);
}

// A channels-last sample (C contiguous) must be one run of H*W*C values.
// Checked here, in the caller's NCHW dims, rather than by the row norm on the
// NHWC view, whose dim numbers the caller never sees.
absl::Status CheckChannelsLastSample(const halnorm_tensor* t, const char* name) {
  if (t == nullptr) return absl::OkStatus();
  const int64_t c = t->shape[1], w = t->shape[3];
  if (w > 1 && t->strides[3] != c) {
    return InvalidArgument(name, ": a channels-last sample must be contiguous; dim 3 (W) has "
                           "stride ", t->strides[3], ", expected ", c);
  }
  if (t->shape[2] > 1 && t->strides[2] != w * c) {
    return InvalidArgument(name, ": a channels-last sample must be contiguous; dim 2 (H) has "
                           "stride ", t->strides[2], ", expected ", w * c);
  }
  return absl::OkStatus();
}

// A plane of one sample's f32 parameters (`data`, laid out like x's dims
// 1-3) as a tensor shaped like x whose samples all read it.
halnorm_tensor SampleRowsOf(const halnorm_tensor& x, void* data) {
  halnorm_tensor rows = x;
  rows.data = data;
  rows.dtype = HALNORM_F32;
  rows.strides[0] = 0;
  int64_t dense = 1;
  for (int d = 3; d >= 1; d--) {
    rows.strides[d] = dense;
    dense *= x.shape[d];
  }
  return rows;
}

// AXES_CHW and AXES_HW: one row-norm call over the views `x`, `dy` (null:
// forward) and `out`, whose rows are samples or channel planes. The
// per-channel affine is a [C][H*W] (or channels-last [H*W][C]) plane, laid
// out as `at`, that every sample's rows read, and the backward sums dweight
// and dbias per channel.
absl::Status PlaneRowsCall(const Args2d& a, const halnorm_tensor& x, const halnorm_tensor* dy,
                           halnorm_tensor& out, const FeatureLayout& at, int normalized_rank) {
  // Without an affine (InstanceNorm's default), one plain row-norm call.
  if (!a.weight && !a.bias && !a.dweight && !a.dbias) {
    return RowNorm(a, x, dy, nullptr, nullptr, out, a.mean, a.rstd, nullptr, nullptr,
                   normalized_rank);
  }
  absl::StatusOr<std::unique_ptr<ChannelPlanes>> planes = ChannelPlanes::For(x);
  if (!planes.ok()) return planes.status();
  if (dy != nullptr && (*planes)->on_cuda()) {
    return CudaPlanesBackward(a, x, *dy, out, at, **planes);
  }
  const std::vector<int64_t> plane_shape(x.shape + 1, x.shape + 4);
  halnorm_tensor weight_plane{}, bias_plane{};
  HALNORM_RETURN_IF_ERROR(
      (*planes)->ExpandAffine(a.weight, a.bias, at, plane_shape, &weight_plane, &bias_plane));
  // Without a weight, the backward's placeholder over x's memory (unread)
  // still places each row in the plane.
  const halnorm_tensor weight = SampleRowsOf(x, a.weight ? weight_plane.data : x.data);
  const halnorm_tensor bias = SampleRowsOf(x, bias_plane.data);
  halnorm_norm_options opt;
  halnorm_norm_options_init(&opt);
  opt.eps = a.eps;
  opt.normalized_rank = normalized_rank;
  if (dy == nullptr) {
    // One call (over HW it was a call per channel: 8x768x7x7 f32, 2
    // threads, 1.7 -> 0.24 ms; 8x192x28x28 1.8 -> 0.5 ms).
    return LayerNormForwardRowParams(&x, a.weight ? &weight : nullptr, a.bias ? &bias : nullptr,
                                     &opt, &out, const_cast<halnorm_tensor*>(a.mean),
                                     const_cast<halnorm_tensor*>(a.rstd));
  }
  return LayerNormBackwardChannelSums(dy, &x, a.mean, a.rstd, weight, a.weight != nullptr, at, &opt,
                                      &out, a.dweight, a.dbias);
}

// AXES_CHW: a sample is one row of C*H*W (NCHW, or H*W*C channels-last).
absl::Status SampleRows(const Args2d& a) {
  const bool channels_last = a.C() > 1 && OutOfLayout(a, ChannelsLast) == nullptr;
  if (channels_last) {
    HALNORM_RETURN_IF_ERROR(CheckChannelsLastSample(a.x, "x"));
    HALNORM_RETURN_IF_ERROR(CheckChannelsLastSample(a.out, a.out_name));
    HALNORM_RETURN_IF_ERROR(CheckChannelsLastSample(a.dy, "dy"));
  }
  auto view = [&](const halnorm_tensor& t) { return channels_last ? NhwcView(t) : t; };
  halnorm_tensor x = view(*a.x), out = view(*a.out);
  halnorm_tensor dy = a.dy ? view(*a.dy) : halnorm_tensor{};
  return PlaneRowsCall(a, x, a.dy ? &dy : nullptr, out, {a.C(), a.HW(), channels_last}, 3);
}

// AXES_HW: rows are (sample, channel) planes of H*W.
absl::Status ChannelRows(const Args2d& a) {
  return PlaneRowsCall(a, *a.x, a.dy, *a.out, {a.C(), a.HW(), false}, 2);
}

// dweight and dbias (those given) of a call with no elements: zeros.
absl::Status ZeroChannelSums(const Args2d& a) {
  if (a.x->device == HALNORM_CUDA) {
    if (a.dweight == nullptr && a.dbias == nullptr) return absl::OkStatus();
    absl::StatusOr<std::unique_ptr<CudaCall>> cuda = CudaCall::Begin(*a.x, nullptr);
    if (!cuda.ok()) return cuda.status();
    for (halnorm_tensor* t : {a.dweight, a.dbias}) {
      if (t) HALNORM_RETURN_IF_ERROR((*cuda)->Zero(t->data, a.C() * DtypeBytes(t->dtype)));
    }
    return absl::OkStatus();
  }
  const std::vector<float> zeros(a.C(), 0.f);
  for (halnorm_tensor* t : {a.dweight, a.dbias}) {
    if (t) StoreFromF32(zeros.data(), a.C(), *t);
  }
  return absl::OkStatus();
}

absl::Status Run(const Args2d& a, const Variant* forced) {
  const bool backward = a.dy != nullptr;
  HALNORM_RETURN_IF_ERROR(Check(a, backward));
  if (NumElements(*a.x) == 0) return ZeroChannelSums(a);
  switch (a.axes) {
    case HALNORM_AXES_CHW:
      return SampleRows(a);
    case HALNORM_AXES_HW:
      // A channel's H*W values must be one contiguous run: with channels-last
      // strides they are C apart, which no kernel here reads without a copy.
      if (const char* name = OutOfLayout(a, PixelsContiguous)) {
        return InvalidArgument(
            name, ": AXES_HW needs NCHW tensors with contiguous H,W; channels-last is not supported");
      }
      return ChannelRows(a);
    default:
      break;
  }
  const char* not_nchw = OutOfLayout(a, PixelsContiguous);
  const bool stats_nchw = StatPixelsContiguous(a.mean) && StatPixelsContiguous(a.rstd);
  if (not_nchw == nullptr && stats_nchw) return ChannelNormCall(a, forced);
  const char* not_channels_last = OutOfLayout(a, ChannelsLast);
  if (not_channels_last == nullptr) return ChannelsLastRows(a);
  // Name the tensor that breaks the layout x has.
  const char* name = PixelsContiguous(*a.x) ? not_nchw
                     : ChannelsLast(*a.x)   ? not_channels_last
                                            : "x";
  if (name == nullptr) name = StatPixelsContiguous(a.mean) ? "rstd" : "mean";
  return InvalidArgument(
      name, ": AXES_C needs NCHW tensors with contiguous H,W (and [N,H,W] statistics with "
      "contiguous H,W) or channels-last strides for every activation");
}

}  // namespace

absl::Status LayerNorm2dForward(const halnorm_tensor* x, const halnorm_tensor* weight,
                                const halnorm_tensor* bias, halnorm_axes axes, float eps,
                                halnorm_tensor* y, halnorm_tensor* mean, halnorm_tensor* rstd,
                                const Variant* variant) {
  return Run({axes, eps, x, nullptr, weight, bias, y, "y", mean, rstd, nullptr, nullptr}, variant);
}

absl::Status LayerNorm2dBackward(const halnorm_tensor* dy, const halnorm_tensor* x,
                                 const halnorm_tensor* mean, const halnorm_tensor* rstd,
                                 const halnorm_tensor* weight, halnorm_axes axes,
                                 halnorm_tensor* dx, halnorm_tensor* dweight, halnorm_tensor* dbias,
                                 const Variant* variant) {
  // Run tells the passes apart by dy: a null dy must not run the forward
  // pass (which would overwrite mean and rstd). Found by fuzzing.
  if (dy == nullptr) return InvalidArgument("dy: tensor is null");
  // eps is unused by the backward pass (rstd carries it); 0 passes the check.
  return Run({axes, 0.f, x, dy, weight, nullptr, dx, "dx", mean, rstd, dweight, dbias}, variant);
}

}  // namespace halnorm::internal
