// The runtime's conversions of the per-feature tensors (runtime/half_float.h)
// against the tests' own (tests/float16_conversions.h): the scalar functions,
// and the array paths (F16C, AVX2 or AArch64 on hosts that have them,
// vectorized selects elsewhere), bit for bit; a NaN only has to stay a NaN.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "runtime/half_float.h"

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "absl/base/casts.h"
#include "gtest/gtest.h"
#include "tests/float16_conversions.h"

namespace halnorm::internal {
namespace {

uint32_t Bits(float f) { return absl::bit_cast<uint32_t>(f); }

halnorm_tensor Vector(halnorm_dtype dtype, void* data, int64_t count) {
  halnorm_tensor t{};
  t.data = data;
  t.dtype = dtype;
  t.rank = 1;
  t.shape[0] = count;
  t.strides[0] = 1;
  return t;
}

std::vector<uint16_t> EveryPattern() {
  std::vector<uint16_t> all(65536);
  for (uint32_t i = 0; i < all.size(); i++) all[i] = static_cast<uint16_t>(i);
  return all;
}

// Every half's value, the midpoints between neighbouring halves (the ties),
// and random bit patterns: the values rounding has to get right.
std::vector<float> FloatsToRound() {
  std::vector<float> values;
  for (uint32_t h = 0; h < 0x7c00; h++) {
    const float v = testutil::HalfBitsToFloat(static_cast<uint16_t>(h));
    const float next = testutil::HalfBitsToFloat(static_cast<uint16_t>(h + 1));
    for (float x : {v, -v, (v + next) / 2, -(v + next) / 2}) values.push_back(x);
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 200000; i++) {
    values.push_back(absl::bit_cast<float>(static_cast<uint32_t>(rng())));
  }
  return values;
}

void ExpectSameFloat(float got, float want, uint32_t input) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << std::hex << input;
  } else {
    EXPECT_EQ(Bits(got), Bits(want)) << std::hex << input;
  }
}

void ExpectSameHalf(uint16_t got, uint16_t want, float input, uint16_t exponent_mask) {
  if (std::isnan(input)) {  // NaN: exponent all ones, mantissa not zero
    EXPECT_EQ(got & exponent_mask, exponent_mask) << input;
    EXPECT_NE(got & ~exponent_mask & 0x7fff, 0) << input;
  } else {
    EXPECT_EQ(got, want) << std::hex << Bits(input);
  }
}

TEST(RuntimeHalfFloatTest, EveryHalfToF32) {
  std::vector<uint16_t> halves = EveryPattern();
  const std::vector<float> f16 = ToF32(Vector(HALNORM_F16, halves.data(), 65536), 65536);
  const std::vector<float> bf16 = ToF32(Vector(HALNORM_BF16, halves.data(), 65536), 65536);
  for (uint32_t h = 0; h < 65536; h++) {
    ExpectSameFloat(f16[h], testutil::HalfBitsToFloat(h), h);
    ExpectSameFloat(HalfToFloat(h), testutil::HalfBitsToFloat(h), h);
    ExpectSameFloat(bf16[h], testutil::Bfloat16BitsToFloat(h), h);
  }
}

TEST(RuntimeHalfFloatTest, StoreFromF32RoundsToNearestEven) {
  std::vector<float> values = FloatsToRound();
  const int64_t n = static_cast<int64_t>(values.size());
  std::vector<uint16_t> f16(n), bf16(n);
  StoreFromF32(values.data(), n, Vector(HALNORM_F16, f16.data(), n));
  StoreFromF32(values.data(), n, Vector(HALNORM_BF16, bf16.data(), n));
  for (int64_t i = 0; i < n; i++) {
    const float v = values[i];
    ExpectSameHalf(f16[i], testutil::FloatToHalfBits(v), v, 0x7c00);
    ExpectSameHalf(FloatToHalf(v), testutil::FloatToHalfBits(v), v, 0x7c00);
    ExpectSameHalf(bf16[i], testutil::FloatToBfloat16Bits(v), v, 0x7f80);
  }
}

// bf16's own hard cases: ties between neighbouring bf16 values (both
// parities, both signs), values just either side of a tie, finite values
// that round up to inf, and NaNs whose rounding would carry into the sign.
// Stored at every length up to past two AVX2 steps, so every vector-body and
// tail split is checked; then read back.
TEST(RuntimeHalfFloatTest, Bf16ArraysOfEveryLengthMatchTheReference) {
  std::vector<float> values;
  for (uint32_t high : {0x0000u, 0x0001u, 0x3f80u, 0x3f81u, 0x7f7fu, 0x7f80u, 0x7fc0u, 0x7fffu}) {
    for (uint32_t low : {0x7fffu, 0x8000u, 0x8001u, 0xffffu}) {
      for (uint32_t sign : {0u, 0x80000000u}) {
        values.push_back(absl::bit_cast<float>(sign | high << 16 | low));
      }
    }
  }
  ASSERT_GE(values.size(), 40u);
  for (int64_t n = 0; n <= 40; n++) {
    std::vector<uint16_t> bf16(n + 1, 0xabcd);
    StoreFromF32(values.data(), n, Vector(HALNORM_BF16, bf16.data(), n));
    for (int64_t i = 0; i < n; i++) {
      ExpectSameHalf(bf16[i], testutil::FloatToBfloat16Bits(values[i]), values[i], 0x7f80);
    }
    EXPECT_EQ(bf16[n], 0xabcd) << "stored past " << n << " values";
    std::vector<float> back(n + 1, -1.f);
    ToF32(Vector(HALNORM_BF16, bf16.data(), n), n, back.data());
    for (int64_t i = 0; i < n; i++) {
      ExpectSameFloat(back[i], testutil::Bfloat16BitsToFloat(bf16[i]), bf16[i]);
    }
    EXPECT_EQ(back[n], -1.f) << "read past " << n << " values";
  }
}

// f16 read back at every length up to past two AVX-512 steps, from every
// offset's worth of patterns (denormals, infinities, NaNs among them), so
// each vector body and tail split of the widening conversion is checked.
TEST(RuntimeHalfFloatTest, HalfArraysOfEveryLengthReadBack) {
  std::vector<uint16_t> halves = EveryPattern();
  for (uint32_t start : {0x0000u, 0x03f0u, 0x7bf0u, 0x7c00u, 0xfbf0u}) {
    for (int64_t n = 0; n <= 40; n++) {
      std::vector<float> back(n + 1, -1.f);
      ToF32(Vector(HALNORM_F16, halves.data() + start, n), n, back.data());
      for (int64_t i = 0; i < n; i++) {
        const uint16_t h = halves[start + i];
        ExpectSameFloat(back[i], testutil::HalfBitsToFloat(h), h);
      }
      EXPECT_EQ(back[n], -1.f) << "read past " << n << " values";
    }
  }
}

#if defined(__x86_64__)
// A caller running with flush-to-zero and denormals-are-zero (common in ML
// code) still gets exact f16 denormal weights.
TEST(RuntimeHalfFloatTest, DenormalsSurviveFlushToZeroMode) {
  const unsigned int saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040);  // FTZ | DAZ
  for (uint16_t h = 1; h < 0x400; h++) {
    ExpectSameFloat(HalfToFloat(h), testutil::HalfBitsToFloat(h), h);
    ExpectSameFloat(HalfToFloat(h | 0x8000), testutil::HalfBitsToFloat(h | 0x8000), h);
  }
  _mm_setcsr(saved);
}
#endif

}  // namespace
}  // namespace halnorm::internal
