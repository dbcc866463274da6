#include "runtime/layer_norm.h"

#include <cmath>
#include <vector>

#include "runtime/dispatch.h"
#include "runtime/kernel_buffer.h"
#include "runtime/row_view.h"
#include "runtime/status.h"
#include "runtime/tensor_checks.h"

namespace halnorm::internal {
namespace {

// Signature of generators/row_norm_forward_generator.cc.
using RowNormForwardKernel = int (*)(halide_buffer_t* x, halide_buffer_t* weight,
                                     halide_buffer_t* bias, bool has_weight, bool has_bias,
                                     float eps, halide_buffer_t* y, halide_buffer_t* mean,
                                     halide_buffer_t* rstd);

constexpr halide_type_t kF32 = halide_type_t(halide_type_float, 32);

struct Arguments {
  const halnorm_tensor* x;
  const halnorm_tensor* weight;
  const halnorm_tensor* bias;
  halnorm_norm_options opt;
  halnorm_tensor* y;
  halnorm_tensor* mean;
  halnorm_tensor* rstd;
};

absl::Status CheckOptions(const halnorm_norm_options& opt, int x_rank) {
  if (!(opt.eps >= 0.f) || !std::isfinite(opt.eps)) {
    return InvalidArgument("opt->eps must be finite and >= 0, got ", opt.eps);
  }
  if (opt.normalized_rank < 1 || opt.normalized_rank > x_rank) {
    return InvalidArgument("opt->normalized_rank must be 1..", x_rank, " (x's rank), got ",
                           opt.normalized_rank);
  }
  if (opt.weight_offset != 0.f) {
    return absl::UnimplementedError("opt->weight_offset != 0 is not implemented yet");
  }
  if (opt.residual != nullptr || opt.residual_out != nullptr) {
    return absl::UnimplementedError(
        "opt->residual / opt->residual_out: the fused residual add is not implemented yet");
  }
  return absl::OkStatus();
}

// Shape of the per-row statistics: x's leading dims, or [1] when none.
std::vector<int64_t> StatsShape(const halnorm_tensor& x, int leading) {
  if (leading == 0) return {1};
  return std::vector<int64_t>(x.shape, x.shape + leading);
}

absl::Status CheckArguments(const Arguments& a) {
  HALNORM_RETURN_IF_ERROR(CheckTensor(a.x, "x"));
  HALNORM_RETURN_IF_ERROR(CheckTensor(a.y, "y"));
  HALNORM_RETURN_IF_ERROR(CheckOptions(a.opt, a.x->rank));
  const halnorm_tensor& x = *a.x;
  if (x.dtype != HALNORM_F32) {
    return absl::UnimplementedError(
        absl::StrCat("x: dtype ", DtypeName(x.dtype), " is not implemented yet (f32 only)"));
  }
  const int leading = x.rank - a.opt.normalized_rank;
  const auto x_shape = absl::MakeConstSpan(x.shape, x.rank);
  const auto normalized_shape = x_shape.subspan(leading);
  HALNORM_RETURN_IF_ERROR(CheckDtype(*a.y, "y", x.dtype, "must match x"));
  HALNORM_RETURN_IF_ERROR(CheckShape(*a.y, "y", x_shape));
  HALNORM_RETURN_IF_ERROR(CheckContiguousFrom(x, "x", leading));
  HALNORM_RETURN_IF_ERROR(CheckContiguousFrom(*a.y, "y", leading));
  for (auto [name, affine] : {NamedTensor{"weight", a.weight}, NamedTensor{"bias", a.bias}}) {
    if (affine == nullptr) continue;
    HALNORM_RETURN_IF_ERROR(CheckTensor(affine, name));
    HALNORM_RETURN_IF_ERROR(CheckDtype(*affine, name, HALNORM_F32, "f32 parameters"));
    HALNORM_RETURN_IF_ERROR(CheckShape(*affine, name, normalized_shape));
    HALNORM_RETURN_IF_ERROR(CheckContiguousFrom(*affine, name, 0));
  }
  const std::vector<int64_t> stats_shape = StatsShape(x, leading);
  for (auto [name, stats] : {NamedTensor{"mean", a.mean}, NamedTensor{"rstd", a.rstd}}) {
    if (stats == nullptr) continue;
    HALNORM_RETURN_IF_ERROR(CheckTensor(stats, name));
    HALNORM_RETURN_IF_ERROR(CheckDtype(*stats, name, HALNORM_F32, "statistics are f32"));
    HALNORM_RETURN_IF_ERROR(CheckShape(*stats, name, stats_shape));
  }
  int64_t hidden = 1;
  for (int64_t e : normalized_shape) hidden *= e;
  if (hidden == 0) return InvalidArgument("x: the normalized dims ", "are empty");
  const NamedTensor outputs[] = {{"y", a.y}, {"mean", a.mean}, {"rstd", a.rstd}};
  const NamedTensor inputs[] = {{"x", a.x}, {"weight", a.weight}, {"bias", a.bias}};
  return CheckOutputsDisjoint(outputs, inputs);
}

// Leading strides of a statistics tensor; a dense layout in x's stride order
// when the caller passed none (so it folds exactly like x).
std::vector<int64_t> StatsStrides(const halnorm_tensor* stats, const halnorm_tensor& x,
                                  int leading) {
  std::vector<int64_t> strides(leading);
  if (stats != nullptr) {
    for (int d = 0; d < leading; d++) strides[d] = stats->strides[d];
    return strides;
  }
  std::vector<int> order(leading);
  for (int d = 0; d < leading; d++) order[d] = d;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return x.strides[a] < x.strides[b]; });
  int64_t dense = 1;
  for (int d : order) {
    strides[d] = dense;
    dense *= x.shape[d];
  }
  return strides;
}

absl::Status Run(const Arguments& a, const Variant& variant, int64_t hidden) {
  const halnorm_tensor& x = *a.x;
  const int leading = x.rank - a.opt.normalized_rank;
  const std::vector<int64_t> extents(x.shape, x.shape + leading);
  std::vector<std::vector<int64_t>> strides = {
      {x.strides, x.strides + leading},
      {a.y->strides, a.y->strides + leading},
      StatsStrides(a.mean, x, leading),
      StatsStrides(a.rstd, x, leading),
  };
  std::vector<RowDim> dims = FoldRowDims(extents, strides);
  while (dims.size() < 3) dims.push_back(RowDim{1, {0, 0, 0, 0}});

  // Scratch for statistics the caller does not want: the kernel always
  // writes them (they cost M floats against M*N of traffic).
  int64_t rows = 1;
  for (int64_t e : extents) rows *= e;
  thread_local std::vector<float> scratch;
  scratch.resize(2 * rows);
  float* mean_data = a.mean ? static_cast<float*>(a.mean->data) : scratch.data();
  float* rstd_data = a.rstd ? static_cast<float*>(a.rstd->data) : scratch.data() + rows;

  // The placeholder for an absent weight/bias only satisfies the kernel's
  // bounds check; has_weight/has_bias = false means it is never read.
  const void* weight_data = a.weight ? a.weight->data : x.data;
  const void* bias_data = a.bias ? a.bias->data : x.data;
  KernelBuffer weight(weight_data, kF32, {{hidden, 1}});
  KernelBuffer bias(bias_data, kF32, {{hidden, 1}});
  auto kernel = reinterpret_cast<RowNormForwardKernel>(variant.kernel);

  // The kernel covers two folded row dims; a third (only from permuted or
  // padded views of rank-4 tensors) is looped here.
  const RowDim &r = dims[0], &b = dims[1], &outer = dims[2];
  for (int64_t o = 0; o < outer.extent; o++) {
    auto at = [&](auto* base, int t) { return base + o * outer.strides[t]; };
    KernelBuffer xb(at(static_cast<const float*>(x.data), 0), kF32,
                    {{hidden, 1}, {r.extent, r.strides[0]}, {b.extent, b.strides[0]}});
    KernelBuffer yb(at(static_cast<float*>(a.y->data), 1), kF32,
                    {{hidden, 1}, {r.extent, r.strides[1]}, {b.extent, b.strides[1]}});
    KernelBuffer mb(at(mean_data, 2), kF32,
                    {{1, 1}, {r.extent, r.strides[2]}, {b.extent, b.strides[2]}});
    KernelBuffer rb(at(rstd_data, 3), kF32,
                    {{1, 1}, {r.extent, r.strides[3]}, {b.extent, b.strides[3]}});
    int code = kernel(xb.get(), weight.get(), bias.get(), a.weight != nullptr, a.bias != nullptr,
                      a.opt.eps, yb.get(), mb.get(), rb.get());
    HALNORM_RETURN_IF_ERROR(KernelStatus(code, variant.name));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status LayerNormForward(const halnorm_tensor* x, const halnorm_tensor* weight,
                              const halnorm_tensor* bias, const halnorm_norm_options* opt,
                              halnorm_tensor* y, halnorm_tensor* mean, halnorm_tensor* rstd,
                              const Variant* variant) {
  InstallHalideErrorHandler();
  Arguments args{x, weight, bias, {}, y, mean, rstd};
  if (opt != nullptr) {
    args.opt = *opt;
  } else {
    halnorm_norm_options_init(&args.opt);
  }
  HALNORM_RETURN_IF_ERROR(CheckArguments(args));

  const int leading = x->rank - args.opt.normalized_rank;
  int64_t rows = 1, hidden = 1;
  for (int d = 0; d < x->rank; d++) (d < leading ? rows : hidden) *= x->shape[d];
  const KernelRequest request{Op::kLayerNorm, Direction::kForward, x->dtype, hidden, rows};
  if (variant != nullptr) {
    HALNORM_RETURN_IF_ERROR(CheckForcedVariant(*variant, request));
  } else {
    absl::StatusOr<const Variant*> picked = PickVariant(request);
    if (!picked.ok()) return picked.status();
    variant = *picked;
  }
  if (rows == 0) return absl::OkStatus();
  return Run(args, *variant, hidden);
}

}  // namespace halnorm::internal
