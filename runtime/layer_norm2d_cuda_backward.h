// LayerNorm2d over CHW or HW, backward, for HALNORM_CUDA tensors.
#ifndef HALNORM_RUNTIME_LAYER_NORM2D_CUDA_BACKWARD_H_
#define HALNORM_RUNTIME_LAYER_NORM2D_CUDA_BACKWARD_H_

#include "absl/status/status.h"
#include "runtime/channel_planes.h"
#include "runtime/feature_layout.h"
#include "runtime/halnorm_c.h"
#include "runtime/layer_norm2d_args.h"

namespace halnorm::internal {

// The row-norm backward over `x`, `dy`, `dx` (views whose rows are samples,
// over CHW, or channel planes, over HW) with per-feature weight, dweight and
// dbias planes of layout `at`, whose per-channel sums `planes` makes on the
// device. Over HW each call's sums must be one channel's, so it makes a call
// per channel. Host tensors instead take one call that sums per channel
// itself (LayerNormBackwardChannelSums); the CUDA backward has no such sums.
absl::Status CudaPlanesBackward(const Args2d& a, const halnorm_tensor& x, const halnorm_tensor& dy,
                                halnorm_tensor& dx, const FeatureLayout& at, ChannelPlanes& planes);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_LAYER_NORM2D_CUDA_BACKWARD_H_
