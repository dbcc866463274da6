#include "tests/float16_conversions.h"

#include <cmath>
#include <cstring>

namespace halnorm::testutil {
namespace {

uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

float FloatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

// value >> shift, rounded to nearest, ties to even (shift >= 1).
uint32_t ShiftRightRoundingToEven(uint32_t value, int shift) {
  const uint32_t kept = value >> shift;
  const uint32_t dropped = value & ((uint32_t{1} << shift) - 1);
  const uint32_t half = uint32_t{1} << (shift - 1);
  return kept + (dropped > half || (dropped == half && (kept & 1)) ? 1 : 0);
}

constexpr uint32_t kFloatExponentMask = 0x7f800000;
constexpr int kFloatMantissaBits = 23;
constexpr int kHalfMantissaBits = 10;
constexpr int kFloatExponentBias = 127;
constexpr int kHalfExponentBias = 15;

}  // namespace

uint16_t FloatToHalfBits(float value) {
  const uint32_t bits = FloatBits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  const uint32_t magnitude = bits & 0x7fffffff;
  if (magnitude > kFloatExponentMask) {  // NaN: quiet, keeping the top payload bits
    return sign | 0x7e00 | static_cast<uint16_t>((magnitude >> 13) & 0x3ff);
  }
  // 65520 is halfway between the largest half (65504) and 2^16; the tie
  // goes to the even neighbour, which is inf.
  if (magnitude >= FloatBits(65520.0f)) return sign | 0x7c00;
  const int exponent = static_cast<int>(magnitude >> kFloatMantissaBits);              // biased
  constexpr int kSmallestNormalExponent = kFloatExponentBias - kHalfExponentBias + 1;  // 2^-14
  constexpr int kShift = kFloatMantissaBits - kHalfMantissaBits;
  if (exponent >= kSmallestNormalExponent) {
    // Rebias the exponent; a carry out of the mantissa correctly bumps it.
    const uint32_t rebiased =
        magnitude -
        (static_cast<uint32_t>(kFloatExponentBias - kHalfExponentBias) << kFloatMantissaBits);
    return sign | static_cast<uint16_t>(ShiftRightRoundingToEven(rebiased, kShift));
  }
  // Denormal half: the significand in units of 2^-24. Below 2^-25 (biased
  // exponent 102) everything rounds to zero, and the shift would exceed 31.
  if (exponent < kSmallestNormalExponent - kHalfMantissaBits - 1) return sign;
  const uint32_t significand = (magnitude & 0x7fffff) | 0x800000;
  const int shift = kShift + (kSmallestNormalExponent - exponent);
  // A round-up to 1024 gives 0x0400, the smallest normal half: also right.
  return sign | static_cast<uint16_t>(ShiftRightRoundingToEven(significand, shift));
}

float HalfBitsToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  const uint32_t exponent = (bits >> kHalfMantissaBits) & 0x1f;
  const uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0x1f) {  // inf or NaN (payload kept)
    return FloatFromBits(sign | kFloatExponentMask | (mantissa << 13));
  }
  if (exponent == 0) {  // zero or denormal: mantissa * 2^-24, exact in float
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return FloatFromBits(sign | ((exponent + kFloatExponentBias - kHalfExponentBias) << 23) |
                       (mantissa << 13));
}

uint16_t FloatToBfloat16Bits(float value) {
  const uint32_t bits = FloatBits(value);
  if ((bits & 0x7fffffff) > kFloatExponentMask) {  // NaN: keep it quiet
    return static_cast<uint16_t>((bits >> 16) | 0x0040);
  }
  // Overflow past the largest bfloat16 carries into the exponent: inf.
  return static_cast<uint16_t>(ShiftRightRoundingToEven(bits, 16));
}

float Bfloat16BitsToFloat(uint16_t bits) {
  return FloatFromBits(static_cast<uint32_t>(bits) << 16);
}

}  // namespace halnorm::testutil
