#include "tools/autotune/measure.h"

#include <cstdio>

#include "bench/timing.h"

namespace halnorm::autotune {

absl::StatusOr<double> SecondsPerCall(bench::NormProblem& problem,
                                      internal::Direction direction,
                                      const internal::Variant* variant, int repetitions) {
  if (absl::Status first = problem.Run(direction, variant); !first.ok()) return first;
  return bench::MedianSecondsPerCall([&] { (void)problem.Run(direction, variant); }, repetitions);
}

double Progress::ElapsedMinutes() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() / 60;
}

void Progress::Step(const std::string& what) {
  done_++;
  const double elapsed = ElapsedMinutes();
  const double eta = elapsed / done_ * (steps_ - done_);
  std::printf("[%4d/%d] %5.1f min, ETA %5.1f min: %s\n", done_, steps_, elapsed, eta,
              what.c_str());
  std::fflush(stdout);
}

}  // namespace halnorm::autotune
