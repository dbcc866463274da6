// Cold-cache timing for the report runner's --cold mode: before each timed
// call, read a buffer larger than any cache the process may use, so the call
// finds its inputs (and its output's lines) in DRAM, as the first call on
// tensors produced long before would, not in the cache a repeated call
// leaves them in.
#ifndef HALNORM_BENCH_CACHE_EVICTION_H_
#define HALNORM_BENCH_CACHE_EVICTION_H_

#include <cstddef>
#include <cstdint>

#include "bench/cache_line_allocator.h"

namespace halnorm::bench {

// Twice the largest L3 a VM here lists (480 MiB of a host socket, shared with
// other tenants: runtime/cache_size.h): twice, because with a non-inclusive
// LLC the lines leaving a core's L2 land in it as victims, and its
// replacement is only roughly LRU.
constexpr int64_t kDefaultEvictionBytes = int64_t{1} << 30;

class CacheEvictor {
 public:
  explicit CacheEvictor(int64_t bytes = kDefaultEvictionBytes);

  // Reads the whole buffer, on `threads` threads so each core's private
  // caches are evicted too. Its lines are clean after the first call, so no
  // write-back spills into the next timed call.
  void Evict(int threads) const;

 private:
  AlignedVector<uint64_t> words_;
};

// Reads `bytes` bytes at `data` (summing them as 64-bit words): a consumer
// reading a kernel's output, as the next op of a model would.
void ReadBack(const void* data, size_t bytes);

}  // namespace halnorm::bench

#endif  // HALNORM_BENCH_CACHE_EVICTION_H_
