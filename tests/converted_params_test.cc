// The per-thread f32 copies of 16-bit or offset parameters
// (runtime/converted_params.h): the right values, reused while the source
// is unchanged, redone when it changes, and kept apart per source.
#include "runtime/converted_params.h"

#include <cstdint>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/half_float.h"
#include "runtime/kernel_param.h"

namespace halnorm::internal {
namespace {

halnorm_tensor Vector(void* data, halnorm_dtype dtype, int64_t n) {
  return {data, dtype, HALNORM_CPU, 1, {n}, {1}};
}

std::vector<uint16_t> Bf16s(const std::vector<float>& values) {
  std::vector<uint16_t> bits;
  for (float v : values) bits.push_back(FloatToBf16(v));
  return bits;
}

TEST(KeptF32ParamTest, ConvertsAndAddsTheOffset) {
  std::vector<uint16_t> w = Bf16s({1.f, -2.5f, 0.f, 3.f});
  const float* f = KeptF32Param(Vector(w.data(), HALNORM_BF16, 4), 4, 1.f);
  EXPECT_EQ(std::vector<float>(f, f + 4), (std::vector<float>{2.f, -1.5f, 1.f, 4.f}));
  std::vector<uint16_t> h = {FloatToHalf(0.5f), FloatToHalf(-8.f)};
  const float* g = KeptF32Param(Vector(h.data(), HALNORM_F16, 2), 2, 0.f);
  EXPECT_EQ(std::vector<float>(g, g + 2), (std::vector<float>{0.5f, -8.f}));
  std::vector<float> s = {1.f, 2.f};
  const float* k = KeptF32Param(Vector(s.data(), HALNORM_F32, 2), 2, -1.f);
  EXPECT_EQ(std::vector<float>(k, k + 2), (std::vector<float>{0.f, 1.f}));
}

TEST(KeptF32ParamTest, ReusesTheCopyWhileTheSourceIsUnchanged) {
  std::vector<uint16_t> w = Bf16s({1.f, 2.f, 3.f});
  const halnorm_tensor t = Vector(w.data(), HALNORM_BF16, 3);
  const float* first = KeptF32Param(t, 3, 0.f);
  EXPECT_EQ(KeptF32Param(t, 3, 0.f), first);
  EXPECT_EQ(first[2], 3.f);
}

TEST(KeptF32ParamTest, AChangedSourceIsConvertedAgain) {
  std::vector<uint16_t> w = Bf16s({1.f, 2.f, 3.f});
  const halnorm_tensor t = Vector(w.data(), HALNORM_BF16, 3);
  EXPECT_EQ(KeptF32Param(t, 3, 0.f)[1], 2.f);
  w[1] = FloatToBf16(-7.f);  // an optimizer step, in place
  EXPECT_EQ(KeptF32Param(t, 3, 0.f)[1], -7.f);
  // Another offset, count or dtype over the same bytes is another copy.
  EXPECT_EQ(KeptF32Param(t, 3, 0.5f)[1], -6.5f);
  EXPECT_EQ(KeptF32Param(t, 2, 0.f)[0], 1.f);
  const float* as_f16 = KeptF32Param(Vector(w.data(), HALNORM_F16, 3), 3, 0.f);
  EXPECT_EQ(as_f16[1], HalfToFloat(w[1]));
}

TEST(KeptF32ParamTest, KeepsTheMostRecentSourcesApart) {
  // More sources than copies kept: each stays right, and the last
  // kKeptParams - 1 (with the newest) stay valid together.
  constexpr int kSources = 3 * kKeptParams;
  std::vector<std::vector<uint16_t>> sources;
  for (int i = 0; i < kSources; i++) sources.push_back(Bf16s({float(i), float(-i)}));
  std::vector<const float*> got;
  for (int i = 0; i < kSources; i++) {
    got.push_back(KeptF32Param(Vector(sources[i].data(), HALNORM_BF16, 2), 2, 0.f));
    for (int j = std::max(0, i - (kKeptParams - 1)); j <= i; j++) {
      ASSERT_EQ(got[j][0], float(j)) << "source " << j << " after " << i;
      ASSERT_EQ(got[j][1], float(-j)) << "source " << j << " after " << i;
    }
  }
}

TEST(KeptF32ParamTest, EachThreadHasItsOwnCopies) {
  std::vector<uint16_t> w = Bf16s({4.f});
  const halnorm_tensor t = Vector(w.data(), HALNORM_BF16, 1);
  const float* here = KeptF32Param(t, 1, 0.f);
  const float* there = nullptr;
  std::thread([&] { there = KeptF32Param(t, 1, 0.f); }).join();
  EXPECT_NE(here, there);
  EXPECT_EQ(*here, 4.f);
}

// KernelParam reads small sources through the kept copies and converts
// larger ones for the call alone; both with the right values.
TEST(KeptF32ParamTest, KernelParamKeepsSmallSourcesOnly) {
  for (int64_t count : {int64_t{1000}, kMaxKeptParamBytes / 2 + 1}) {
    SCOPED_TRACE(count);
    std::vector<uint16_t> w(count);
    for (int64_t i = 0; i < count; i++) w[i] = FloatToBf16(float(i % 251) - 100.f);
    const halnorm_tensor t = Vector(w.data(), HALNORM_BF16, count);
    KernelParam param(&t, count, w.data(), 0.5f);
    const float* values = reinterpret_cast<const float*>(param.buffer()->host);
    if (count * 2 <= kMaxKeptParamBytes) EXPECT_EQ(values, KeptF32Param(t, count, 0.5f));
    for (int64_t i = 0; i < count; i++) {
      ASSERT_EQ(values[i], float(i % 251) - 99.5f) << "element " << i;
    }
  }
}

}  // namespace
}  // namespace halnorm::internal
