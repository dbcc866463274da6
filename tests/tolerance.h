// The one tolerance policy of the test suite.
//
// An output passes when |got - ref| <= tol * (|ref| + 1) against the float64
// reference: relative for large values, absolute near zero (a normalized
// output is O(1), so a pure relative error would blow up at its zeros).
// tol depends on (op, direction, dtype) only, never on the test; change it
// here or nowhere.
#ifndef HALNORM_TESTS_TOLERANCE_H_
#define HALNORM_TESTS_TOLERANCE_H_

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

// Allowed error relative to (|ref| + 1). f32 is the accuracy contract of
// ARCHITECTURE.md (all arithmetic is f32, so it bounds every dtype's compute
// error); f16/bf16 add two ulps of the output dtype for its final rounding.
double Tolerance(internal::Op op, internal::Direction direction, halnorm_dtype dtype);

// Adds one gtest failure if any got[i] misses ref[i] by more than tol, naming
// the worst index, its values and how many elements failed. A NaN reference
// demands a NaN; a NaN where the reference is finite always fails.
void ExpectClose(absl::Span<const float> got, absl::Span<const double> ref, double tol,
                 absl::string_view context);

}  // namespace halnorm::testutil

#endif  // HALNORM_TESTS_TOLERANCE_H_
