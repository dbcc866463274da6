#include "bench/cache_eviction.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

namespace halnorm::bench {
namespace {

// Keeps the sums alive so the compiler cannot drop the reads.
std::atomic<uint64_t> sink{0};

// memcpy: the output may start anywhere (--offset_bytes); it compiles to
// plain (unaligned) vector loads.
uint64_t SumBytes(const char* data, size_t bytes) {
  uint64_t sum = 0;
  size_t i = 0;
  for (; i + sizeof(uint64_t) <= bytes; i += sizeof(uint64_t)) {
    uint64_t word;
    std::memcpy(&word, data + i, sizeof(word));
    sum += word;
  }
  for (; i < bytes; i++) sum += static_cast<unsigned char>(data[i]);
  return sum;
}

}  // namespace

CacheEvictor::CacheEvictor(int64_t bytes) : words_(bytes / sizeof(uint64_t), 1) {}

void CacheEvictor::Evict(int threads) const {
  threads = std::max(threads, 1);
  std::vector<std::thread> workers;
  const size_t count = words_.size();
  for (int t = 0; t < threads; t++) {
    const size_t begin = count * t / threads, end = count * (t + 1) / threads;
    workers.emplace_back([this, begin, end] {
      const char* part = reinterpret_cast<const char*>(words_.data() + begin);
      sink.fetch_add(SumBytes(part, (end - begin) * sizeof(uint64_t)), std::memory_order_relaxed);
    });
  }
  for (std::thread& w : workers) w.join();
}

void ReadBack(const void* data, size_t bytes) {
  sink.fetch_add(SumBytes(static_cast<const char*>(data), bytes), std::memory_order_relaxed);
}

}  // namespace halnorm::bench
