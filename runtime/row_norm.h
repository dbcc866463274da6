// LayerNorm and RMSNorm, forward and backward: the C API's semantics with
// an optional forced variant (tests, benchmarks). Writes nothing unless
// every check passes.
#ifndef HALNORM_RUNTIME_ROW_NORM_H_
#define HALNORM_RUNTIME_ROW_NORM_H_

#include "absl/status/status.h"
#include "runtime/feature_layout.h"
#include "runtime/halnorm_c.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {

// `variant` nullptr: dispatch picks one.
absl::Status LayerNormForward(const halnorm_tensor* x, const halnorm_tensor* weight,
                              const halnorm_tensor* bias, const halnorm_norm_options* opt,
                              halnorm_tensor* y, halnorm_tensor* mean, halnorm_tensor* rstd,
                              const Variant* variant = nullptr);
// LayerNorm forward whose weight and bias differ between rows: f32 tensors
// shaped like x, contiguous along the normalized dims, with row strides 0
// where rows share values (LayerNorm2d over H,W: each row gets its
// channel's affine). For internal callers, which build them.
absl::Status LayerNormForwardRowParams(const halnorm_tensor* x, const halnorm_tensor* weight_rows,
                                       const halnorm_tensor* bias_rows,
                                       const halnorm_norm_options* opt, halnorm_tensor* y,
                                       halnorm_tensor* mean, halnorm_tensor* rstd);
absl::Status RmsNormForward(const halnorm_tensor* x, const halnorm_tensor* weight,
                            const halnorm_norm_options* opt, halnorm_tensor* y,
                            halnorm_tensor* rstd, const Variant* variant = nullptr);
absl::Status LayerNormBackward(const halnorm_tensor* dy, const halnorm_tensor* x,
                               const halnorm_tensor* mean, const halnorm_tensor* rstd,
                               const halnorm_tensor* weight, const halnorm_norm_options* opt,
                               halnorm_tensor* dx, halnorm_tensor* dweight, halnorm_tensor* dbias,
                               const Variant* variant = nullptr);
// LayerNorm backward for LayerNorm2d over CHW or HW on host tensors:
// `plane_rows` places each row in a [C][per_channel] f32 plane of layout
// `channels` (the weight's plane as LayerNormForwardRowParams takes it; read
// only when `has_weight`), and dweight and dbias are per channel: the sums
// over every row and feature at that channel's places.
absl::Status LayerNormBackwardChannelSums(const halnorm_tensor* dy, const halnorm_tensor* x,
                                          const halnorm_tensor* mean, const halnorm_tensor* rstd,
                                          const halnorm_tensor& plane_rows, bool has_weight,
                                          const FeatureLayout& channels,
                                          const halnorm_norm_options* opt, halnorm_tensor* dx,
                                          halnorm_tensor* dweight, halnorm_tensor* dbias);
absl::Status RmsNormBackward(const halnorm_tensor* dy, const halnorm_tensor* x,
                             const halnorm_tensor* rstd, const halnorm_tensor* weight,
                             const halnorm_norm_options* opt, halnorm_tensor* dx,
                             halnorm_tensor* dweight, const Variant* variant = nullptr);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_ROW_NORM_H_
