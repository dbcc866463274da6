#include "bench/stream.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

namespace halnorm::bench {
namespace {

constexpr int kRepeats = 5;

// Runs body(begin, end) over [0, elements) split across threads; returns the
// median wall time of kRepeats runs after one warm-up.
template <typename Body>
double MedianSeconds(size_t elements, int threads, Body body) {
  std::vector<double> times;
  for (int rep = 0; rep <= kRepeats; rep++) {
    auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; t++) {
      size_t begin = elements * t / threads, end = elements * (t + 1) / threads;
      pool.emplace_back([=] { body(begin, end); });
    }
    for (auto& th : pool) th.join();
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (rep > 0) times.push_back(seconds);  // rep 0 faults the pages in
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

}  // namespace

double StreamCopyBytesPerSecond(size_t elements, int threads) {
  std::vector<float> a(elements, 1.f), c(elements);
  double seconds = MedianSeconds(elements, threads, [&](size_t begin, size_t end) {
    std::copy(a.begin() + begin, a.begin() + end, c.begin() + begin);
  });
  return 2.0 * sizeof(float) * elements / seconds;
}

double StreamAddBytesPerSecond(size_t elements, int threads) {
  std::vector<float> a(elements, 1.f), b(elements, 2.f), c(elements);
  double seconds = MedianSeconds(elements, threads, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; i++) c[i] = a[i] + b[i];
  });
  return 3.0 * sizeof(float) * elements / seconds;
}

}  // namespace halnorm::bench
