#include "bench/hot_copy.h"

#include <atomic>
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

}  // namespace

double HotCopyBytesPerSecond(size_t bytes, int threads, int repetitions) {
  std::vector<char> a(bytes, 1), c(bytes);
  SpinningPool pool(threads, [&](int t) {
    const size_t begin = Begin(bytes, t, threads), end = Begin(bytes, t + 1, threads);
    std::memcpy(c.data() + begin, a.data() + begin, end - begin);
  });
  return 2.0 * bytes / MedianSecondsPerCall([&] { pool.Run(); }, repetitions);
}

double HotAddBytesPerSecond(size_t bytes, int threads, int repetitions) {
  const size_t count = std::max<size_t>(1, bytes / sizeof(float));
  std::vector<float> a(count, 1.f), b(count, 2.f), c(count);
  SpinningPool pool(threads, [&](int t) {
    const size_t begin = Begin(count, t, threads), end = Begin(count, t + 1, threads);
    for (size_t i = begin; i < end; i++) c[i] = a[i] + b[i];
  });
  return 3.0 * sizeof(float) * count / MedianSecondsPerCall([&] { pool.Run(); }, repetitions);
}

}  // namespace halnorm::bench
