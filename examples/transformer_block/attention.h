// Causal multi-head self-attention (the part between the qkv and output
// projections), forward and backward, in plain loops.
#ifndef HALNORM_EXAMPLES_TRANSFORMER_BLOCK_ATTENTION_H_
#define HALNORM_EXAMPLES_TRANSFORMER_BLOCK_ATTENTION_H_

#include <cstdint>

#include "examples/common/tensor.h"

namespace examples {

struct AttentionShape {
  int64_t batch, seq, heads, head_dim;
  int64_t channels() const { return heads * head_dim; }
};

// qkv: [B, T, 3C], the q, k and v blocks of C along the last dim, head h at
// columns h*head_dim within each. Returns [B, T, C] (heads concatenated).
// *probs receives the softmax weights [B, heads, T, T] (zero above the
// diagonal), which the backward pass needs.
Tensor CausalAttentionForward(const Tensor& qkv, const AttentionShape& s, Tensor* probs);

// Returns d qkv, given the gradient at the output and the forward's probs.
Tensor CausalAttentionBackward(const Tensor& dy, const Tensor& qkv, const Tensor& probs,
                               const AttentionShape& s);

}  // namespace examples

#endif  // HALNORM_EXAMPLES_TRANSFORMER_BLOCK_ATTENTION_H_
