// The size of the CPU's last-level cache, which decides when a call's
// tensors are too large to be read again from cache (streaming_stores.h).
#ifndef HALNORM_RUNTIME_CACHE_SIZE_H_
#define HALNORM_RUNTIME_CACHE_SIZE_H_

#include <cstdint>
#include <string_view>

namespace halnorm::internal {

// Bytes of the highest-level cache Linux lists for CPU 0 in sysfs, at most
// kMaxCacheBytesPerCpu for each CPU it lists as sharing that cache (see
// UsableCacheBytes); where sysfs lists none, CpuidCacheBytes of what
// sysconf says; 0 where neither knows. HALNORM_LLC_MIB=N says N MiB
// instead. Read once. (sysfs first: on the Zen 4 VM sysconf's
// _SC_LEVEL3_CACHE_SIZE says 320 MiB, where sysfs lists the 32 MiB L3 the
// cores share.)
int64_t LastLevelCacheBytes();

// A VM's sysfs may list the whole host socket's cache as shared by the VM's
// few CPUs: 300 MiB on one 2-vCPU Intel VM, where a process got about 64,
// and 480 MiB on another, where LayerNorm f32 forward from 64 MiB of
// tensors up already ran at DRAM speed (1 thread, 2048x4096: 9.5-10.6
// GB/s plain, 17.7-23.5 streaming; 1024x4096 24-25 either way). No CPU has
// more than 12 MiB of L3 a core (Zen 4 X3D), so this bound does not bind
// on bare metal.
constexpr int64_t kMaxCacheBytesPerCpu = int64_t{16} << 20;

// listed_bytes, but at most kMaxCacheBytesPerCpu for each of sharing_cpus;
// listed_bytes itself when sharing_cpus is not known (0).
int64_t UsableCacheBytes(int64_t listed_bytes, int sharing_cpus);

// The last level of glibc's CPUID-derived sizes (L3, else L2; <= 0 for
// unknown) bounded as UsableCacheBytes bounds sysfs's, by the online CPUs:
// a Zen 5 EPYC VM without /sys/devices/system/cpu/cpu0/cache reports the
// whole host's 508 MiB of L3 to its 2 vCPUs (Zen 5 cores share 32 MiB).
int64_t CpuidCacheBytes(int64_t l3_bytes, int64_t l2_bytes, int64_t online_cpus);

// How many CPUs a sysfs CPU list ("0-1", "0,2-5", "3") names; 0 for
// anything else.
int CountCpuList(std::string_view text);

// HALNORM_LLC_MIB's value ("64") in bytes; 0 when null or not a whole
// number of MiB.
int64_t CacheBytesOverride(const char* mib_text);

// A sysfs cache size ("32768K", "1M", "512") in bytes; 0 for anything else.
int64_t ParseCacheSize(std::string_view text);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_CACHE_SIZE_H_
