#include "examples/convnext_block/conv.h"

#include "examples/common/gemm.h"

namespace examples {
namespace {

// Visits every (output pixel, kernel tap) pair whose input pixel lies inside
// the image; padding contributes zeros, so the others are skipped.
template <typename F>
void ForEachDepthwiseTap(const Tensor& x, const Tensor& w, F f) {
  const int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  const int64_t K = w.shape[2], pad = K / 2;
  for (int64_t n = 0; n < N; n++) {
    for (int64_t c = 0; c < C; c++) {
      const int64_t plane = (n * C + c) * H * W;
      for (int64_t i = 0; i < H; i++) {
        for (int64_t j = 0; j < W; j++) {
          for (int64_t ki = 0; ki < K; ki++) {
            const int64_t si = i + ki - pad;
            if (si < 0 || si >= H) continue;
            for (int64_t kj = 0; kj < K; kj++) {
              const int64_t sj = j + kj - pad;
              if (sj < 0 || sj >= W) continue;
              f(/*out=*/plane + i * W + j, /*in=*/plane + si * W + sj,
                /*tap=*/(c * K + ki) * K + kj);
            }
          }
        }
      }
    }
  }
}

}  // namespace

Tensor DepthwiseConvForward(const Tensor& x, const Tensor& w, const Tensor& b) {
  Tensor y(x.shape);
  const int64_t C = x.shape[1], plane = x.shape[2] * x.shape[3];
  for (int64_t i = 0; i < y.numel(); i++) y[i] = b[(i / plane) % C];
  ForEachDepthwiseTap(x, w,
                      [&](int64_t out, int64_t in, int64_t tap) { y[out] += w[tap] * x[in]; });
  return y;
}

Tensor DepthwiseConvBackward(const Tensor& dy, const Tensor& x, const Tensor& w, Tensor* dw,
                             Tensor* db) {
  Tensor dx(x.shape);
  *dw = Tensor(w.shape);
  *db = Tensor({x.shape[1]});
  const int64_t C = x.shape[1], plane = x.shape[2] * x.shape[3];
  for (int64_t i = 0; i < dy.numel(); i++) (*db)[(i / plane) % C] += dy[i];
  ForEachDepthwiseTap(x, w, [&](int64_t out, int64_t in, int64_t tap) {
    dx[in] += w[tap] * dy[out];
    (*dw)[tap] += x[in] * dy[out];
  });
  return dx;
}

Tensor PointwiseConvForward(const Tensor& x, const Tensor& w, const Tensor& b) {
  const int64_t N = x.shape[0], cin = x.shape[1], cout = w.shape[0];
  const int64_t P = x.shape[2] * x.shape[3];
  Tensor y({N, cout, x.shape[2], x.shape[3]});
  for (int64_t n = 0; n < N; n++) {
    // y_n [cout, P] = w [cout, cin] * x_n [cin, P]
    double* yn = &y[n * cout * P];
    Gemm(Trans::kNo, Trans::kNo, cout, P, cin, w.data.data(), cin, &x[n * cin * P], P,
         /*accumulate=*/false, yn, P);
    for (int64_t o = 0; o < cout; o++) {
      for (int64_t p = 0; p < P; p++) yn[o * P + p] += b[o];
    }
  }
  return y;
}

Tensor PointwiseConvBackward(const Tensor& dy, const Tensor& x, const Tensor& w, Tensor* dw,
                             Tensor* db) {
  const int64_t N = x.shape[0], cin = x.shape[1], cout = w.shape[0];
  const int64_t P = x.shape[2] * x.shape[3];
  Tensor dx(x.shape);
  *dw = Tensor(w.shape);
  *db = Tensor({cout});
  for (int64_t n = 0; n < N; n++) {
    const double* dyn = &dy[n * cout * P];
    // dx_n = w^T dy_n;  dw += dy_n x_n^T;  db += dy_n summed over pixels.
    Gemm(Trans::kYes, Trans::kNo, cin, P, cout, w.data.data(), cin, dyn, P,
         /*accumulate=*/false, &dx[n * cin * P], P);
    Gemm(Trans::kNo, Trans::kYes, cout, cin, P, dyn, P, &x[n * cin * P], P,
         /*accumulate=*/true, dw->data.data(), cin);
    for (int64_t o = 0; o < cout; o++) {
      for (int64_t p = 0; p < P; p++) (*db)[o] += dyn[o * P + p];
    }
  }
  return dx;
}

}  // namespace examples
