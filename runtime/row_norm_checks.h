// Argument checks shared by the row-norm entry points. Each message starts
// with the argument's name.
#ifndef HALNORM_RUNTIME_ROW_NORM_CHECKS_H_
#define HALNORM_RUNTIME_ROW_NORM_CHECKS_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "runtime/halnorm_c.h"

namespace halnorm::internal {

// How x splits into rows: `leading` dims of rows, the rest normalized.
struct RowGeometry {
  int leading;
  int64_t hidden;
  absl::Span<const int64_t> leading_extents;  // into x's shape
};

// The shape of mean and rstd: the leading dims, or {1} when there are none.
std::vector<int64_t> PerRowShape(const RowGeometry& g);

// The options, or their defaults when `opt` is null.
halnorm_norm_options OptionsOrDefaults(const halnorm_norm_options* opt);

// x is a valid tensor and `opt` fits it (eps, normalized_rank, scalars).
absl::Status CheckInputAndOptions(const halnorm_tensor* x, const char* name,
                                  const halnorm_norm_options& opt);
// The options' values (eps, weight_offset, residual_alpha); part of
// CheckInputAndOptions.
absl::Status CheckOptionScalars(const halnorm_norm_options& opt);
RowGeometry GeometryOf(const halnorm_tensor& x, const halnorm_norm_options& opt);

// Same dtype and shape as x, normalized dims contiguous (y, dy, dx, residual).
absl::Status CheckLikeX(const halnorm_tensor* t, const char* name, const halnorm_tensor& x,
                        const RowGeometry& g);
// A parameter (weight, bias, dweight, dbias): f32 or x's dtype, exactly
// `shape`, contiguous.
absl::Status CheckParameter(const halnorm_tensor* t, const char* name, const halnorm_tensor& x,
                            absl::Span<const int64_t> shape);
// A row norm's parameter: shaped like the normalized dims.
absl::Status CheckPerFeature(const halnorm_tensor* t, const char* name, const halnorm_tensor& x,
                             const RowGeometry& g);
// mean/rstd: f32, x's leading shape ([1] when there is none).
absl::Status CheckPerRow(const halnorm_tensor* t, const char* name, const halnorm_tensor& x,
                         const RowGeometry& g);
// A parameter with a row per row of x, as LayerNorm2d builds it (f32, x's
// shape, rows of `hidden` contiguous values, row strides free). Not a
// caller's tensor, so an internal error, with no message for users.
absl::Status CheckParamRows(const halnorm_tensor* t, const halnorm_tensor& x, const RowGeometry& g);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_ROW_NORM_CHECKS_H_
