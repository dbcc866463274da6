// The tensors of one LayerNorm2d call, shared by its routes
// (runtime/layer_norm2d.cc) and the channel-norm kernels' call
// (runtime/channel_norm_call.cc).
#ifndef HALNORM_RUNTIME_LAYER_NORM2D_ARGS_H_
#define HALNORM_RUNTIME_LAYER_NORM2D_ARGS_H_

#include <cstdint>

#include "runtime/halnorm_c.h"

namespace halnorm::internal {

// Every tensor of one call; dy/dx only in backward, y only in forward.
struct Args2d {
  halnorm_axes axes;
  float eps;
  const halnorm_tensor* x;
  const halnorm_tensor* dy;
  const halnorm_tensor* weight;
  const halnorm_tensor* bias;
  halnorm_tensor* out;  // y (forward) or dx (backward)
  const char* out_name;
  const halnorm_tensor* mean;
  const halnorm_tensor* rstd;
  halnorm_tensor* dweight;
  halnorm_tensor* dbias;

  int64_t N() const { return x->shape[0]; }
  int64_t C() const { return x->shape[1]; }
  int64_t HW() const { return x->shape[2] * x->shape[3]; }
};

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_LAYER_NORM2D_ARGS_H_
