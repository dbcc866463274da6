#include "bench/hot_copy.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "bench/timing.h"

namespace halnorm::bench {
namespace {

// Runs job(thread_index) on `threads` threads (the caller is thread 0): the
// workers spin on a generation counter, so a dispatch costs ~100 ns.
class SpinningPool {
 public:
  SpinningPool(int threads, std::function<void(int)> job) : job_(std::move(job)) {
    for (int t = 1; t < threads; t++) workers_.emplace_back([this, t] { Work(t); });
  }
  ~SpinningPool() {
    stop_ = true;
    generation_.fetch_add(1);
    for (auto& w : workers_) w.join();
  }

  void Run() {
    pending_.store(static_cast<int>(workers_.size()));
    generation_.fetch_add(1, std::memory_order_release);
    job_(0);
    while (pending_.load(std::memory_order_acquire) != 0) {
    }
  }

 private:
  void Work(int index) {
    long seen = 0;
    for (;;) {
      long now;
      while ((now = generation_.load(std::memory_order_acquire)) == seen) {
      }
      seen = now;
      if (stop_) return;
      job_(index);
      pending_.fetch_sub(1, std::memory_order_acq_rel);
    }
  }

  std::function<void(int)> job_;
  std::vector<std::thread> workers_;
  std::atomic<long> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
};

// [begin, end) of `count` items for thread `t` of `threads`.
size_t Begin(size_t count, int t, int threads) { return count * t / threads; }

// `count` arrays of `bytes` each in one allocation, 64-byte aligned, array k
// starting k KiB past a page boundary: arrays a multiple of 4 KiB apart
// alias in the store buffer, and AMD's `rep movsb` (glibc's memcpy at these
// sizes) runs at a tenth of its speed when source and destination are close
// modulo 4 KiB.
class StaggeredArrays {
 public:
  StaggeredArrays(int count, size_t bytes)
      : stride_((bytes + 4095) / 4096 * 4096 + 4096), storage_(count * stride_ + 64 * 1024, 1) {}
  char* operator[](int k) {
    const auto base = reinterpret_cast<uintptr_t>(storage_.data());
    return reinterpret_cast<char*>((base + 4095) / 4096 * 4096 + k * stride_ + k * 1024);
  }

 private:
  size_t stride_;
  std::vector<char> storage_;
};

}  // namespace

double HotCopyBytesPerSecond(size_t bytes, int threads, int repetitions) {
  StaggeredArrays arrays(2, bytes);
  char *a = arrays[0], *c = arrays[1];
  SpinningPool pool(threads, [&](int t) {
    const size_t begin = Begin(bytes, t, threads), end = Begin(bytes, t + 1, threads);
    std::memcpy(c + begin, a + begin, end - begin);
  });
  return 2.0 * bytes / MedianSecondsPerCall([&] { pool.Run(); }, repetitions);
}

double HotAddBytesPerSecond(size_t bytes, int threads, int repetitions) {
  const size_t count = std::max<size_t>(1, bytes / sizeof(float));
  StaggeredArrays arrays(3, count * sizeof(float));
  auto* a = reinterpret_cast<const float*>(arrays[0]);
  auto* b = reinterpret_cast<const float*>(arrays[1]);
  auto* c = reinterpret_cast<float*>(arrays[2]);
  SpinningPool pool(threads, [&](int t) {
    const size_t begin = Begin(count, t, threads), end = Begin(count, t + 1, threads);
    for (size_t i = begin; i < end; i++) c[i] = a[i] + b[i];
  });
  return 3.0 * sizeof(float) * count / MedianSecondsPerCall([&] { pool.Run(); }, repetitions);
}

}  // namespace halnorm::bench
