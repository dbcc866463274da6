// The last-level cache size (sysfs, or HALNORM_LLC_MIB: read once, so one
// test target per setting) and the streaming threshold built on it.
#include "runtime/cache_size.h"

#include <cstdlib>

#include "gtest/gtest.h"
#include "runtime/streaming_stores.h"

namespace halnorm::internal {
namespace {

TEST(CacheSizeTest, ParsesSysfsSizes) {
  EXPECT_EQ(ParseCacheSize("32768K"), int64_t{32} << 20);
  EXPECT_EQ(ParseCacheSize("1M"), int64_t{1} << 20);
  EXPECT_EQ(ParseCacheSize("2G"), int64_t{2} << 30);
  EXPECT_EQ(ParseCacheSize("512"), 512);
}

TEST(CacheSizeTest, RejectsWhatIsNotASize) {
  for (const char* text : {"", "K", "-1K", "12X", "12 K", "1KB", "99999999999999999999K",
                           "2000000G"}) {
    EXPECT_EQ(ParseCacheSize(text), 0) << text;
  }
}

TEST(CacheSizeTest, ParsesTheOverrideInMib) {
  EXPECT_EQ(CacheBytesOverride("64"), int64_t{64} << 20);
  EXPECT_EQ(CacheBytesOverride("1"), int64_t{1} << 20);
  for (const char* text : {"", "0", "-8", "+8", "64M", "64K", "6.5", "x", "99999999999"}) {
    EXPECT_EQ(CacheBytesOverride(text), 0) << text;
  }
  EXPECT_EQ(CacheBytesOverride(nullptr), 0);
}

TEST(CacheSizeTest, TheOverrideReplacesSysfs) {
  const char* mib = std::getenv("HALNORM_LLC_MIB");
  if (mib == nullptr) GTEST_SKIP() << "HALNORM_LLC_MIB unset: sysfs decides";
  EXPECT_EQ(LastLevelCacheBytes(), CacheBytesOverride(mib));
  EXPECT_EQ(StreamingMinFootprint(), 2 * CacheBytesOverride(mib));
}

TEST(CacheSizeTest, StreamingStartsAtTwiceTheLastLevelCache) {
  const int64_t cache = LastLevelCacheBytes();
  if (cache == 0) {
    EXPECT_EQ(StreamingMinFootprint(), int64_t{16} << 20);
    GTEST_SKIP() << "sysfs lists no caches here; checked the 16 MiB fallback";
  }
  EXPECT_GE(cache, int64_t{256} << 10) << "a last level smaller than any L2";
  EXPECT_EQ(StreamingMinFootprint(), 2 * cache);
}

}  // namespace
}  // namespace halnorm::internal
