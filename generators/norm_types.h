// GeneratorParam vocabulary shared by the row-norm generators.
#ifndef HALNORM_GENERATORS_NORM_TYPES_H_
#define HALNORM_GENERATORS_NORM_TYPES_H_

#include <map>
#include <string>

#include "Halide.h"

namespace halnorm {

enum class NormKind { kLayer, kRms };

inline const std::map<std::string, NormKind> kNormKinds = {{"layer", NormKind::kLayer},
                                                           {"rms", NormKind::kRms}};

// Activation dtype names as in variant names. Halide's own Type parameter
// has no bfloat16, hence strings.
inline Halide::Type ActivationType(const std::string& dtype) {
  if (dtype == "f16") return Halide::Float(16);
  if (dtype == "bf16") return Halide::BFloat(16);
  if (dtype != "f32") throw std::invalid_argument("dtype must be f32, f16 or bf16: " + dtype);
  return Halide::Float(32);
}

// 16-bit <-> f32 conversions written as integer and float vector ops.
// Halide 14 emulates every float16/bfloat16 cast in software (it does not
// use F16C), at ~7 cycles per f16 element; these take a handful of vector
// ops per 8 elements. Both are exact for every input (denormals, inf, NaN)
// and round to nearest even, under the default (non-flushing) FP mode.
namespace bits16 {

using Halide::Expr;
using Halide::reinterpret;

inline Expr U32(uint32_t v) { return Halide::Internal::make_const(Halide::UInt(32), uint64_t{v}); }

inline Expr HalfToFloat(Expr half_bits) {  // uint16 -> float
  Expr w = Halide::cast<uint32_t>(half_bits);
  Expr sign = (w & 0x8000) << 16;
  Expr magnitude = w & 0x7fff;
  // The half's exponent and mantissa moved into a float's low exponent bits,
  // times 2^112, is the half's value (denormals included); inf/NaN keep
  // their payload with the float exponent all ones.
  Expr finite = reinterpret<float>(magnitude << 13) * reinterpret<float>(U32(0x77800000));
  Expr special = reinterpret<float>((magnitude << 13) | U32(0x7f800000));
  Expr value = Halide::select(magnitude >= 0x7c00, special, finite);
  return reinterpret<float>(reinterpret<uint32_t>(value) | sign);
}

inline Expr FloatToHalf(Expr v) {  // float -> uint16, round to nearest even
  Expr u = reinterpret<uint32_t>(v);
  Expr sign = (u >> 16) & 0x8000;
  Expr a = u & U32(0x7fffffff);
  // Overflow -> inf; NaN -> quiet NaN.
  Expr special = Halide::select(a > U32(0x7f800000), U32(0x7e00), U32(0x7c00));
  // Below the smallest normal half: the float adder rounds the value into a
  // half denormal's mantissa bits.
  const uint32_t denorm_magic = ((127 - 15) + (23 - 10) + 1) << 23;
  Expr denormal =
      reinterpret<uint32_t>(reinterpret<float>(a) + reinterpret<float>(U32(denorm_magic))) -
      U32(denorm_magic);
  // Normal: rebias the exponent, round the 13 dropped mantissa bits to even.
  Expr normal = (a + U32(static_cast<uint32_t>(15 - 127) << 23) + 0xfff + ((a >> 13) & 1)) >> 13;
  Expr magnitude = Halide::select(a >= U32(143u << 23), special, a < U32(113u << 23), denormal,
                                  normal);
  return Halide::cast<uint16_t>(magnitude | sign);
}

inline Expr Bf16ToFloat(Expr bf16_bits) {  // uint16 -> float
  return reinterpret<float>(Halide::cast<uint32_t>(bf16_bits) << 16);
}

inline Expr FloatToBf16(Expr v) {  // float -> uint16, round to nearest even
  Expr u = reinterpret<uint32_t>(v);
  Expr rounded = (u + 0x7fff + ((u >> 16) & 1)) >> 16;
  Expr quiet_nan = (u >> 16) | 0x40;
  return Halide::cast<uint16_t>(Halide::select(Halide::is_nan(v), quiet_nan, rounded));
}

}  // namespace bits16

// An activation value (f32, f16 or bf16) as f32.
inline Halide::Expr AsF32(Halide::Expr v) {
  const Halide::Type t = v.type();
  if (t == Halide::Float(16)) return bits16::HalfToFloat(Halide::reinterpret<uint16_t>(v));
  if (t == Halide::BFloat(16)) return bits16::Bf16ToFloat(Halide::reinterpret<uint16_t>(v));
  return Halide::cast<float>(v);
}

// An f32 value as the activation type `act`, for a kernel's stored outputs.
inline Halide::Expr StoreAs(Halide::Type act, Halide::Expr v) {
  if (act == Halide::Float(16)) return Halide::reinterpret(act, bits16::FloatToHalf(v));
  if (act == Halide::BFloat(16)) return Halide::reinterpret(act, bits16::FloatToBf16(v));
  return Halide::cast(act, v);
}

}  // namespace halnorm

#endif  // HALNORM_GENERATORS_NORM_TYPES_H_
