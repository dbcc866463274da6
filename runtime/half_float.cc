#include "runtime/half_float.h"

#include <cmath>
#include <cstring>

namespace halnorm::internal {
namespace {

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace

float HalfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t exponent = (h >> 10) & 0x1f;
  const uint32_t mantissa = h & 0x3ff;
  if (exponent == 0x1f) return FromBits(sign | 0x7f800000u | (mantissa << 13));  // inf/nan
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return FromBits(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint16_t FloatToHalf(float value) {
  const uint32_t u = Bits(value);
  const uint16_t sign = (u >> 16) & 0x8000u;
  const float magnitude = std::fabs(value);
  if (std::isnan(value)) return sign | 0x7e00u;
  if (magnitude >= 65520.f) return sign | 0x7c00u;  // rounds to inf
  if (magnitude < 6.103515625e-05f) {               // subnormal half: units of 2^-24
    return sign | static_cast<uint16_t>(std::nearbyint(magnitude * 16777216.f));
  }
  // Normal: drop 13 mantissa bits with round-to-nearest-even; a carry into
  // the exponent is the correct result.
  const uint32_t rebased = (u & 0x7fffffffu) - (112u << 23);
  const uint32_t rounded = rebased + 0xfffu + ((rebased >> 13) & 1u);
  return sign | static_cast<uint16_t>(rounded >> 13);
}

float Bf16ToFloat(uint16_t bits) { return FromBits(uint32_t{bits} << 16); }

uint16_t FloatToBf16(float value) {
  const uint32_t u = Bits(value);
  if (std::isnan(value)) return static_cast<uint16_t>((u >> 16) | 0x40u);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

std::vector<float> ToF32(const halnorm_tensor& t, int64_t count) {
  std::vector<float> out(count);
  if (t.dtype == HALNORM_F32) {
    std::memcpy(out.data(), t.data, count * sizeof(float));
    return out;
  }
  const auto* bits = static_cast<const uint16_t*>(t.data);
  for (int64_t i = 0; i < count; i++) {
    out[i] = t.dtype == HALNORM_F16 ? HalfToFloat(bits[i]) : Bf16ToFloat(bits[i]);
  }
  return out;
}

void StoreFromF32(const float* values, int64_t count, const halnorm_tensor& t) {
  if (t.dtype == HALNORM_F32) {
    std::memcpy(t.data, values, count * sizeof(float));
    return;
  }
  auto* bits = static_cast<uint16_t*>(t.data);
  for (int64_t i = 0; i < count; i++) {
    bits[i] = t.dtype == HALNORM_F16 ? FloatToHalf(values[i]) : FloatToBf16(values[i]);
  }
}

}  // namespace halnorm::internal
