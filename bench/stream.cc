#include "bench/stream.h"

#include <algorithm>
#include <thread>
#include <vector>

#include "bench/cache_line_allocator.h"
#include "bench/timing.h"

namespace halnorm::bench {
namespace {

constexpr int kRepeats = 5;

// Runs body(begin, end) over [0, elements) split across threads; returns the
// median wall time of kRepeats runs after a warm-up (which faults the pages
// in).
template <typename Body>
double MedianSeconds(size_t elements, int threads, Body body) {
  return MedianSecondsPerCall(
      [&] {
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; t++) {
          size_t begin = elements * t / threads, end = elements * (t + 1) / threads;
          pool.emplace_back([=] { body(begin, end); });
        }
        for (auto& th : pool) th.join();
      },
      kRepeats);
}

}  // namespace

double StreamCopyBytesPerSecond(size_t elements, int threads) {
  AlignedVector<float> a(elements, 1.f), c(elements);
  double seconds = MedianSeconds(elements, threads, [&](size_t begin, size_t end) {
    std::copy(a.begin() + begin, a.begin() + end, c.begin() + begin);
  });
  return 2.0 * sizeof(float) * elements / seconds;
}

double StreamAddBytesPerSecond(size_t elements, int threads) {
  AlignedVector<float> a(elements, 1.f), b(elements, 2.f), c(elements);
  double seconds = MedianSeconds(elements, threads, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; i++) c[i] = a[i] + b[i];
  });
  return 3.0 * sizeof(float) * elements / seconds;
}

}  // namespace halnorm::bench
