// The transformer block's norms, each one halnorm call: LayerNorm (GPT-2)
// or RMSNorm (Llama) over the channels of [B, T, C], optionally fused with
// the residual add that precedes it.
#ifndef HALNORM_EXAMPLES_TRANSFORMER_BLOCK_BLOCK_NORM_H_
#define HALNORM_EXAMPLES_TRANSFORMER_BLOCK_BLOCK_NORM_H_

#include "examples/common/halnorm_f32.h"
#include "examples/common/tensor.h"

namespace examples {

enum class NormKind { kLayerNorm, kRmsNorm };

// What the backward call needs, kept in f32 as halnorm produced it.
struct NormSaved {
  F32Buffer input;       // what was normalized: x, or h = x + residual when fused
  F32Buffer mean, rstd;  // [B, T]; mean stays empty for RMSNorm
  F32Buffer weight;
};

// y = norm(x) * weight (+ bias). With a residual, halnorm adds it first
// (h = x + residual, written to saved->input via opt->residual_out) and
// normalizes h; the caller reads h back as the residual stream. An empty
// bias means none (RMSNorm takes none).
Tensor NormForward(NormKind kind, const Tensor& x, const Tensor* residual, const Tensor& weight,
                   const Tensor& bias, NormSaved* saved);

struct NormGrads {
  Tensor dinput;  // gradient w.r.t. saved.input (h when fused)
  Tensor dweight, dbias;
};

// dy: the gradient at y. stream_grad (nullable): a gradient reaching the
// norm's input by another path (the residual stream); halnorm adds it to
// dinput (opt->residual of the backward call). Computes dbias when
// `with_dbias` (LayerNorm only).
NormGrads NormBackward(NormKind kind, const NormSaved& saved, const Tensor& dy,
                       const Tensor* stream_grad, bool with_dbias);

}  // namespace examples

#endif  // HALNORM_EXAMPLES_TRANSFORMER_BLOCK_BLOCK_NORM_H_
