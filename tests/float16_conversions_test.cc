// Known bit patterns of the f16/bf16 conversions (ties, overflow, denormals,
// inf, NaN), plus exhaustive round trips of every 16-bit pattern.
#include "tests/float16_conversions.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace halnorm::testutil {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(FloatToHalfTest, ExactValues) {
  EXPECT_EQ(FloatToHalfBits(0.0f), 0x0000);
  EXPECT_EQ(FloatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalfBits(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalfBits(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalfBits(65504.0f), 0x7bff);                  // largest half
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -14)), 0x0400);     // smallest normal
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -24)), 0x0001);     // smallest denormal
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1023.0f, -24)), 0x03ff);  // largest denormal
}

TEST(FloatToHalfTest, RoundsToNearestEven) {
  EXPECT_EQ(FloatToHalfBits(0.1f), 0x2e66);
  EXPECT_EQ(FloatToHalfBits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);      // tie -> even 1.0
  EXPECT_EQ(FloatToHalfBits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie -> even
  EXPECT_EQ(FloatToHalfBits(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3c01);
  EXPECT_EQ(FloatToHalfBits(65519.0f), 0x7bff);
  // Denormal ties, and a denormal rounding up into the smallest normal.
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(FloatToHalfBits(std::ldexp(3.0f, -25)), 0x0002);
  EXPECT_EQ(FloatToHalfBits(-std::ldexp(1.0f, -30)), 0x8000);
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1023.5f, -24)), 0x0400);
}

TEST(FloatToHalfTest, OverflowInfAndNan) {
  EXPECT_EQ(FloatToHalfBits(65520.0f), 0x7c00);  // tie between 65504 and 2^16 -> inf
  EXPECT_EQ(FloatToHalfBits(1e10f), 0x7c00);
  EXPECT_EQ(FloatToHalfBits(kInf), 0x7c00);
  EXPECT_EQ(FloatToHalfBits(-kInf), 0xfc00);
  const uint16_t nan = FloatToHalfBits(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0) << "NaN must not become inf";
}

TEST(HalfToFloatTest, KnownPatterns) {
  EXPECT_EQ(HalfBitsToFloat(0x3c00), 1.0f);
  EXPECT_EQ(HalfBitsToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(HalfBitsToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(HalfBitsToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfBitsToFloat(0x8001), -std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfBitsToFloat(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_EQ(HalfBitsToFloat(0x7c00), kInf);
  EXPECT_EQ(HalfBitsToFloat(0xfc00), -kInf);
  EXPECT_TRUE(std::isnan(HalfBitsToFloat(0x7e00)));
  EXPECT_TRUE(std::signbit(HalfBitsToFloat(0x8000)));
}

TEST(HalfTest, EveryPatternRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const float value = HalfBitsToFloat(static_cast<uint16_t>(bits));
    if (std::isnan(value)) continue;  // NaNs are canonicalized to quiet ones
    ASSERT_EQ(FloatToHalfBits(value), bits) << std::hex << bits;
  }
}

TEST(Bfloat16Test, KnownPatterns) {
  EXPECT_EQ(FloatToBfloat16Bits(1.0f), 0x3f80);
  EXPECT_EQ(FloatToBfloat16Bits(-2.0f), 0xc000);
  EXPECT_EQ(FloatToBfloat16Bits(3.14159265f), 0x4049);
  EXPECT_EQ(FloatToBfloat16Bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80);        // tie -> even
  EXPECT_EQ(FloatToBfloat16Bits(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);    // tie -> even
  EXPECT_EQ(FloatToBfloat16Bits(std::numeric_limits<float>::max()), 0x7f80);  // rounds to inf
  EXPECT_EQ(FloatToBfloat16Bits(-kInf), 0xff80);
  EXPECT_EQ(FloatToBfloat16Bits(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(FloatToBfloat16Bits(std::ldexp(1.0f, -133)), 0x0001);  // bfloat16 denormal
  const uint16_t nan = FloatToBfloat16Bits(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7f80, 0x7f80);
  EXPECT_NE(nan & 0x007f, 0);
  EXPECT_EQ(Bfloat16BitsToFloat(0x3f80), 1.0f);
  EXPECT_EQ(Bfloat16BitsToFloat(0x4049), 3.140625f);
  EXPECT_EQ(Bfloat16BitsToFloat(0xff80), -kInf);
}

TEST(Bfloat16Test, EveryPatternRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const float value = Bfloat16BitsToFloat(static_cast<uint16_t>(bits));
    if (std::isnan(value)) continue;
    ASSERT_EQ(FloatToBfloat16Bits(value), bits) << std::hex << bits;
  }
}

}  // namespace
}  // namespace halnorm::testutil
