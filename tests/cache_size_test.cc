// The last-level cache size (sysfs, else sysconf, or HALNORM_LLC_MIB: read
// once, so one test target per setting) and the streaming threshold built on it.
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

TEST(CacheSizeTest, CountsSysfsCpuLists) {
  EXPECT_EQ(CountCpuList("0"), 1);
  EXPECT_EQ(CountCpuList("0-1"), 2);
  EXPECT_EQ(CountCpuList("0,2-5"), 5);
  EXPECT_EQ(CountCpuList("0-7,64-71"), 16);
  for (const char* text : {"", "-", "1-", "-1", "3-2", "0,", ",0", "0,,1", "a", "0-1 ", "123456"}) {
    EXPECT_EQ(CountCpuList(text), 0) << text;
  }
}

TEST(CacheSizeTest, BoundsTheCacheByTheCpusSharingIt) {
  constexpr int64_t kMib = int64_t{1} << 20;
  // The 2-vCPU Intel VM's sysfs: 480 MiB of L3 shared by CPUs 0-1.
  EXPECT_EQ(UsableCacheBytes(480 * kMib, 2), 2 * kMaxCacheBytesPerCpu);
  // The Zen 4 VM: 32 MiB shared by 2 vCPUs; a 64-core socket's 256 MiB.
  EXPECT_EQ(UsableCacheBytes(32 * kMib, 2), 32 * kMib);
  EXPECT_EQ(UsableCacheBytes(256 * kMib, 128), 256 * kMib);
  EXPECT_EQ(UsableCacheBytes(480 * kMib, 0), 480 * kMib);  // sharing not listed
}

TEST(CacheSizeTest, BoundsTheCpuidCacheByTheOnlineCpus) {
  constexpr int64_t kMib = int64_t{1} << 20;
  // The Zen 5 VM: glibc says 508 MiB of L3 and 1 MiB of L2 to 2 vCPUs.
  EXPECT_EQ(CpuidCacheBytes(508 * kMib, kMib, 2), 32 * kMib);
  EXPECT_EQ(CpuidCacheBytes(32 * kMib, kMib, 16), 32 * kMib);
  EXPECT_EQ(CpuidCacheBytes(0, 2 * kMib, 2), 2 * kMib);    // no L3
  EXPECT_EQ(CpuidCacheBytes(-1, 2 * kMib, 2), 2 * kMib);   // sysconf's "unknown"
  EXPECT_EQ(CpuidCacheBytes(508 * kMib, kMib, -1), 508 * kMib);  // CPUs unknown
  EXPECT_EQ(CpuidCacheBytes(0, -1, 2), 0);
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
    GTEST_SKIP() << "neither sysfs nor sysconf knows a cache here; checked the 16 MiB fallback";
  }
  EXPECT_GE(cache, int64_t{256} << 10) << "a last level smaller than any L2";
  EXPECT_EQ(StreamingMinFootprint(), 2 * cache);
}

}  // namespace
}  // namespace halnorm::internal
