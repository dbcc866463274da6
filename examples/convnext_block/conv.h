// The ConvNeXt block's convolutions on NCHW tensors, forward and backward, in
// plain C++ (double): a depthwise KxK convolution with "same" zero padding,
// and a pointwise (1x1) convolution, which is a matrix product per sample.
#ifndef HALNORM_EXAMPLES_CONVNEXT_BLOCK_CONV_H_
#define HALNORM_EXAMPLES_CONVNEXT_BLOCK_CONV_H_

#include "examples/common/tensor.h"

namespace examples {

// x [N, C, H, W], w [C, 1, K, K] (K odd, padding K/2), b [C] -> [N, C, H, W].
Tensor DepthwiseConvForward(const Tensor& x, const Tensor& w, const Tensor& b);
// Returns dx; sets *dw and *db.
Tensor DepthwiseConvBackward(const Tensor& dy, const Tensor& x, const Tensor& w, Tensor* dw,
                             Tensor* db);

// x [N, Cin, H, W], w [Cout, Cin, 1, 1], b [Cout] -> [N, Cout, H, W].
Tensor PointwiseConvForward(const Tensor& x, const Tensor& w, const Tensor& b);
// Returns dx; sets *dw and *db.
Tensor PointwiseConvBackward(const Tensor& dy, const Tensor& x, const Tensor& w, Tensor* dw,
                             Tensor* db);

}  // namespace examples

#endif  // HALNORM_EXAMPLES_CONVNEXT_BLOCK_CONV_H_
