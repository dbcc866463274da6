// A pre-norm transformer block, GPT-2 or Llama style, forward and backward:
//
//   h1  = norm1(x)
//   a   = proj(causal_attention(qkv(h1)))
//   r   = x + a;  h2 = norm2(r)      one halnorm call: the fused residual add
//   out = r + mlp(h2)                GPT-2: GELU MLP; Llama: SwiGLU
//
// The norms are halnorm calls (block_norm.h); everything else is plain C++
// in double.
#ifndef HALNORM_EXAMPLES_TRANSFORMER_BLOCK_TRANSFORMER_BLOCK_H_
#define HALNORM_EXAMPLES_TRANSFORMER_BLOCK_TRANSFORMER_BLOCK_H_

#include <cstdint>
#include <vector>

#include "examples/common/tensor.h"
#include "examples/transformer_block/attention.h"
#include "examples/transformer_block/block_norm.h"

namespace examples {

enum class Arch {
  kGpt2,   // LayerNorm with bias, biased linears, GELU (tanh) MLP of 4C
  kLlama,  // RMSNorm, no biases, SwiGLU MLP
};

struct BlockConfig {
  Arch arch;
  AttentionShape attention;  // batch, seq, heads, head_dim
  int64_t mlp_hidden;
  int64_t channels() const { return attention.channels(); }
};

// B=2, T=8, C=32, 4 heads; MLP 4C (GPT-2) or 8C/3 rounded up to 16 (Llama).
BlockConfig SmallConfig(Arch arch);

// Parameters, named as in the Hugging Face models. Tensors an
// architecture lacks stay empty.
struct BlockParams {
  Tensor norm1_weight, norm1_bias;
  Tensor qkv_weight, qkv_bias;    // [3C, C]: q, k, v stacked
  Tensor proj_weight, proj_bias;  // [C, C]
  Tensor norm2_weight, norm2_bias;
  Tensor fc_weight, fc_bias;      // [hidden, C]: GPT-2 c_fc; Llama gate_proj
  Tensor up_weight;               // [hidden, C]: Llama up_proj
  Tensor down_weight, down_bias;  // [C, hidden]: GPT-2 c_proj; Llama down_proj

  // The non-empty tensors, in a fixed order (gradients pair up by position).
  NamedTensors Named();
};

BlockParams InitParams(const BlockConfig& config, Rng* rng);
BlockParams ZeroGradients(const BlockParams& params);  // same shapes, zeros

// Activations the backward pass reads.
struct BlockActivations {
  Tensor h1, qkv, probs, attn_heads;  // attn_heads: before the output projection
  NormSaved norm1, norm2;             // norm2.input is r = x + a
  Tensor h2, fc_out, up_out, mlp_act;
};

Tensor BlockForward(const BlockConfig& config, const BlockParams& params, const Tensor& x,
                    BlockActivations* saved);

// Deliberate backward bugs: the gradient check must catch each (tests).
enum class Fault {
  kNone,
  kNormBiasGrad,  // norm2's dbias left out (zero)
  kResidualGrad,  // norm2 backward without the gradient arriving at r from out
  kSkipGrad,      // norm1 backward without the gradient reaching x through r
};

// Given dL/dout, sets *dx and *grads (shaped like params).
void BlockBackward(const BlockConfig& config, const BlockParams& params,
                   const BlockActivations& saved, const Tensor& dout, Fault fault, Tensor* dx,
                   BlockParams* grads);

}  // namespace examples

#endif  // HALNORM_EXAMPLES_TRANSFORMER_BLOCK_TRANSFORMER_BLOCK_H_
