// The size of the CPU's last-level cache, which decides when a call's
// tensors are too large to be read again from cache (streaming_stores.h).
#ifndef HALNORM_RUNTIME_CACHE_SIZE_H_
#define HALNORM_RUNTIME_CACHE_SIZE_H_

#include <cstdint>
#include <string_view>

namespace halnorm::internal {

// Bytes of the highest-level cache Linux lists for CPU 0 in sysfs, or 0
// where it lists none; HALNORM_LLC_MIB=N says N MiB instead (a VM's sysfs
// may list the whole socket's cache: 300 MiB on the Intel VM, where a
// process got about 64). Read once. (Not sysconf's _SC_LEVEL3_CACHE_SIZE:
// on the Zen 4 VM it says 320 MiB, where sysfs lists the 32 MiB L3 the
// cores share.)
int64_t LastLevelCacheBytes();

// HALNORM_LLC_MIB's value ("64") in bytes; 0 when null or not a whole
// number of MiB.
int64_t CacheBytesOverride(const char* mib_text);

// A sysfs cache size ("32768K", "1M", "512") in bytes; 0 for anything else.
int64_t ParseCacheSize(std::string_view text);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_CACHE_SIZE_H_
