// Median per-call time of a callable, batching calls so each timed
// repetition lasts long enough for the clock (tiny shapes run in ~100 ns).
#ifndef HALNORM_BENCH_TIMING_H_
#define HALNORM_BENCH_TIMING_H_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

namespace halnorm::bench {

constexpr double kMinRepetitionSeconds = 0.01;
// Calls slower than this (the largest shapes) get at most kSlowCallReps
// repetitions: their spread is small next to their length.
constexpr double kSlowCallSeconds = 0.2;
constexpr int kSlowCallReps = 3;

// The upper median (of an even count, the larger middle value).
inline double Median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

// With a `gap`, each call follows a busy wait of that long (a model's other
// work between two calls, which lets thread pools go idle), and only the
// calls are timed.
template <typename Call>
double MedianSecondsPerCall(Call call, int repetitions,
                            std::chrono::microseconds gap = std::chrono::microseconds(0)) {
  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  call();  // warm-up: pages, thread pools, caches
  Clock::time_point start = Clock::now();
  call();  // sizes the batch
  const double warm = std::max(seconds_since(start), 1e-9);
  const double gap_seconds = std::chrono::duration<double>(gap).count();
  const long batch =
      std::max(1L, std::lround(std::ceil(kMinRepetitionSeconds / (warm + gap_seconds))));
  if (warm > kSlowCallSeconds) repetitions = std::min(repetitions, kSlowCallReps);
  std::vector<double> per_call;
  for (int rep = 0; rep < repetitions; rep++) {
    double in_calls = 0;
    if (gap.count() == 0) {
      start = Clock::now();
      for (long i = 0; i < batch; i++) call();
      in_calls = seconds_since(start);
    } else {
      for (long i = 0; i < batch; i++) {
        for (const auto until = Clock::now() + gap; Clock::now() < until;) {
        }
        start = Clock::now();
        call();
        in_calls += seconds_since(start);
      }
    }
    per_call.push_back(in_calls / batch);
  }
  return Median(per_call);
}

// One call per repetition, each right after an untimed `prepare` (evicting
// the caches, say): for calls whose state before the call is the point.
template <typename Prepare, typename Call>
double MedianSecondsPerPreparedCall(Prepare prepare, Call call, int repetitions) {
  using Clock = std::chrono::steady_clock;
  prepare();
  call();  // warm-up: pages, thread pools
  std::vector<double> per_call;
  for (int rep = 0; rep < repetitions; rep++) {
    prepare();
    const Clock::time_point start = Clock::now();
    call();
    per_call.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  return Median(per_call);
}

}  // namespace halnorm::bench

#endif  // HALNORM_BENCH_TIMING_H_
