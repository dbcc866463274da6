#include "examples/transformer_block/transformer_block.h"

#include <cmath>

#include "examples/common/activations.h"
#include "examples/transformer_block/linear.h"

namespace examples {
namespace {

NormKind NormOf(const BlockConfig& c) {
  return c.arch == Arch::kGpt2 ? NormKind::kLayerNorm : NormKind::kRmsNorm;
}

// nn.Linear's init scale, U(-1/sqrt(in), 1/sqrt(in)).
Tensor LinearWeight(int64_t out, int64_t in, Rng* rng) {
  return RandomTensor({out, in}, 0.0, 1.0 / std::sqrt(static_cast<double>(in)), rng);
}

// f applied to each element of t.
template <typename F>
Tensor Map(const Tensor& t, F f) {
  Tensor y(t.shape);
  for (int64_t i = 0; i < t.numel(); i++) y[i] = f(t[i]);
  return y;
}

}  // namespace

BlockConfig SmallConfig(Arch arch) {
  BlockConfig c;
  c.arch = arch;
  c.attention = {/*batch=*/2, /*seq=*/8, /*heads=*/4, /*head_dim=*/8};
  const int64_t C = c.channels();
  c.mlp_hidden = arch == Arch::kGpt2 ? 4 * C : (8 * C / 3 + 15) / 16 * 16;
  return c;
}

NamedTensors BlockParams::Named() {
  NamedTensors all = {
      {"norm1.weight", &norm1_weight}, {"norm1.bias", &norm1_bias},   {"qkv.weight", &qkv_weight},
      {"qkv.bias", &qkv_bias},         {"proj.weight", &proj_weight}, {"proj.bias", &proj_bias},
      {"norm2.weight", &norm2_weight}, {"norm2.bias", &norm2_bias},   {"fc.weight", &fc_weight},
      {"fc.bias", &fc_bias},           {"up.weight", &up_weight},     {"down.weight", &down_weight},
      {"down.bias", &down_bias}};
  NamedTensors present;
  for (auto& entry : all) {
    if (!entry.second->empty()) present.push_back(entry);
  }
  return present;
}

BlockParams InitParams(const BlockConfig& config, Rng* rng) {
  const int64_t C = config.channels(), F = config.mlp_hidden;
  const bool gpt2 = config.arch == Arch::kGpt2;
  BlockParams p;
  // Norm weights near 1 and biases near 0 like trained ones, but not exactly
  // 1 and 0, so that a gradient that ignores them shows.
  p.norm1_weight = RandomTensor({C}, 1.0, 0.2, rng);
  p.norm2_weight = RandomTensor({C}, 1.0, 0.2, rng);
  p.qkv_weight = LinearWeight(3 * C, C, rng);
  p.proj_weight = LinearWeight(C, C, rng);
  p.fc_weight = LinearWeight(F, C, rng);
  p.down_weight = LinearWeight(C, F, rng);
  if (gpt2) {
    p.norm1_bias = RandomTensor({C}, 0.0, 0.2, rng);
    p.norm2_bias = RandomTensor({C}, 0.0, 0.2, rng);
    p.qkv_bias = RandomTensor({3 * C}, 0.0, 0.1, rng);
    p.proj_bias = RandomTensor({C}, 0.0, 0.1, rng);
    p.fc_bias = RandomTensor({F}, 0.0, 0.1, rng);
    p.down_bias = RandomTensor({C}, 0.0, 0.1, rng);
  } else {
    p.up_weight = LinearWeight(F, C, rng);
  }
  return p;
}

BlockParams ZeroGradients(const BlockParams& params) {
  BlockParams g = params;
  for (auto& [name, t] : g.Named()) *t = ZerosLike(*t);
  return g;
}

Tensor BlockForward(const BlockConfig& config, const BlockParams& p, const Tensor& x,
                    BlockActivations* s) {
  const NormKind norm = NormOf(config);
  s->h1 = NormForward(norm, x, /*residual=*/nullptr, p.norm1_weight, p.norm1_bias, &s->norm1);
  s->qkv = LinearForward(s->h1, p.qkv_weight, p.qkv_bias);
  s->attn_heads = CausalAttentionForward(s->qkv, config.attention, &s->probs);
  const Tensor a = LinearForward(s->attn_heads, p.proj_weight, p.proj_bias);
  // r = a + x and h2 = norm2(r) in one pass over memory: halnorm's fused
  // residual add (x = the branch output, residual = the stream).
  s->h2 = NormForward(norm, a, /*residual=*/&x, p.norm2_weight, p.norm2_bias, &s->norm2);
  s->fc_out = LinearForward(s->h2, p.fc_weight, p.fc_bias);
  if (config.arch == Arch::kGpt2) {
    s->mlp_act = Map(s->fc_out, GeluTanh);
  } else {
    s->up_out = LinearForward(s->h2, p.up_weight, Tensor());
    s->mlp_act = Map(s->fc_out, Silu);
    for (int64_t i = 0; i < s->mlp_act.numel(); i++) s->mlp_act[i] *= s->up_out[i];
  }
  Tensor out = LinearForward(s->mlp_act, p.down_weight, p.down_bias);
  AddInPlace(&out, s->norm2.input.ToTensor());  // + r, as halnorm stored it
  return out;
}

void BlockBackward(const BlockConfig& config, const BlockParams& p, const BlockActivations& s,
                   const Tensor& dout, Fault fault, Tensor* dx, BlockParams* g) {
  const NormKind norm = NormOf(config);
  const bool has_bias = config.arch == Arch::kGpt2;
  // MLP: out = r + down(act(h2)).
  const Tensor dact =
      LinearBackward(dout, s.mlp_act, p.down_weight, p.down_bias, &g->down_weight, &g->down_bias);
  Tensor dfc(s.fc_out.shape), dup;
  if (config.arch == Arch::kGpt2) {
    for (int64_t i = 0; i < dfc.numel(); i++) dfc[i] = dact[i] * GeluTanhGrad(s.fc_out[i]);
  } else {
    // act = silu(gate) * up.
    dup = Tensor(s.up_out.shape);
    for (int64_t i = 0; i < dfc.numel(); i++) {
      dfc[i] = dact[i] * s.up_out[i] * SiluGrad(s.fc_out[i]);
      dup[i] = dact[i] * Silu(s.fc_out[i]);
    }
  }
  Tensor dh2 = LinearBackward(dfc, s.h2, p.fc_weight, p.fc_bias, &g->fc_weight, &g->fc_bias);
  if (!dup.empty()) {
    AddInPlace(&dh2, LinearBackward(dup, s.h2, p.up_weight, Tensor(), &g->up_weight, nullptr));
  }

  // norm2: r feeds both h2 and out directly, so the gradient arriving at
  // residual_out (dout) goes in as opt->residual; dr is r's full gradient.
  NormGrads n2 =
      NormBackward(norm, s.norm2, dh2, fault == Fault::kResidualGrad ? nullptr : &dout, has_bias);
  g->norm2_weight = n2.dweight;
  if (has_bias) g->norm2_bias = fault == Fault::kNormBiasGrad ? ZerosLike(n2.dbias) : n2.dbias;
  const Tensor& dr = n2.dinput;  // r = a + x (residual_alpha 1): da = dr, dx gets dr

  // Attention branch.
  const Tensor dattn =
      LinearBackward(dr, s.attn_heads, p.proj_weight, p.proj_bias, &g->proj_weight, &g->proj_bias);
  const Tensor dqkv = CausalAttentionBackward(dattn, s.qkv, s.probs, config.attention);
  const Tensor dh1 =
      LinearBackward(dqkv, s.h1, p.qkv_weight, p.qkv_bias, &g->qkv_weight, &g->qkv_bias);

  // norm1: x feeds h1 and, through the skip connection, r. halnorm adds the
  // skip's gradient dr to dx (opt->residual), so no separate add is needed.
  NormGrads n1 =
      NormBackward(norm, s.norm1, dh1, fault == Fault::kSkipGrad ? nullptr : &dr, has_bias);
  g->norm1_weight = n1.dweight;
  if (has_bias) g->norm1_bias = n1.dbias;
  *dx = n1.dinput;
}

}  // namespace examples
