#include "runtime/row_norm_checks.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "runtime/status.h"
#include "runtime/tensor_checks.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {

halnorm_norm_options OptionsOrDefaults(const halnorm_norm_options* opt) {
  halnorm_norm_options o;
  halnorm_norm_options_init(&o);
  return opt != nullptr ? *opt : o;
}

absl::Status CheckInputAndOptions(const halnorm_tensor* x, const char* name,
                                  const halnorm_norm_options& opt) {
  HALNORM_RETURN_IF_ERROR(CheckTensor(x, name));
  if (x->device == HALNORM_CUDA && !BuildHasDevice(Device::kCuda)) {
    return absl::FailedPreconditionError(
        absl::StrCat(name, ": device HALNORM_CUDA is not available in this build (CPU only)"));
  }
  if (opt.normalized_rank < 1 || opt.normalized_rank > x->rank) {
    return InvalidArgument("opt->normalized_rank must be 1..", x->rank, " (", name,
                           "'s rank), got ", opt.normalized_rank);
  }
  return CheckOptionScalars(opt);
}

absl::Status CheckOptionScalars(const halnorm_norm_options& opt) {
  if (!(opt.eps >= 0.f) || !std::isfinite(opt.eps)) {
    return InvalidArgument("opt->eps must be finite and >= 0, got ", opt.eps);
  }
  if (!std::isfinite(opt.weight_offset)) {
    return InvalidArgument("opt->weight_offset must be finite, got ", opt.weight_offset);
  }
  if (!std::isfinite(opt.residual_alpha)) {
    return InvalidArgument("opt->residual_alpha must be finite, got ", opt.residual_alpha);
  }
  return absl::OkStatus();
}

RowGeometry GeometryOf(const halnorm_tensor& x, const halnorm_norm_options& opt) {
  const int leading = x.rank - opt.normalized_rank;
  RowGeometry g{leading, 1, absl::MakeConstSpan(x.shape, leading)};
  for (int d = leading; d < x.rank; d++) g.hidden *= x.shape[d];
  return g;
}

absl::Status CheckLikeX(const halnorm_tensor* t, const char* name, const halnorm_tensor& x,
                        const RowGeometry& g) {
  HALNORM_RETURN_IF_ERROR(CheckTensor(t, name));
  HALNORM_RETURN_IF_ERROR(CheckSameDevice(*t, name, x));
  HALNORM_RETURN_IF_ERROR(CheckDtype(*t, name, x.dtype, "must match x"));
  HALNORM_RETURN_IF_ERROR(CheckShape(*t, name, absl::MakeConstSpan(x.shape, x.rank)));
  return CheckContiguousFrom(*t, name, g.leading);
}

absl::Status CheckParameter(const halnorm_tensor* t, const char* name, const halnorm_tensor& x,
                            absl::Span<const int64_t> shape) {
  HALNORM_RETURN_IF_ERROR(CheckTensor(t, name));
  HALNORM_RETURN_IF_ERROR(CheckSameDevice(*t, name, x));
  if (t->dtype != HALNORM_F32 && t->dtype != x.dtype) {
    return InvalidArgument(name, ": dtype ", DtypeName(t->dtype), " must be f32 or x's dtype (",
                           DtypeName(x.dtype), ")");
  }
  HALNORM_RETURN_IF_ERROR(CheckShape(*t, name, shape));
  return CheckContiguousFrom(*t, name, 0);
}

absl::Status CheckPerFeature(const halnorm_tensor* t, const char* name, const halnorm_tensor& x,
                             const RowGeometry& g) {
  return CheckParameter(t, name, x, absl::MakeConstSpan(x.shape + g.leading, x.rank - g.leading));
}

absl::Status CheckPerRow(const halnorm_tensor* t, const char* name, const halnorm_tensor& x,
                         const RowGeometry& g) {
  HALNORM_RETURN_IF_ERROR(CheckTensor(t, name));
  HALNORM_RETURN_IF_ERROR(CheckSameDevice(*t, name, x));
  HALNORM_RETURN_IF_ERROR(CheckDtype(*t, name, HALNORM_F32, "statistics are f32"));
  // Not PerRowShape(g): a check that allocates could fail (out of memory)
  // in LayerNorm2d's per-channel calls after earlier channels were written.
  static constexpr int64_t kOneRow[] = {1};
  return CheckShape(*t, name, g.leading == 0 ? absl::MakeConstSpan(kOneRow) : g.leading_extents);
}

std::vector<int64_t> PerRowShape(const RowGeometry& g) {
  if (g.leading == 0) return {1};
  return {g.leading_extents.begin(), g.leading_extents.end()};
}

absl::Status CheckParamRows(const halnorm_tensor* t, const halnorm_tensor& x,
                            const RowGeometry& g) {
  if (t == nullptr) return absl::OkStatus();
  bool fits = t->dtype == HALNORM_F32 && t->device == x.device && t->rank == x.rank;
  int64_t dense = 1;
  for (int d = x.rank - 1; fits && d >= g.leading; d--) {
    fits = t->shape[d] == x.shape[d] && t->strides[d] == dense;
    dense *= x.shape[d];
  }
  for (int d = 0; fits && d < g.leading; d++) fits = t->shape[d] == x.shape[d];
  return fits ? absl::OkStatus() : absl::InternalError("per-row parameters do not fit x");
}

}  // namespace halnorm::internal
