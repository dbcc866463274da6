// Inputs and checks for values at the ends of a dtype's range, where the
// tolerance policy's (|ref| + 1) scale says nothing: subnormals, magnitudes
// whose squares overflow the dtype, and "every element was written" (the test
// tensors' sentinel is itself a NaN, so an expected-NaN output must also be
// checked for having been written at all).
#ifndef HALNORM_TESTS_EDGE_VALUES_H_
#define HALNORM_TESTS_EDGE_VALUES_H_

#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "runtime/halnorm_c.h"
#include "tests/test_tensors.h"

namespace halnorm::testutil {

// The dtype's smallest positive subnormal, which is also the spacing of all
// its subnormals: 2^-149 (f32), 2^-24 (f16), 2^-133 (bf16).
double SmallestSubnormal(halnorm_dtype dtype);
// The dtype's smallest positive normal value.
double SmallestNormal(halnorm_dtype dtype);

// Adds a failure unless each got[i] is within rel * |ref[i]| + two subnormal
// spacings of ref[i] (f32 arithmetic on subnormals rounds to that grid, half
// a spacing an operation, and so does a 16-bit store), and nonzero where
// |ref[i]| is above that: a flush to zero (FTZ on output, DAZ on input)
// fails. Returns how many elements had a subnormal reference, so a test can
// assert that it exercised some.
int64_t ExpectCloseNotFlushed(absl::Span<const float> got, absl::Span<const double> ref, double rel,
                              halnorm_dtype dtype, absl::string_view context);

// How many of `values` are subnormal in `dtype` (nonzero, below its smallest normal).
int64_t CountSubnormal(absl::Span<const float> values, halnorm_dtype dtype);

// `count` values of magnitude uniform in [low, high) from std::mt19937(seed),
// signs alternating (+, -, ...), rounded to `dtype`.
std::vector<float> LargeMagnitudes(int64_t count, double low, double high, uint32_t seed,
                                   halnorm_dtype dtype);

// Adds a failure for each element of the view still holding the sentinel.
void ExpectAllWritten(const TestTensor& tensor, absl::string_view context);

}  // namespace halnorm::testutil

#endif  // HALNORM_TESTS_EDGE_VALUES_H_
