#include "examples/convnext_block/convnext_block.h"

#include <cmath>

#include "examples/common/activations.h"
#include "examples/convnext_block/conv.h"

namespace examples {

NamedTensors ConvNextParams::Named() {
  return {{"dw.weight", &dw_weight},   {"dw.bias", &dw_bias},       {"norm.weight", &norm_weight},
          {"norm.bias", &norm_bias},   {"pw1.weight", &pw1_weight}, {"pw1.bias", &pw1_bias},
          {"pw2.weight", &pw2_weight}, {"pw2.bias", &pw2_bias},     {"gamma", &gamma}};
}

ConvNextParams InitParams(const ConvNextConfig& c, Rng* rng) {
  const int64_t C = c.channels, K = c.kernel;
  // Conv init scale 1/sqrt(fan_in), as PyTorch's default.
  auto fan_in = [](int64_t n) { return 1.0 / std::sqrt(static_cast<double>(n)); };
  ConvNextParams p;
  p.dw_weight = RandomTensor({C, 1, K, K}, 0.0, fan_in(K * K), rng);
  p.dw_bias = RandomTensor({C}, 0.0, 0.1, rng);
  // Near 1 and 0, not exactly, so that a gradient that ignores them shows.
  p.norm_weight = RandomTensor({C}, 1.0, 0.2, rng);
  p.norm_bias = RandomTensor({C}, 0.0, 0.2, rng);
  p.pw1_weight = RandomTensor({4 * C, C, 1, 1}, 0.0, fan_in(C), rng);
  p.pw1_bias = RandomTensor({4 * C}, 0.0, 0.1, rng);
  p.pw2_weight = RandomTensor({C, 4 * C, 1, 1}, 0.0, fan_in(4 * C), rng);
  p.pw2_bias = RandomTensor({C}, 0.0, 0.1, rng);
  // ConvNeXt starts gamma at 1e-6; ~0.5 keeps the branch's gradients well
  // above the check's noise.
  p.gamma = RandomTensor({C}, 0.5, 0.2, rng);
  return p;
}

Tensor ConvNextForward(const ConvNextConfig& config, const ConvNextParams& p, const Tensor& x,
                       ConvNextActivations* s) {
  const Tensor z = DepthwiseConvForward(x, p.dw_weight, p.dw_bias);
  s->y = ChannelNormForward(z, p.norm_weight, p.norm_bias, config.eps, &s->norm);
  s->fc1_out = PointwiseConvForward(s->y, p.pw1_weight, p.pw1_bias);
  s->act = Tensor(s->fc1_out.shape);
  for (int64_t i = 0; i < s->act.numel(); i++) s->act[i] = GeluErf(s->fc1_out[i]);
  s->fc2_out = PointwiseConvForward(s->act, p.pw2_weight, p.pw2_bias);
  const int64_t C = x.shape[1], plane = x.shape[2] * x.shape[3];
  Tensor out(x.shape);
  for (int64_t i = 0; i < out.numel(); i++)
    out[i] = x[i] + p.gamma[(i / plane) % C] * s->fc2_out[i];
  return out;
}

void ConvNextBackward(const ConvNextParams& p, const Tensor& x, const ConvNextActivations& s,
                      const Tensor& dout, ConvNextFault fault, Tensor* dx, ConvNextParams* g) {
  const int64_t C = x.shape[1], plane = x.shape[2] * x.shape[3];
  // out = x + gamma * v.
  Tensor dv(dout.shape);
  g->gamma = Tensor({C});
  for (int64_t i = 0; i < dout.numel(); i++) {
    const int64_t c = (i / plane) % C;
    dv[i] = dout[i] * p.gamma[c];
    g->gamma[c] += dout[i] * s.fc2_out[i];
  }
  Tensor dact = PointwiseConvBackward(dv, s.act, p.pw2_weight, &g->pw2_weight, &g->pw2_bias);
  for (int64_t i = 0; i < dact.numel(); i++) dact[i] *= GeluErfGrad(s.fc1_out[i]);
  const Tensor dy = PointwiseConvBackward(dact, s.y, p.pw1_weight, &g->pw1_weight, &g->pw1_bias);

  ChannelNormGrads n = ChannelNormBackward(s.norm, dy, fault != ConvNextFault::kNormBiasGrad);
  g->norm_weight = n.dweight;
  g->norm_bias = n.dbias;

  *dx = DepthwiseConvBackward(n.dx, x, p.dw_weight, &g->dw_weight, &g->dw_bias);
  // The residual connection: x also reaches out directly.
  if (fault != ConvNextFault::kSkipGrad) AddInPlace(dx, dout);
}

}  // namespace examples
