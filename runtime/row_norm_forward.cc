// LayerNorm / RMSNorm forward: checks, then one kernel call per folded
// outer row index (or per piece of rows, for tensors past 2 GiB).
#include <memory>
#include <utility>
#include <vector>

#include "runtime/call_memo.h"
#include "runtime/cuda_dispatch.h"
#include "runtime/cuda_tensors.h"
#include "runtime/dispatch.h"
#include "runtime/dispatch_tuning.h"
#include "runtime/forward_tasks.h"
#include "runtime/kernel_call.h"
#include "runtime/kernel_param.h"
#include "runtime/row_batch.h"
#include "runtime/row_norm.h"
#include "runtime/row_norm_checks.h"
#include "runtime/status.h"
#include "runtime/streaming_stores.h"
#include "runtime/tensor_checks.h"
#include "runtime/thread_limit.h"

namespace halnorm::internal {
namespace {

struct ForwardArgs {
  Op op;
  const halnorm_tensor* x;
  const halnorm_tensor* weight;  // nullable
  const halnorm_tensor* bias;    // nullable; LayerNorm only
  halnorm_norm_options opt;
  halnorm_tensor* y;
  halnorm_tensor* mean;  // nullable; LayerNorm only
  halnorm_tensor* rstd;  // nullable
  // weight and bias are f32 tensors shaped like x (LayerNorm2d over H,W:
  // a channel's affine on each of its rows), not per-feature ones.
  bool params_per_row = false;
};

absl::Status CheckDisjoint(const ForwardArgs& a) {
  const NamedTensor outputs[] = {
      {"y", a.y}, {"opt->residual_out", a.opt.residual_out}, {"mean", a.mean}, {"rstd", a.rstd}};
  const NamedTensor inputs[] = {
      {"x", a.x}, {"opt->residual", a.opt.residual}, {"weight", a.weight}, {"bias", a.bias}};
  return CheckOutputsDisjoint(outputs, inputs);
}

absl::Status Check(const ForwardArgs& a, const RowGeometry& g) {
  const halnorm_tensor& x = *a.x;
  // x first: an output made like a bad x must not take the blame.
  HALNORM_RETURN_IF_ERROR(CheckContiguousFrom(x, "x", g.leading));
  HALNORM_RETURN_IF_ERROR(CheckLikeX(a.y, "y", x, g));
  if (a.opt.residual != nullptr) {
    HALNORM_RETURN_IF_ERROR(CheckLikeX(a.opt.residual, "opt->residual", x, g));
    if (a.opt.residual_out == nullptr) {
      return InvalidArgument("opt->residual_out: required with opt->residual (it receives h)");
    }
  }
  if (a.opt.residual_out != nullptr) {
    if (a.opt.residual == nullptr) {
      return InvalidArgument("opt->residual_out: given without opt->residual");
    }
    HALNORM_RETURN_IF_ERROR(CheckLikeX(a.opt.residual_out, "opt->residual_out", x, g));
  }
  if (a.params_per_row) {
    HALNORM_RETURN_IF_ERROR(CheckParamRows(a.weight, x, g));
    HALNORM_RETURN_IF_ERROR(CheckParamRows(a.bias, x, g));
  } else {
    if (a.weight) HALNORM_RETURN_IF_ERROR(CheckPerFeature(a.weight, "weight", x, g));
    if (a.bias) HALNORM_RETURN_IF_ERROR(CheckPerFeature(a.bias, "bias", x, g));
  }
  if (a.mean) HALNORM_RETURN_IF_ERROR(CheckPerRow(a.mean, "mean", x, g));
  if (a.rstd) HALNORM_RETURN_IF_ERROR(CheckPerRow(a.rstd, "rstd", x, g));
  if (g.hidden == 0) return InvalidArgument("x: the normalized dims are empty");
  return CheckDisjoint(a);
}

// A call whose geometry passed Check() before (call_memo.h): the checks
// that depend on the data pointers and the options' values, in Check()'s order.
absl::Status CheckDataAndScalars(const ForwardArgs& a) {
  HALNORM_RETURN_IF_ERROR(CheckTensorData(*a.x, "x"));
  HALNORM_RETURN_IF_ERROR(CheckOptionScalars(a.opt));
  const NamedTensor others[] = {{"y", a.y},           {"opt->residual", a.opt.residual},
                                {"opt->residual_out", a.opt.residual_out},
                                {"weight", a.weight}, {"bias", a.bias},
                                {"mean", a.mean},     {"rstd", a.rstd}};
  for (const auto& [name, t] : others) {
    if (t != nullptr) HALNORM_RETURN_IF_ERROR(CheckTensorData(*t, name));
  }
  return CheckDisjoint(a);
}

// What a CPU forward works out from its geometry (call_memo.h). The key
// holds every input of that work that may change while a process runs;
// the rest (CPU features, cache size, environment) is read once.
struct ForwardKey {
  int32_t op, normalized_rank, params_per_row;
  int32_t padding;  // zero: keys compare bytewise
  const DispatchTuning* tuning;  // each table ever loaded stays alive: a unique id
  TensorGeometry x, y, residual, residual_out, weight, bias, mean, rstd;
};

struct ForwardPlan {
  const Variant* variant;
  bool native_params;
  RowBatch::Layout layout;
};

thread_local CallMemo<ForwardKey, ForwardPlan> forward_plans;

ForwardKey KeyOf(const ForwardArgs& a) {
  return {static_cast<int32_t>(a.op),
          a.opt.normalized_rank,
          a.params_per_row,
          0,
          &CurrentDispatchTuning(),
          TensorGeometry::Of(a.x),
          TensorGeometry::Of(a.y),
          TensorGeometry::Of(a.opt.residual),
          TensorGeometry::Of(a.opt.residual_out),
          TensorGeometry::Of(a.weight),
          TensorGeometry::Of(a.bias),
          TensorGeometry::Of(a.mean),
          TensorGeometry::Of(a.rstd)};
}

// Whether weight and bias go to the kernel as the caller's 16-bit tensors
// (dispatch.h NativeParamsPay). A forced variant decides for itself, where
// the tensors allow it.
bool NativeParams(const ForwardArgs& a, const KernelRequest& request, const Variant* forced) {
  if ((a.weight == nullptr && a.bias == nullptr) || a.params_per_row) return false;
  for (const halnorm_tensor* t : {a.weight, a.bias}) {
    if (t != nullptr && t->dtype != a.x->dtype) return false;
  }
  return forced != nullptr ? forced->native_params && NativeParamsFit(request)
                           : NativeParamsPay(request);
}

absl::Status Forward(const ForwardArgs& a, const Variant* variant) {
  const bool memoizable = MemoApplies(a.x, variant);
  ForwardKey key;
  const ForwardPlan* remembered = nullptr;
  if (memoizable) {
    key = KeyOf(a);
    remembered = forward_plans.Find(key);
  }
  if (remembered != nullptr) {
    HALNORM_RETURN_IF_ERROR(CheckDataAndScalars(a));
  } else {
    HALNORM_RETURN_IF_ERROR(CheckInputAndOptions(a.x, "x", a.opt));
  }
  const RowGeometry g = GeometryOf(*a.x, a.opt);
  if (remembered == nullptr) HALNORM_RETURN_IF_ERROR(Check(a, g));
  const bool on_cuda = a.x->device == HALNORM_CUDA;
  const bool residual = a.opt.residual != nullptr;
  RowBatch batch(g.hidden, g.leading_extents);
  const int vector_alignment =  // only CUDA dispatch reads it
      on_cuda
          ? RowVectorAlignment(g.hidden, g.leading, {a.x, a.y, a.opt.residual, a.opt.residual_out})
          : 1;
  KernelRequest request{a.op,     Direction::kForward, a.x->dtype,  residual,
                        g.hidden, batch.rows(),        a.x->device, vector_alignment};
  request.native_params =
      remembered ? remembered->native_params : NativeParams(a, request, variant);
  absl::StatusOr<const Variant*> chosen =
      remembered ? remembered->variant : ChooseVariant(request, variant);
  if (!chosen.ok()) return chosen.status();
  if (batch.rows() == 0) return absl::OkStatus();

  // On CUDA the statistics the caller did not ask for go to device scratch.
  std::unique_ptr<CudaCall> cuda;
  halnorm_tensor* mean = a.mean;
  halnorm_tensor* rstd = a.rstd;
  halnorm_tensor mean_scratch, rstd_scratch;
  if (on_cuda) {
    absl::StatusOr<std::unique_ptr<CudaCall>> begun = CudaCall::Begin(*a.x, a.opt.cuda_stream);
    if (!begun.ok()) return begun.status();
    cuda = std::move(*begun);
    for (auto [wanted, scratch] : {std::pair{&mean, &mean_scratch}, {&rstd, &rstd_scratch}}) {
      if (*wanted != nullptr || (wanted == &mean && a.op != Op::kLayerNorm)) continue;
      absl::StatusOr<float*> data = cuda->Scratch(batch.rows());
      if (!data.ok()) return data.status();
      *scratch = DenseTensor(*data, HALNORM_F32, HALNORM_CUDA, PerRowShape(g));
      *wanted = scratch;
    }
    batch.PlaceOnCuda();
  }
  batch.AddRows(KernelArg::kX, *a.x, "x");
  batch.AddRows(KernelArg::kY, *a.y, "y");
  if (residual) {
    batch.AddRows(KernelArg::kResidual, *a.opt.residual, "opt->residual");
    batch.AddRows(KernelArg::kResidualOut, *a.opt.residual_out, "opt->residual_out");
  }
  if (a.op == Op::kLayerNorm) batch.AddPerRow(KernelArg::kMean, mean, "mean");
  batch.AddPerRow(KernelArg::kRstd, rstd, "rstd");

  // weight and bias are indexed by row too (the kernel's (n, r, b)): the
  // caller's per-row planes, or per-feature values that every row reads.
  // Those go to the kernel as f32 with the offset folded in, or as they are:
  // CUDA weights (16-bit ones converted on the device) and native params
  // are used in place, and the kernel adds the offset (weight_offset).
  ParamsF32 params{a.params_per_row ? nullptr : a.weight, a.params_per_row ? nullptr : a.bias};
  if (on_cuda) HALNORM_RETURN_IF_ERROR(cuda->ToF32(params));
  const bool kernel_adds_offset = on_cuda || request.native_params;
  const halnorm_dtype param_dtype = request.native_params ? a.x->dtype : HALNORM_F32;
  absl::StatusOr<const void*> placeholder = ParamPlaceholder(
      cuda.get(), *a.x, g.hidden,
      params.weight == nullptr || (a.op == Op::kLayerNorm && params.bias == nullptr));
  if (!placeholder.ok()) return placeholder.status();
  const KernelParam weight(params.weight, g.hidden, *placeholder,
                           kernel_adds_offset ? 0.f : a.opt.weight_offset, param_dtype);
  const KernelParam bias(params.bias, g.hidden, *placeholder, 0.f, param_dtype);
  for (auto [arg, name, given, param] : {std::tuple{KernelArg::kWeight, "weight", a.weight, &weight},
                                         std::tuple{KernelArg::kBias, "bias", a.bias, &bias}}) {
    if (arg == KernelArg::kBias && a.op != Op::kLayerNorm) continue;
    if (given == nullptr) {
      batch.AddUnread(arg, param->OverRowsOf(*a.x, g.leading), name);
    } else {
      batch.AddRows(arg, a.params_per_row ? *given : param->OverRowsOf(*a.x, g.leading), name);
    }
  }
  if (remembered != nullptr) {
    batch.Adopt(remembered->layout);
  } else {
    batch.Fold();
    // Tensors past the kernels' 32-bit offsets run in pieces of whole rows
    // (row_batch.h); rows are independent, so the pieces change no result.
    HALNORM_RETURN_IF_ERROR(batch.Split(PiecePartials{}));
    if (memoizable) forward_plans.Remember(key, {*chosen, request.native_params, batch.layout()});
  }

  const int64_t row_bytes = (residual ? 4 : 2) * g.hidden * DtypeBytes(a.x->dtype);
  KernelCall call(**chosen, UseStreamingStores(request, **chosen));
  call.Bind(KernelArg::kTaskRows, ForwardTaskRows(batch.folded_extent(0), batch.folded_extent(1),
                                                  row_bytes, ThreadsPerLoop()))
      .Bind(KernelArg::kHasWeight, a.weight != nullptr)
      .Bind(KernelArg::kHasBias, a.bias != nullptr)
      .Bind(KernelArg::kWeightOffset, kernel_adds_offset ? a.opt.weight_offset : 0.f)
      .Bind(KernelArg::kResidualAlpha, a.opt.residual_alpha)
      .Bind(KernelArg::kEps, a.opt.eps)
      .Touching(row_bytes * batch.rows())
      .OnCudaStream(a.opt.cuda_stream);
  for (int64_t i = 0; i < batch.piece_count(); i++) {
    batch.Bind(call, batch.Piece(i));
    HALNORM_RETURN_IF_ERROR(call.Run());
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status LayerNormForward(const halnorm_tensor* x, const halnorm_tensor* weight,
                              const halnorm_tensor* bias, const halnorm_norm_options* opt,
                              halnorm_tensor* y, halnorm_tensor* mean, halnorm_tensor* rstd,
                              const Variant* variant) {
  return Forward({Op::kLayerNorm, x, weight, bias, OptionsOrDefaults(opt), y, mean, rstd}, variant);
}

absl::Status LayerNormForwardRowParams(const halnorm_tensor* x, const halnorm_tensor* weight_rows,
                                       const halnorm_tensor* bias_rows,
                                       const halnorm_norm_options* opt, halnorm_tensor* y,
                                       halnorm_tensor* mean, halnorm_tensor* rstd) {
  ForwardArgs a{Op::kLayerNorm, x, weight_rows, bias_rows, OptionsOrDefaults(opt), y, mean, rstd};
  a.params_per_row = true;
  return Forward(a, nullptr);
}

absl::Status RmsNormForward(const halnorm_tensor* x, const halnorm_tensor* weight,
                            const halnorm_norm_options* opt, halnorm_tensor* y,
                            halnorm_tensor* rstd, const Variant* variant) {
  return Forward({Op::kRmsNorm, x, weight, nullptr, OptionsOrDefaults(opt), y, nullptr, rstd},
                 variant);
}

}  // namespace halnorm::internal
