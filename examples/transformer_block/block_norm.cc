#include "examples/transformer_block/block_norm.h"

#include <vector>

namespace examples {
namespace {

// mean/rstd are per row: x's shape without its normalized last dim.
std::vector<int64_t> RowShape(const std::vector<int64_t>& shape) {
  return std::vector<int64_t>(shape.begin(), shape.end() - 1);
}

}  // namespace

Tensor NormForward(NormKind kind, const Tensor& x, const Tensor* residual, const Tensor& weight,
                   const Tensor& bias, NormSaved* saved) {
  halnorm_norm_options opt;
  halnorm_norm_options_init(&opt);  // eps 1e-5, normalized_rank 1, residual_alpha 1
  const F32Buffer x32 = F32Buffer::From(x);
  F32Buffer residual32, y32(x.shape);
  halnorm_tensor residual_view, residual_out_view;
  if (residual != nullptr) {
    residual32 = F32Buffer::From(*residual);
    residual_view = residual32.View();
    saved->input = F32Buffer(x.shape);
    residual_out_view = saved->input.View();
    opt.residual = &residual_view;
    opt.residual_out = &residual_out_view;
  } else {
    saved->input = x32;
  }
  saved->weight = F32Buffer::From(weight);
  saved->rstd = F32Buffer(RowShape(x.shape));
  const halnorm_tensor xv = x32.View(), wv = saved->weight.View();
  halnorm_tensor yv = y32.View(), rstd = saved->rstd.View();
  if (kind == NormKind::kLayerNorm) {
    saved->mean = F32Buffer(RowShape(x.shape));
    halnorm_tensor mean = saved->mean.View();
    const F32Buffer b32 = bias.empty() ? F32Buffer() : F32Buffer::From(bias);
    const halnorm_tensor bv = bias.empty() ? halnorm_tensor{} : b32.View();
    CheckHalnorm(
        halnorm_layer_norm_forward(&xv, &wv, bias.empty() ? nullptr : &bv, &opt, &yv, &mean, &rstd),
        "halnorm_layer_norm_forward");
  } else {
    CheckHalnorm(halnorm_rms_norm_forward(&xv, &wv, &opt, &yv, &rstd), "halnorm_rms_norm_forward");
  }
  return y32.ToTensor();
}

NormGrads NormBackward(NormKind kind, const NormSaved& saved, const Tensor& dy,
                       const Tensor* stream_grad, bool with_dbias) {
  halnorm_norm_options opt;
  halnorm_norm_options_init(&opt);
  // In a backward call opt->residual is the gradient arriving at the
  // forward's residual_out (or, unfused, at x), added to dx.
  const F32Buffer stream32 = stream_grad ? F32Buffer::From(*stream_grad) : F32Buffer();
  const halnorm_tensor stream_view = stream_grad ? stream32.View() : halnorm_tensor{};
  if (stream_grad != nullptr) opt.residual = &stream_view;
  const F32Buffer dy32 = F32Buffer::From(dy);
  F32Buffer dx32(dy.shape), dw32(saved.weight.shape()), db32(saved.weight.shape());
  const halnorm_tensor dyv = dy32.View(), xv = saved.input.View(), wv = saved.weight.View();
  const halnorm_tensor rstd = saved.rstd.View();
  halnorm_tensor dxv = dx32.View(), dwv = dw32.View(), dbv = db32.View();
  if (kind == NormKind::kLayerNorm) {
    const halnorm_tensor mean = saved.mean.View();
    CheckHalnorm(halnorm_layer_norm_backward(&dyv, &xv, &mean, &rstd, &wv, &opt, &dxv, &dwv,
                                             with_dbias ? &dbv : nullptr),
                 "halnorm_layer_norm_backward");
  } else {
    CheckHalnorm(halnorm_rms_norm_backward(&dyv, &xv, &rstd, &wv, &opt, &dxv, &dwv),
                 "halnorm_rms_norm_backward");
  }
  NormGrads g;
  g.dinput = dx32.ToTensor();
  g.dweight = dw32.ToTensor();
  if (with_dbias) g.dbias = db32.ToTensor();
  return g;
}

}  // namespace examples
