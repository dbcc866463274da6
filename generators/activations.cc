#include "generators/activations.h"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "generators/native_code.h"
#include "generators/norm_types.h"

namespace halnorm {
namespace native_half_bitcode {  // native_half_bitcode.cc, generated
extern const unsigned char kX86_64[], kAarch64[];
extern const size_t kX86_64Size, kAarch64Size;
}  // namespace native_half_bitcode
namespace native_bf16_bitcode {  // native_bf16_bitcode.cc, generated
extern const unsigned char kX86_64[];
extern const size_t kX86_64Size;
}  // namespace native_bf16_bitcode
namespace vector_bf16_bitcode {  // vector_bf16_bitcode.cc, generated
extern const unsigned char kX86_64[];
extern const size_t kX86_64Size;
}  // namespace vector_bf16_bitcode

namespace {

// 16-bit <-> f32 conversions written as integer and float vector ops, for
// targets without native f16 conversions and for bf16 (no x86 or NEON
// instruction before AVX512_BF16 / ARMv8.6). Halide 14 emulates every
// float16/bfloat16 cast in software at ~7 cycles per f16 element; these take
// a handful of vector ops per 8 elements. They are exact for every input
// (denormals, inf, NaN) and round to nearest even under the default FP mode;
// under a caller's denormals-are-zero mode HalfToFloat flushes f16
// subnormals (it multiplies a float denormal).
namespace bits16 {

using Halide::Expr;
using Halide::reinterpret;

Expr U32(uint32_t v) { return Halide::Internal::make_const(Halide::UInt(32), uint64_t{v}); }

Expr HalfToFloat(Expr half_bits) {  // uint16 -> float
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

Expr FloatToHalf(Expr v) {  // float -> uint16, round to nearest even
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
  Expr magnitude =
      Halide::select(a >= U32(143u << 23), special, a < U32(113u << 23), denormal, normal);
  return Halide::cast<uint16_t>(magnitude | sign);
}

Expr Bf16ToFloat(Expr bf16_bits) {  // uint16 -> float
  return reinterpret<float>(Halide::cast<uint32_t>(bf16_bits) << 16);
}

Expr FloatToBf16(Expr v) {  // float -> uint16, round to nearest even
  Expr u = reinterpret<uint32_t>(v);
  Expr rounded = (u + 0x7fff + ((u >> 16) & 1)) >> 16;
  Expr quiet_nan = (u >> 16) | 0x40;
  // NaN tested on the bits: a float-compare mask selecting 16-bit values
  // trips Halide 14's OpenCL lowering (EliminateBoolVectors).
  Expr is_nan = (u & U32(0x7fffffff)) > U32(0x7f800000);
  return Halide::cast<uint16_t>(Halide::select(is_nan, quiet_nan, rounded));
}

}  // namespace bits16

// The function names native_half.ll, native_bf16.ll and vector_bf16.ll
// define (Halide appends xN for N lanes).
constexpr char kHalfToF32[] = "halnorm_f16_to_f32";
constexpr char kF32ToHalf[] = "halnorm_f32_to_f16";
constexpr char kF32ToBf16[] = "halnorm_f32_to_bf16";

}  // namespace

Activations::Activations(const std::string& dtype, const Halide::Target& target,
                         Halide::GeneratorContext::ExternsMap& externs)
    : type_(ActivationType(dtype)),
      storage_(KernelActivationType(dtype, target)),
      // PTX converts f16 itself (cvt.f32.f16, cvt.rn.f16.f32): the integer-op
      // conversions made f16 kernels about 0.65x as fast (H100, M = 4096). Not
      // bf16: LLVM 14's NVPTX backend cannot select its fp_round.
      native_cast_(type_ == Halide::Float(16) && target.has_feature(Halide::Target::CUDA)) {
  if (target.bits != 64) return;
  const bool x86 = target.arch == Halide::Target::X86;
  if (type_ == Halide::Float(16)) {
    if (x86 && target.has_feature(Halide::Target::F16C)) {
      LinkBitcode(externs, target, "halnorm.native_half", native_half_bitcode::kX86_64,
                  native_half_bitcode::kX86_64Size);
      native_half_ = true;
    } else if (target.arch == Halide::Target::ARM) {
      LinkBitcode(externs, target, "halnorm.native_half", native_half_bitcode::kAarch64,
                  native_half_bitcode::kAarch64Size);
      native_half_ = true;
    }
  }
  if (type_ == Halide::BFloat(16) && x86 && !target.has_gpu_feature()) {
    // Halide's avx512_sapphirerapids is the only target feature that implies
    // AVX512_BF16; the x86_avx512_bf16 kernels are compiled for exactly
    // Skylake's AVX-512 plus AVX512_BF16 (tools/bazel/halide.bzl).
    if (target.has_feature(Halide::Target::AVX512_SapphireRapids)) {
      LinkBitcode(externs, target, "halnorm.native_bf16", native_bf16_bitcode::kX86_64,
                  native_bf16_bitcode::kX86_64Size);
      bf16_store_ir_ = true;
    } else if (!target.has_feature(Halide::Target::AVX512)) {
      // AVX2 and SSE4.1 (AVX-512 without AVX512_BF16 keeps bits16: untimed).
      LinkBitcode(externs, target, "halnorm.vector_bf16", vector_bf16_bitcode::kX86_64,
                  vector_bf16_bitcode::kX86_64Size);
      bf16_store_ir_ = true;
    }
  }
}

Halide::Expr Activations::ToF32(const Halide::Expr& v) const {
  if (native_cast_) return Halide::cast<float>(v);
  if (type_ == Halide::Float(16)) {
    Halide::Expr half_bits = Halide::reinterpret<uint16_t>(v);
    return native_half_ ? CallNative(Halide::Float(32), kHalfToF32, {half_bits})
                        : bits16::HalfToFloat(half_bits);
  }
  if (type_ == Halide::BFloat(16)) return bits16::Bf16ToFloat(Halide::reinterpret<uint16_t>(v));
  return Halide::cast<float>(v);
}

Halide::Expr Activations::Store(const Halide::Expr& f32) const {
  if (native_cast_) return Halide::cast(type_, f32);
  if (type_ == Halide::Float(16)) {
    Halide::Expr half_bits =
        native_half_ ? CallNative(Halide::UInt(16), kF32ToHalf, {f32}) : bits16::FloatToHalf(f32);
    return Halide::reinterpret(storage_, half_bits);
  }
  if (type_ == Halide::BFloat(16)) {
    Halide::Expr bf16_bits =
        bf16_store_ir_ ? CallNative(Halide::UInt(16), kF32ToBf16, {f32}) : bits16::FloatToBf16(f32);
    return Halide::reinterpret(storage_, bf16_bits);
  }
  return Halide::cast(type_, f32);
}

}  // namespace halnorm
