#include "tools/autotune/measure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "bench/timing.h"

namespace halnorm::autotune {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

SideBySideTimes TimeSideBySide(const std::vector<std::function<absl::Status()>>& calls,
                               const SideBySideOptions& options) {
  const int n = static_cast<int>(calls.size());
  SideBySideTimes times{std::vector<double>(n, std::numeric_limits<double>::infinity()),
                        std::vector<absl::Status>(n)};
  std::vector<long> batch(n, 0);
  std::vector<std::vector<double>> samples(n);
  std::vector<int> running;
  for (int i = 0; i < n; i++) {
    times.status[i] = calls[i]();  // warm-up: pages, thread pools, caches
    if (!times.status[i].ok()) continue;
    const Clock::time_point start = Clock::now();
    (void)calls[i]();  // sizes the batch
    const double warm = std::max(SecondsSince(start), 1e-9);
    batch[i] = std::max(1L, std::lround(std::ceil(bench::kMinRepetitionSeconds / warm)));
    running.push_back(i);
  }
  auto run_rounds = [&](const std::vector<int>& who, int rounds) {
    for (int round = 0; round < rounds; round++) {
      for (size_t k = 0; k < who.size(); k++) {
        const int i = who[(k + round) % who.size()];
        const Clock::time_point start = Clock::now();
        for (long b = 0; b < batch[i]; b++) (void)calls[i]();
        samples[i].push_back(SecondsSince(start) / batch[i]);
      }
    }
    for (int i : who) times.seconds[i] = bench::Median(samples[i]);
  };
  run_rounds(running, options.rounds);
  double best = std::numeric_limits<double>::infinity();
  for (int i : running) best = std::min(best, times.seconds[i]);
  std::vector<int> close;
  for (int i : running) {
    if (times.seconds[i] <= (1 + options.slack) * best || i == options.always_refined) {
      close.push_back(i);
    }
  }
  if (close.size() > 1) run_rounds(close, options.extra_rounds);
  return times;
}

double Progress::ElapsedMinutes() const { return SecondsSince(start_) / 60; }

void Progress::Step(const std::string& what, int units) {
  done_ += units;
  const double elapsed = ElapsedMinutes();
  const double eta = elapsed / done_ * (units_ - done_);
  std::printf("[%4d/%d] %5.1f min, ETA %5.1f min: %s\n", done_, units_, elapsed, eta, what.c_str());
  std::fflush(stdout);
}

}  // namespace halnorm::autotune
