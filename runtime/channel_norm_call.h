// LayerNorm2d over C of NCHW tensors (contiguous H,W) on the channel-norm
// kernels: on the CPU, or on the GPU for HALNORM_CUDA tensors.
#ifndef HALNORM_RUNTIME_CHANNEL_NORM_CALL_H_
#define HALNORM_RUNTIME_CHANNEL_NORM_CALL_H_

#include "absl/status/status.h"
#include "runtime/layer_norm2d_args.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {

// The arguments are checked (layer_norm2d.cc); `forced` (may be null)
// replaces dispatch's choice. Backward when a.dy is set.
absl::Status ChannelNormCall(const Args2d& a, const Variant* forced);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_CHANNEL_NORM_CALL_H_
