// A ConvNeXt block (Liu et al. 2022), NCHW throughout, forward and backward:
//
//   z   = dwconv7x7(x)                 depthwise, padding 3
//   y   = LayerNorm over C of z        halnorm LayerNorm2d, HALNORM_AXES_C
//   v   = pwconv2(GELU(pwconv1(y)))    1x1 convs C -> 4C -> C
//   out = x + gamma * v                layer scale, residual
//
// The norm is a halnorm call (channel_norm.h); the rest is plain C++ in
// double. Stochastic depth (drop path) is left out: the check needs a
// deterministic loss.
#ifndef HALNORM_EXAMPLES_CONVNEXT_BLOCK_CONVNEXT_BLOCK_H_
#define HALNORM_EXAMPLES_CONVNEXT_BLOCK_CONVNEXT_BLOCK_H_

#include <cstdint>
#include <vector>

#include "examples/common/tensor.h"
#include "examples/convnext_block/channel_norm.h"

namespace examples {

struct ConvNextConfig {
  int64_t batch = 2, channels = 16, height = 9, width = 10;  // H != W catches swaps
  int64_t kernel = 7;
  float eps = 1e-6f;  // ConvNeXt's LayerNorm eps
};

// Parameters, named as in timm's ConvNeXt block.
struct ConvNextParams {
  Tensor dw_weight, dw_bias;      // conv_dw: [C, 1, 7, 7], [C]
  Tensor norm_weight, norm_bias;  // [C]
  Tensor pw1_weight, pw1_bias;    // mlp.fc1 as a 1x1 conv: [4C, C, 1, 1], [4C]
  Tensor pw2_weight, pw2_bias;    // mlp.fc2: [C, 4C, 1, 1], [C]
  Tensor gamma;                   // layer scale [C]

  // All tensors in a fixed order (gradients pair up by position).
  NamedTensors Named();
};

ConvNextParams InitParams(const ConvNextConfig& config, Rng* rng);

// Activations the backward pass reads.
struct ConvNextActivations {
  ChannelNormSaved norm;  // its input is z
  Tensor y, fc1_out, act, fc2_out;
};

Tensor ConvNextForward(const ConvNextConfig& config, const ConvNextParams& params, const Tensor& x,
                       ConvNextActivations* saved);

// Deliberate backward bugs: the gradient check must catch each (tests).
enum class ConvNextFault {
  kNone,
  kNormBiasGrad,  // the norm's dbias not requested (left zero)
  kSkipGrad,      // dx without the residual connection's dout
};

// Given dL/dout, sets *dx and *grads (every tensor of ConvNextParams).
void ConvNextBackward(const ConvNextParams& params, const Tensor& x,
                      const ConvNextActivations& saved, const Tensor& dout, ConvNextFault fault,
                      Tensor* dx, ConvNextParams* grads);

}  // namespace examples

#endif  // HALNORM_EXAMPLES_CONVNEXT_BLOCK_CONVNEXT_BLOCK_H_
