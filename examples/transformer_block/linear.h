// nn.Linear over the last dim of a [..., in] tensor, forward and backward.
#ifndef HALNORM_EXAMPLES_TRANSFORMER_BLOCK_LINEAR_H_
#define HALNORM_EXAMPLES_TRANSFORMER_BLOCK_LINEAR_H_

#include "examples/common/tensor.h"

namespace examples {

// y = x w^T + b, with w [out, in] as in PyTorch; an empty b means no bias.
Tensor LinearForward(const Tensor& x, const Tensor& w, const Tensor& b);

// Returns dx = dy w; sets *dw = dy^T x and, when b has elements, *db = the
// sum of dy over the rows.
Tensor LinearBackward(const Tensor& dy, const Tensor& x, const Tensor& w, const Tensor& b,
                      Tensor* dw, Tensor* db);

}  // namespace examples

#endif  // HALNORM_EXAMPLES_TRANSFORMER_BLOCK_LINEAR_H_
