// LayerNorm2d over NCHW tensors, all three axes. AXES_C on NCHW with
// contiguous H,W runs the channel-norm kernels (a reduction across the
// strided channel axis, vectorized across pixels; runtime/channel_norm_call.h);
// channels-last AXES_C, AXES_CHW and AXES_HW are row norms and run on the
// LayerNorm kernels, on the CPU or (HALNORM_CUDA tensors) the GPU.
#ifndef HALNORM_RUNTIME_LAYER_NORM2D_H_
#define HALNORM_RUNTIME_LAYER_NORM2D_H_

#include "absl/status/status.h"
#include "runtime/halnorm_c.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {

// `variant` forces a channel-norm kernel (op kLayerNorm2d) when the call runs
// on those; other routes dispatch their LayerNorm kernel.
absl::Status LayerNorm2dForward(const halnorm_tensor* x, const halnorm_tensor* weight,
                                const halnorm_tensor* bias, halnorm_axes axes, float eps,
                                halnorm_tensor* y, halnorm_tensor* mean, halnorm_tensor* rstd,
                                const Variant* variant = nullptr);
absl::Status LayerNorm2dBackward(const halnorm_tensor* dy, const halnorm_tensor* x,
                                 const halnorm_tensor* mean, const halnorm_tensor* rstd,
                                 const halnorm_tensor* weight, halnorm_axes axes,
                                 halnorm_tensor* dx, halnorm_tensor* dweight, halnorm_tensor* dbias,
                                 const Variant* variant = nullptr);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_LAYER_NORM2D_H_
