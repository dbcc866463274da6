// The one tolerance policy of the test suite.
//
// An output passes when |got - ref| <= tol * (|ref| + 1) against the float64
// reference: relative for large values, absolute near zero (a normalized
// output is O(1), so a pure relative error would blow up at its zeros).
// tol depends on (op, direction, activation dtype) only, never on the test;
// change it here or nowhere. It applies to every output of the call (y, dx,
// residual_out, and the f32 mean/rstd too: in 16-bit calls they are computed
// from a residual sum h that may legitimately round differently, see below).
//
// The numbers, relative to |ref| + 1:
//   f32 forward   1e-5   the accuracy contract of ARCHITECTURE.md, which
//                        holds even for rows whose mean is 1e6 times their
//                        standard deviation.
//   f32 backward  2e-5   dx = rstd * (g - mean(g) - xhat * mean(g * xhat))
//                        subtracts two f32 row means, each off by a few
//                        ulps of its row's magnitude, and scales by rstd.
//   f16, bf16     the f32 number + 2 ulps of the dtype (2^-10 for f16,
//                 2^-7 for bf16). Inputs convert exactly and all arithmetic
//                 is f32, so the f32 error stays; the store rounds once
//                 (half an ulp), and the kernel's f32 result may sit on the
//                 other side of a rounding boundary than the float64 value
//                 (one more). A fused residual sum h is rounded to the dtype
//                 before normalization, and f32 evaluation (alpha * x
//                 rounded, then + residual rounded) lands one ulp away from
//                 the reference's correctly rounded h in ~0.3% of elements
//                 when alpha != 1; that moves y by about an ulp and the f32
//                 mean/rstd by an ulp of h over the row length.
//   dweight, dbias: sums over rows, whose independent rounding errors grow
//                 like sqrt(rows); RowSumTolerance scales tol by that.
//   LayerNorm2d   the LayerNorm numbers: each normalized set (a pixel's C
//                 values, a sample's C*H*W, a channel's H*W) is a LayerNorm
//                 row, the same f32 two-pass statistics and dx formula with
//                 the affine per channel. dweight[c]/dbias[c] sum the
//                 N*H*W elements of channel c (for every axes): that is the
//                 `rows` of its RowSumTolerance.
//
// Measured worst errors over the whole case list (x86 AVX2 and SSE4.1
// variants; the test property "<output>_error" of each test records them):
//   f32   forward  y 7.9e-6 (a 2^20-element row), mean/rstd 2.0e-6
//         backward dx 1.6e-6, dweight 2.5e-6, dbias 1.8e-6 (before the
//                  sqrt(rows) factor)
//   f16   forward  y 4.8e-4, backward dx 4.6e-4 (half an ulp: 4.9e-4)
//   bf16  forward  y 3.9e-3, backward dx 3.8e-3 (half an ulp: 3.9e-3)
//   LayerNorm2d (layer_norm2d_test, AVX2/SSE4.1 and dispatched; the sums
//   unscaled): f32 y 3.6e-6, mean 1.6e-6, dx 4.2e-7, dweight 1.1e-4 over
//   6272 elements; f16 y 4.1e-4, dx 4.0e-4; bf16 y 3.3e-3, dx 3.1e-3.
#ifndef HALNORM_TESTS_TOLERANCE_H_
#define HALNORM_TESTS_TOLERANCE_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "runtime/halnorm_c.h"
#include "runtime/variant_registry.h"

namespace halnorm::testutil {

// Explicit mantissa bits of each dtype (without the implicit leading 1).
constexpr int MantissaBits(halnorm_dtype dtype) {
  switch (dtype) {
    case HALNORM_F32:
      return 23;
    case HALNORM_F16:
      return 10;
    case HALNORM_BF16:
      return 7;
  }
  return 0;
}

// Allowed error of an element of any output, relative to (|ref| + 1).
double Tolerance(internal::Op op, internal::Direction direction, halnorm_dtype dtype);

// Allowed error of a sum over `rows` rows (dweight, dbias).
double RowSumTolerance(internal::Op op, internal::Direction direction, halnorm_dtype dtype,
                       int64_t rows);

// Adds one gtest failure if any got[i] misses ref[i] by more than tol, naming
// the worst index, its values and how many elements failed. A NaN reference
// demands a NaN, an infinite one the same infinity; a non-finite value where
// the reference is finite always fails. Returns the worst error (0 if empty).
double ExpectClose(absl::Span<const float> got, absl::Span<const double> ref, double tol,
                   absl::string_view context);

// ExpectClose, except for the elements of `poisoned` groups (element i is in
// group i / group_size: a row, or a column with group_size 1), which only
// need to be non-finite wherever the reference is: there the order of
// operations legitimately decides between NaN, inf and even 0 (RMSNorm of a
// row with an inf: x * rsqrt(inf) = 0 in exact arithmetic, NaN after a
// Newton step).
void ExpectCloseOutsidePoisoned(absl::Span<const float> got, absl::Span<const double> ref,
                                int64_t group_size, absl::Span<const int64_t> poisoned, double tol,
                                absl::string_view context);

// Adds a failure unless every element is a NaN (what a NaN input must give
// wherever it reaches: NaN propagates through any order of operations).
void ExpectAllNan(absl::Span<const float> got, absl::string_view context);

}  // namespace halnorm::testutil

#endif  // HALNORM_TESTS_TOLERANCE_H_
