#include "examples/convnext_block/channel_norm.h"

namespace examples {

Tensor ChannelNormForward(const Tensor& x, const Tensor& weight, const Tensor& bias, float eps,
                          ChannelNormSaved* saved) {
  saved->input = F32Buffer::From(x);
  saved->weight = F32Buffer::From(weight);
  saved->mean = F32Buffer({x.shape[0], x.shape[2], x.shape[3]});
  saved->rstd = F32Buffer({x.shape[0], x.shape[2], x.shape[3]});
  const F32Buffer b32 = F32Buffer::From(bias);
  F32Buffer y32(x.shape);
  const halnorm_tensor xv = saved->input.View(), wv = saved->weight.View(), bv = b32.View();
  halnorm_tensor yv = y32.View(), mean = saved->mean.View(), rstd = saved->rstd.View();
  CheckHalnorm(halnorm_layer_norm2d_forward(&xv, &wv, &bv, HALNORM_AXES_C, eps, &yv, &mean, &rstd),
               "halnorm_layer_norm2d_forward");
  return y32.ToTensor();
}

ChannelNormGrads ChannelNormBackward(const ChannelNormSaved& saved, const Tensor& dy,
                                     bool with_dbias) {
  const F32Buffer dy32 = F32Buffer::From(dy);
  F32Buffer dx32(dy.shape), dw32(saved.weight.shape()), db32(saved.weight.shape());
  const halnorm_tensor dyv = dy32.View(), xv = saved.input.View(), wv = saved.weight.View();
  const halnorm_tensor mean = saved.mean.View(), rstd = saved.rstd.View();
  halnorm_tensor dxv = dx32.View(), dwv = dw32.View(), dbv = db32.View();
  CheckHalnorm(halnorm_layer_norm2d_backward(&dyv, &xv, &mean, &rstd, &wv, HALNORM_AXES_C, &dxv,
                                             &dwv, with_dbias ? &dbv : nullptr),
               "halnorm_layer_norm2d_backward");
  return {dx32.ToTensor(), dw32.ToTensor(), db32.ToTensor()};
}

}  // namespace examples
