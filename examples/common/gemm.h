// The one matrix product the example models need, in plain C++ (double,
// row-major, no intrinsics: it builds for any target). Tiny shapes only.
#ifndef HALNORM_EXAMPLES_COMMON_GEMM_H_
#define HALNORM_EXAMPLES_COMMON_GEMM_H_

#include <cstdint>

namespace examples {

enum class Trans { kNo, kYes };

// C[m, n] (+)= op(A)[m, k] * op(B)[k, n]. op(A) = A when A is stored [m, k]
// (row stride lda), A^T when it is stored [k, m]; likewise B. `accumulate`
// adds to C instead of overwriting it (weight gradients summed over samples).
void Gemm(Trans trans_a, Trans trans_b, int64_t m, int64_t n, int64_t k, const double* a,
          int64_t lda, const double* b, int64_t ldb, bool accumulate, double* c, int64_t ldc);

}  // namespace examples

#endif  // HALNORM_EXAMPLES_COMMON_GEMM_H_
