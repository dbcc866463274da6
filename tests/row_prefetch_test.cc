// Which CPU row-norm backwards prefetch rows ahead (row_prefetch.h), under
// each HALNORM_ROW_PREFETCH setting (read once: one test target per setting).
#include "runtime/row_prefetch.h"

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace halnorm::internal {
namespace {

std::string Setting() {
  const char* v = std::getenv("HALNORM_ROW_PREFETCH");
  return v ? v : "auto";
}

KernelRequest Backward(Op op, halnorm_dtype dtype, int64_t hidden) {
  return {op, Direction::kBackward, dtype, false, hidden, 4096};
}

TEST(RowPrefetchTest, CpusItSlowsNeverPrefetch) {
  for (const Op op : {Op::kLayerNorm, Op::kRmsNorm}) {
    for (const halnorm_dtype dtype : {HALNORM_F32, HALNORM_F16, HALNORM_BF16}) {
      for (const bool streams : {false, true}) {
        EXPECT_FALSE(PrefetchRowsByDefault(Backward(op, dtype, 2048), streams, false));
      }
    }
  }
}

TEST(RowPrefetchTest, CpusItSpeedsUpPrefetch16BitRowsAlways) {
  for (const halnorm_dtype dtype : {HALNORM_F16, HALNORM_BF16}) {
    for (const int64_t hidden : {512, 768, 2048, 16384}) {
      for (const bool streams : {false, true}) {
        EXPECT_TRUE(PrefetchRowsByDefault(Backward(Op::kLayerNorm, dtype, hidden), streams, true));
      }
    }
  }
}

TEST(RowPrefetchTest, CpusItSpeedsUpPrefetchF32RowsOnlyWhenStreamedAndOf2048To4096) {
  const auto f32 = [](int64_t hidden) { return Backward(Op::kRmsNorm, HALNORM_F32, hidden); };
  EXPECT_FALSE(PrefetchRowsByDefault(f32(1024), true, true));
  EXPECT_FALSE(PrefetchRowsByDefault(f32(2047), true, true));
  EXPECT_TRUE(PrefetchRowsByDefault(f32(2048), true, true));
  EXPECT_TRUE(PrefetchRowsByDefault(f32(4096), true, true));
  EXPECT_FALSE(PrefetchRowsByDefault(f32(4097), true, true));
  EXPECT_FALSE(PrefetchRowsByDefault(f32(4096), false, true));
}

TEST(RowPrefetchTest, TheEnvironmentOverridesTheRule) {
  const std::string setting = Setting();
  if (setting == "auto") GTEST_SKIP() << "the host's rule: checked above";
  for (const halnorm_dtype dtype : {HALNORM_F32, HALNORM_BF16}) {
    for (const bool streams : {false, true}) {
      EXPECT_EQ(PrefetchRows(Backward(Op::kLayerNorm, dtype, 8192), streams), setting == "always");
    }
  }
}

}  // namespace
}  // namespace halnorm::internal
