#include "runtime/layer_norm2d.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "runtime/channel_norm_call.h"
#include "runtime/cuda_tensors.h"
#include "runtime/half_float.h"
#include "runtime/layer_norm2d_args.h"
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
  if (x.device == HALNORM_CUDA && a.axes != HALNORM_AXES_C) {
    return absl::UnimplementedError(
        "axes: on HALNORM_CUDA tensors LayerNorm2d runs AXES_C only (NCHW or channels-last); "
        "AXES_CHW and AXES_HW run on CPU tensors");
  }
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

halnorm_tensor DenseF32(float* data, const std::vector<int64_t>& shape) {
  return DenseTensor(data, HALNORM_F32, HALNORM_CPU, shape);
}

// Where channel c's i-th feature sits in a [C][HW] (NCHW) or [HW][C]
// (channels-last) per-sample row.
struct FeatureLayout {
  int64_t channels, per_channel;
  bool channels_last;
  int64_t operator()(int64_t c, int64_t i) const {
    return channels_last ? i * channels + c : c * per_channel + i;
  }
};

// weight[c] repeated over its features, as f32 (absent stays absent).
std::vector<float> Expand(const halnorm_tensor* t, const FeatureLayout& at) {
  if (t == nullptr) return {};
  const std::vector<float> values = ToF32(*t, at.channels);
  std::vector<float> out(at.channels * at.per_channel);
  for (int64_t c = 0; c < at.channels; c++) {
    for (int64_t i = 0; i < at.per_channel; i++) out[at(c, i)] = values[c];
  }
  return out;
}

// Sums each channel's features, in feature order, into `sum` (C zeros,
// allocated before any output was written) and stores them in `out`.
void StoreChannelSums(const std::vector<float>& values, const FeatureLayout& at,
                      std::vector<float>& sum, halnorm_tensor* out) {
  if (out == nullptr) return;
  for (int64_t c = 0; c < at.channels; c++) {
    for (int64_t i = 0; i < at.per_channel; i++) sum[c] += values[at(c, i)];
  }
  StoreFromF32(sum.data(), at.channels, *out);
}

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

// AXES_CHW: a sample is one row of C*H*W (NCHW, or H*W*C channels-last);
// the per-channel affine becomes a per-feature one by repeating each
// channel's value over its features.
absl::Status SampleRows(const Args2d& a) {
  const bool channels_last = a.C() > 1 && OutOfLayout(a, ChannelsLast) == nullptr;
  if (channels_last) {
    HALNORM_RETURN_IF_ERROR(CheckChannelsLastSample(a.x, "x"));
    HALNORM_RETURN_IF_ERROR(CheckChannelsLastSample(a.out, a.out_name));
    HALNORM_RETURN_IF_ERROR(CheckChannelsLastSample(a.dy, "dy"));
  }
  const FeatureLayout at{a.C(), a.HW(), channels_last};
  const std::vector<int64_t> row_shape =
      channels_last ? std::vector<int64_t>{a.x->shape[2], a.x->shape[3], a.C()}
                    : std::vector<int64_t>{a.C(), a.x->shape[2], a.x->shape[3]};
  std::vector<float> weight = Expand(a.weight, at), bias = Expand(a.bias, at);
  std::vector<float> dweight(a.dweight ? a.C() * a.HW() : 0), dbias(a.dbias ? a.C() * a.HW() : 0);
  std::vector<float> dweight_sum(a.dweight ? a.C() : 0), dbias_sum(a.dbias ? a.C() : 0);
  halnorm_tensor w = DenseF32(weight.data(), row_shape), b = DenseF32(bias.data(), row_shape);
  halnorm_tensor dw = DenseF32(dweight.data(), row_shape), db = DenseF32(dbias.data(), row_shape);
  auto view = [&](const halnorm_tensor& t) { return channels_last ? NhwcView(t) : t; };
  halnorm_tensor x = view(*a.x), out = view(*a.out);
  halnorm_tensor dy = a.dy ? view(*a.dy) : halnorm_tensor{};
  HALNORM_RETURN_IF_ERROR(RowNorm(a, x, a.dy ? &dy : nullptr, a.weight ? &w : nullptr,
                                  a.bias ? &b : nullptr, out, a.mean, a.rstd,
                                  a.dweight ? &dw : nullptr, a.dbias ? &db : nullptr, 3));
  StoreChannelSums(dweight, at, dweight_sum, a.dweight);
  StoreChannelSums(dbias, at, dbias_sum, a.dbias);
  return absl::OkStatus();
}

// AXES_HW: rows are (sample, channel) planes; one row-norm call per channel
// so its affine is a per-feature constant.
absl::Status ChannelRows(const Args2d& a) {
  const int64_t c_count = a.C(), hw = a.HW();
  const std::vector<int64_t> plane = {a.x->shape[2], a.x->shape[3]};
  const std::vector<float> weight = a.weight ? ToF32(*a.weight, c_count) : std::vector<float>{};
  const std::vector<float> bias = a.bias ? ToF32(*a.bias, c_count) : std::vector<float>{};
  std::vector<float> dweight(a.dweight ? c_count * hw : 0), dbias(a.dbias ? c_count * hw : 0);
  std::vector<float> dweight_sum(a.dweight ? c_count : 0), dbias_sum(a.dbias ? c_count : 0);
  std::vector<float> w_plane(hw), b_plane(hw);
  const FeatureLayout at{c_count, hw, false};
  // Statistics the forward's caller did not ask for: [N,C] scratch, here,
  // before any channel's y is written (each channel's call would otherwise
  // allocate its own after the channels before it were written).
  const std::vector<int64_t> stats_shape = {a.N(), c_count};
  std::vector<float> mean_scratch(a.mean ? 0 : a.N() * c_count);
  std::vector<float> rstd_scratch(a.rstd ? 0 : a.N() * c_count);
  const halnorm_tensor mean_all = a.mean ? *a.mean : DenseF32(mean_scratch.data(), stats_shape);
  const halnorm_tensor rstd_all = a.rstd ? *a.rstd : DenseF32(rstd_scratch.data(), stats_shape);
  // The channel c slice of an NCHW tensor as [N,H,W], of [N,C] stats as [N].
  auto slice = [](const halnorm_tensor& t, int64_t c) {
    halnorm_tensor s = t;
    s.data = static_cast<char*>(t.data) + c * t.strides[1] * DtypeBytes(t.dtype);
    s.rank = t.rank - 1;
    for (int d = 1; d < s.rank; d++) {
      s.shape[d] = t.shape[d + 1];
      s.strides[d] = t.strides[d + 1];
    }
    return s;
  };
  for (int64_t c = 0; c < c_count; c++) {
    std::fill(w_plane.begin(), w_plane.end(), a.weight ? weight[c] : 1.f);
    std::fill(b_plane.begin(), b_plane.end(), a.bias ? bias[c] : 0.f);
    halnorm_tensor w = DenseF32(w_plane.data(), plane), b = DenseF32(b_plane.data(), plane);
    halnorm_tensor dw = DenseF32(dweight.data() + (a.dweight ? c * hw : 0), plane);
    halnorm_tensor db = DenseF32(dbias.data() + (a.dbias ? c * hw : 0), plane);
    halnorm_tensor x = slice(*a.x, c), out = slice(*a.out, c);
    halnorm_tensor dy = a.dy ? slice(*a.dy, c) : halnorm_tensor{};
    halnorm_tensor mean = slice(mean_all, c), rstd = slice(rstd_all, c);
    HALNORM_RETURN_IF_ERROR(RowNorm(a, x, a.dy ? &dy : nullptr, a.weight ? &w : nullptr,
                                    a.bias ? &b : nullptr, out, &mean, &rstd,
                                    a.dweight ? &dw : nullptr, a.dbias ? &db : nullptr, 2));
  }
  StoreChannelSums(dweight, at, dweight_sum, a.dweight);
  StoreChannelSums(dbias, at, dbias_sum, a.dbias);
  return absl::OkStatus();
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
