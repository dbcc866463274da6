#include "examples/transformer_block/linear.h"

#include "examples/common/gemm.h"

namespace examples {

Tensor LinearForward(const Tensor& x, const Tensor& w, const Tensor& b) {
  const int64_t out = w.shape[0], in = w.shape[1], rows = x.numel() / in;
  std::vector<int64_t> shape = x.shape;
  shape.back() = out;
  Tensor y(shape);
  Gemm(Trans::kNo, Trans::kYes, rows, out, in, x.data.data(), in, w.data.data(), in,
       /*accumulate=*/false, y.data.data(), out);
  if (!b.empty()) {
    for (int64_t r = 0; r < rows; r++) {
      for (int64_t o = 0; o < out; o++) y[r * out + o] += b[o];
    }
  }
  return y;
}

Tensor LinearBackward(const Tensor& dy, const Tensor& x, const Tensor& w, const Tensor& b,
                      Tensor* dw, Tensor* db) {
  const int64_t out = w.shape[0], in = w.shape[1], rows = x.numel() / in;
  Tensor dx(x.shape);
  Gemm(Trans::kNo, Trans::kNo, rows, in, out, dy.data.data(), out, w.data.data(), in,
       /*accumulate=*/false, dx.data.data(), in);
  *dw = Tensor(w.shape);
  Gemm(Trans::kYes, Trans::kNo, out, in, rows, dy.data.data(), out, x.data.data(), in,
       /*accumulate=*/false, dw->data.data(), in);
  if (!b.empty()) {
    *db = Tensor(b.shape);
    for (int64_t r = 0; r < rows; r++) {
      for (int64_t o = 0; o < out; o++) (*db)[o] += dy[r * out + o];
    }
  }
  return dx;
}

}  // namespace examples
