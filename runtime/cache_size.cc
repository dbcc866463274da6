#include "runtime/cache_size.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

#include <unistd.h>

namespace halnorm::internal {
namespace {

// The first line of a sysfs file, or "" when it cannot be read.
std::string FirstLine(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

int64_t ReadLastLevelCacheBytes() {
  int highest_level = 0;
  int64_t bytes = 0;
  int sharing_cpus = 0;
  // index0, index1, ...: one per cache (L1 data and instruction are two).
  for (int index = 0;; index++) {
    const std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    const std::string level_text = FirstLine(dir + "level");
    if (level_text.empty()) break;
    const int level = std::atoi(level_text.c_str());
    const int64_t size = ParseCacheSize(FirstLine(dir + "size"));
    if (level > highest_level && size > 0) {
      highest_level = level;
      bytes = size;
      sharing_cpus = CountCpuList(FirstLine(dir + "shared_cpu_list"));
    }
  }
  return UsableCacheBytes(bytes, sharing_cpus);
}

// glibc's CPUID figures, for where sysfs lists no caches at all.
int64_t ReadCpuidCacheBytes() {
  return CpuidCacheBytes(sysconf(_SC_LEVEL3_CACHE_SIZE), sysconf(_SC_LEVEL2_CACHE_SIZE),
                         sysconf(_SC_NPROCESSORS_ONLN));
}

// A CPU number of a sysfs list ("12"); -1 for anything else.
int ParseCpuNumber(std::string_view text) {
  if (text.empty() || text.size() > 5) return -1;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return -1;
    value = value * 10 + (c - '0');
  }
  return value;
}

}  // namespace

int64_t ParseCacheSize(std::string_view text) {
  constexpr int64_t kMaxBytes = int64_t{1} << 40;  // no cache is a TiB
  int64_t value = 0;
  size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; i++) {
    if (value > kMaxBytes) return 0;
    value = value * 10 + (text[i] - '0');
  }
  if (i == 0) return 0;
  const std::string_view unit = text.substr(i);
  const int shift = unit.empty() ? 0 : unit == "K" ? 10 : unit == "M" ? 20 : unit == "G" ? 30 : -1;
  if (shift < 0 || value > (kMaxBytes >> shift)) return 0;
  return value << shift;
}

int CountCpuList(std::string_view text) {
  constexpr int kMaxCpus = 1 << 16;
  int count = 0;
  for (size_t start = 0;;) {
    const size_t comma = text.find(',', start);
    const std::string_view range =
        text.substr(start, comma == std::string_view::npos ? comma : comma - start);
    const size_t dash = range.find('-');
    const int first = ParseCpuNumber(range.substr(0, dash));
    const int last = dash == std::string_view::npos ? first : ParseCpuNumber(range.substr(dash + 1));
    if (first < 0 || last < first) return 0;
    count += last - first + 1;
    if (count > kMaxCpus) return 0;
    if (comma == std::string_view::npos) return count;
    start = comma + 1;
  }
}

int64_t UsableCacheBytes(int64_t listed_bytes, int sharing_cpus) {
  if (sharing_cpus <= 0) return listed_bytes;
  return std::min(listed_bytes, sharing_cpus * kMaxCacheBytesPerCpu);
}

int64_t CpuidCacheBytes(int64_t l3_bytes, int64_t l2_bytes, int64_t online_cpus) {
  const int64_t listed = l3_bytes > 0 ? l3_bytes : std::max<int64_t>(l2_bytes, 0);
  constexpr int64_t kMaxCpus = 1 << 16;
  return UsableCacheBytes(listed, static_cast<int>(std::clamp<int64_t>(online_cpus, 0, kMaxCpus)));
}

int64_t CacheBytesOverride(const char* mib_text) {
  if (mib_text == nullptr || *mib_text < '0' || *mib_text > '9') return 0;
  return ParseCacheSize(std::string(mib_text) + "M");
}

int64_t LastLevelCacheBytes() {
  static const int64_t bytes = [] {
    const int64_t forced = CacheBytesOverride(std::getenv("HALNORM_LLC_MIB"));
    if (forced > 0) return forced;
    const int64_t listed = ReadLastLevelCacheBytes();
    return listed > 0 ? listed : ReadCpuidCacheBytes();
  }();
  return bytes;
}

}  // namespace halnorm::internal
