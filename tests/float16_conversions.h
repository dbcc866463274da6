// float <-> IEEE half (f16) and float <-> bfloat16, rounding to nearest even.
// The tests' own code, independent of the runtime's, so a conversion bug in
// the kernels' path cannot hide behind the same bug in the oracle's.
#ifndef HALNORM_TESTS_FLOAT16_CONVERSIONS_H_
#define HALNORM_TESTS_FLOAT16_CONVERSIONS_H_

#include <cstdint>

namespace halnorm::testutil {

// Overflow (|value| >= 65520) gives inf; values below half the smallest
// denormal (2^-25) give a signed zero; NaN stays a quiet NaN.
uint16_t FloatToHalfBits(float value);
float HalfBitsToFloat(uint16_t bits);  // exact

// bfloat16 is the upper half of a float: same exponent range, 7 mantissa bits.
uint16_t FloatToBfloat16Bits(float value);
float Bfloat16BitsToFloat(uint16_t bits);  // exact

}  // namespace halnorm::testutil

#endif  // HALNORM_TESTS_FLOAT16_CONVERSIONS_H_
