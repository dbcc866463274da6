// LayerNorm: argument checks, row folding and the kernel call.
#ifndef HALNORM_RUNTIME_LAYER_NORM_H_
#define HALNORM_RUNTIME_LAYER_NORM_H_

#include "absl/status/status.h"
#include "runtime/halnorm_c.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {

// halnorm_layer_norm_forward, with `variant` forcing a kernel (nullptr:
// dispatch picks one). Writes nothing unless every check passes.
absl::Status LayerNormForward(const halnorm_tensor* x, const halnorm_tensor* weight,
                              const halnorm_tensor* bias, const halnorm_norm_options* opt,
                              halnorm_tensor* y, halnorm_tensor* mean, halnorm_tensor* rstd,
                              const Variant* variant = nullptr);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_LAYER_NORM_H_
