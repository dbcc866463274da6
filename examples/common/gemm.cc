#include "examples/common/gemm.h"

namespace examples {

void Gemm(Trans trans_a, Trans trans_b, int64_t m, int64_t n, int64_t k, const double* a,
          int64_t lda, const double* b, int64_t ldb, bool accumulate, double* c, int64_t ldc) {
  // Element strides of op(A) along (row, inner) and of op(B) along (inner, col).
  const int64_t a_row = trans_a == Trans::kNo ? lda : 1;
  const int64_t a_inner = trans_a == Trans::kNo ? 1 : lda;
  const int64_t b_inner = trans_b == Trans::kNo ? ldb : 1;
  const int64_t b_col = trans_b == Trans::kNo ? 1 : ldb;
  for (int64_t i = 0; i < m; i++) {
    for (int64_t j = 0; j < n; j++) {
      double sum = 0;
      for (int64_t p = 0; p < k; p++)
        sum += a[i * a_row + p * a_inner] * b[p * b_inner + j * b_col];
      c[i * ldc + j] = accumulate ? c[i * ldc + j] + sum : sum;
    }
  }
}

}  // namespace examples
