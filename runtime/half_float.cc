#include "runtime/half_float.h"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>

#include "runtime/x86_cpuid.h"
#endif

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

// The per-feature tensors are converted on every call, so these are written
// without branches (selects only): GCC vectorizes the loops over them (see
// the copts in BUILD). Exact for every input, in any FTZ/DAZ mode.

float HalfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t exponent = h & 0x7c00u;
  const uint32_t shifted = uint32_t{h & 0x7fffu} << 13;
  const uint32_t normal = shifted + (112u << 23);  // rebias the exponent
  const uint32_t special = shifted | 0x7f800000u;  // inf/NaN, payload kept
  // Subnormal: mantissa * 2^-24, through an int conversion so no float
  // denormal appears (a caller's denormals-are-zero mode cannot flush it).
  const uint32_t subnormal = Bits(static_cast<float>(static_cast<int32_t>(h & 0x3ffu)) * 0x1p-24f);
  const uint32_t magnitude = exponent == 0x7c00u ? special : exponent == 0 ? subnormal : normal;
  return FromBits(magnitude | sign);
}

uint16_t FloatToHalf(float value) {
  const uint32_t u = Bits(value);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t a = u & 0x7fffffffu;
  const uint32_t special = a > 0x7f800000u ? 0x7e00u : 0x7c00u;  // NaN : overflow to inf
  // Below the smallest normal half, the float adder rounds the value into
  // a half denormal's mantissa bits.
  constexpr uint32_t kDenormMagic = ((127 - 15) + (23 - 10) + 1) << 23;
  const uint32_t denormal = Bits(FromBits(a) + FromBits(kDenormMagic)) - kDenormMagic;
  // Normal: rebias the exponent, round the 13 dropped mantissa bits to even
  // (a carry into the exponent is the correct result).
  const uint32_t normal = (a - (112u << 23) + 0xfffu + ((a >> 13) & 1u)) >> 13;
  const uint32_t magnitude = a >= (143u << 23) ? special : a < (113u << 23) ? denormal : normal;
  return static_cast<uint16_t>(magnitude | sign);
}

float Bf16ToFloat(uint16_t bits) { return FromBits(uint32_t{bits} << 16); }

uint16_t FloatToBf16(float value) {
  const uint32_t u = Bits(value);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  const uint32_t quiet_nan = (u >> 16) | 0x40u;
  return static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
}

namespace {

// The CPU's own conversions where it has them: x86 F16C (checked at run
// time; the library's baseline is SSE2), every AArch64 core. Both round to
// nearest even, like FloatToHalf, and match HalfToFloat/FloatToHalf bit for
// bit except for NaN payloads (a NaN stays a NaN). Without them, the loops
// over the branch-free functions above are vectorized by the compiler.
#if defined(__x86_64__)
__attribute__((target("avx,f16c"))) void HalvesToFloatsF16c(const uint16_t* in, float* out,
                                                            int64_t count) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i halves = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(halves));
  }
  for (; i < count; i++) out[i] = HalfToFloat(in[i]);
}

__attribute__((target("avx,f16c"))) void FloatsToHalvesF16c(const float* in, uint16_t* out,
                                                            int64_t count) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i halves = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), halves);
  }
  for (; i < count; i++) out[i] = FloatToHalf(in[i]);
}

bool HasF16c() {
  static const bool has = CpuHasF16c();
  return has;
}

// bf16 has no conversion instruction before AVX512_BF16, so AVX2's integer
// ops do each step of the functions above, 8 lanes at a time. The compiler's
// SSE2 code was slow for FloatToBf16 (SSE2 has no unsigned 32- to 16-bit
// pack): a one-row bf16 LayerNorm backward at N=4096, storing dweight and
// dbias, took 5.7 us a call, 3.8 us with these (1 thread).
__attribute__((target("avx2"))) void Bf16sToFloatsAvx2(const uint16_t* in, float* out,
                                                       int64_t count) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i bf16s = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    const __m256i widened = _mm256_cvtepu16_epi32(bf16s);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_slli_epi32(widened, 16));
  }
  for (; i < count; i++) out[i] = Bf16ToFloat(in[i]);
}

// FloatToBf16 on 8 lanes, each result in the low half of its 32-bit lane.
__attribute__((target("avx2"))) __m256i RoundToBf16Avx2(__m256 values) {
  const __m256i u = _mm256_castps_si256(values);
  const __m256i high = _mm256_srli_epi32(u, 16);
  const __m256i odd = _mm256_and_si256(high, _mm256_set1_epi32(1));
  const __m256i rounded =
      _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), odd), 16);
  const __m256i quiet_nan = _mm256_or_si256(high, _mm256_set1_epi32(0x40));
  // Both sides are below 2^31, so the signed compare is the unsigned one.
  const __m256i magnitude = _mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff));
  const __m256i nan = _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x7f800000));
  return _mm256_blendv_epi8(rounded, quiet_nan, nan);
}

__attribute__((target("avx2"))) void FloatsToBf16sAvx2(const float* in, uint16_t* out,
                                                       int64_t count) {
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m256i low = RoundToBf16Avx2(_mm256_loadu_ps(in + i));
    const __m256i high = RoundToBf16Avx2(_mm256_loadu_ps(in + i + 8));
    // packus works within 128-bit halves (low 0-3, high 0-3, low 4-7, high
    // 4-7); the permute puts the four quarters back in order.
    const __m256i packed = _mm256_packus_epi32(low, high);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm256_permute4x64_epi64(packed, _MM_SHUFFLE(3, 1, 2, 0)));
  }
  for (; i < count; i++) out[i] = FloatToBf16(in[i]);
}

bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

// The widening conversions once more with 16 lanes: every call converts
// its 16-bit weight and bias (but the forwards of a few rows, which read
// them as they are: dispatch.h NativeParamsPay). LayerNorm bf16 1x4096
// forward converting them, 1 thread: 1.237 us a call with AVX2, 1.146 here.
__attribute__((target("avx512f"))) void Bf16sToFloatsAvx512(const uint16_t* in, float* out,
                                                           int64_t count) {
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m256i bf16s = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    const __m512i widened = _mm512_cvtepu16_epi32(bf16s);
    _mm512_storeu_si512(out + i, _mm512_slli_epi32(widened, 16));
  }
  Bf16sToFloatsAvx2(in + i, out + i, count - i);
}

// vcvtph2ps: exact, and it never flushes a half denormal (which is a normal f32).
__attribute__((target("avx512f"))) void HalvesToFloatsAvx512(const uint16_t* in, float* out,
                                                            int64_t count) {
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m256i halves = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    _mm512_storeu_ps(out + i, _mm512_cvtph_ps(halves));
  }
  HalvesToFloatsF16c(in + i, out + i, count - i);
}

bool HasAvx512() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}
#endif

void Bf16sToFloats(const uint16_t* __restrict in, float* __restrict out, int64_t count) {
#if defined(__x86_64__)
  if (HasAvx512()) return Bf16sToFloatsAvx512(in, out, count);
  if (HasAvx2()) return Bf16sToFloatsAvx2(in, out, count);
#endif
  for (int64_t i = 0; i < count; i++) out[i] = Bf16ToFloat(in[i]);
}

void FloatsToBf16s(const float* __restrict in, uint16_t* __restrict out, int64_t count) {
#if defined(__x86_64__)
  if (HasAvx2()) return FloatsToBf16sAvx2(in, out, count);
#endif
  for (int64_t i = 0; i < count; i++) out[i] = FloatToBf16(in[i]);
}

void HalvesToFloats(const uint16_t* __restrict in, float* __restrict out, int64_t count) {
#if defined(__x86_64__)
  if (HasAvx512()) return HalvesToFloatsAvx512(in, out, count);
  if (HasF16c()) return HalvesToFloatsF16c(in, out, count);
#endif
  for (int64_t i = 0; i < count; i++) {
#if defined(__aarch64__)
    __fp16 h;
    std::memcpy(&h, &in[i], sizeof h);
    out[i] = h;
#else
    out[i] = HalfToFloat(in[i]);
#endif
  }
}

void FloatsToHalves(const float* __restrict in, uint16_t* __restrict out, int64_t count) {
#if defined(__x86_64__)
  if (HasF16c()) return FloatsToHalvesF16c(in, out, count);
#endif
  for (int64_t i = 0; i < count; i++) {
#if defined(__aarch64__)
    const __fp16 h = in[i];
    std::memcpy(&out[i], &h, sizeof h);
#else
    out[i] = FloatToHalf(in[i]);
#endif
  }
}

}  // namespace

void ToF32(const halnorm_tensor& t, int64_t count, float* __restrict out) {
  if (count == 0) return;  // data may be null (see StoreFromF32)
  const auto* __restrict bits = static_cast<const uint16_t*>(t.data);
  switch (t.dtype) {
    case HALNORM_F16:
      HalvesToFloats(bits, out, count);
      break;
    case HALNORM_BF16:
      Bf16sToFloats(bits, out, count);
      break;
    default:
      std::memcpy(out, t.data, count * sizeof(float));
  }
}

std::vector<float> ToF32(const halnorm_tensor& t, int64_t count) {
  std::vector<float> out(count);
  ToF32(t, count, out.data());
  return out;
}

void StoreFromF32(const float* __restrict values, int64_t count, const halnorm_tensor& t) {
  // An empty tensor's data may be null, and so may an empty vector's: no
  // memcpy from or to null, even of 0 bytes (UBSan; found by fuzzing).
  if (count == 0) return;
  auto* __restrict bits = static_cast<uint16_t*>(t.data);
  switch (t.dtype) {
    case HALNORM_F16:
      FloatsToHalves(values, bits, count);
      break;
    case HALNORM_BF16:
      FloatsToBf16s(values, bits, count);
      break;
    default:
      std::memcpy(t.data, values, count * sizeof(float));
  }
}

}  // namespace halnorm::internal
