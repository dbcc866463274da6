// ConvNeXt's LayerNorm over channels on an NCHW tensor, as one halnorm call
// each way: halnorm_layer_norm2d_* with HALNORM_AXES_C, which normalizes
// across the strided C axis in place (no permute to NHWC and back).
#ifndef HALNORM_EXAMPLES_CONVNEXT_BLOCK_CHANNEL_NORM_H_
#define HALNORM_EXAMPLES_CONVNEXT_BLOCK_CHANNEL_NORM_H_

#include "examples/common/halnorm_f32.h"
#include "examples/common/tensor.h"

namespace examples {

// What the backward call needs, kept in f32 as halnorm produced it.
struct ChannelNormSaved {
  F32Buffer input;       // [N, C, H, W]
  F32Buffer mean, rstd;  // [N, H, W]: one per pixel
  F32Buffer weight;      // [C]
};

// y[n, :, h, w] = LayerNorm over C of x[n, :, h, w], times weight plus bias.
Tensor ChannelNormForward(const Tensor& x, const Tensor& weight, const Tensor& bias, float eps,
                          ChannelNormSaved* saved);

struct ChannelNormGrads {
  Tensor dx, dweight, dbias;  // dbias is zeros unless requested
};

ChannelNormGrads ChannelNormBackward(const ChannelNormSaved& saved, const Tensor& dy,
                                     bool with_dbias);

}  // namespace examples

#endif  // HALNORM_EXAMPLES_CONVNEXT_BLOCK_CHANNEL_NORM_H_
