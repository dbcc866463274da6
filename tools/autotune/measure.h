// Timing one kernel on one problem, and progress lines with an ETA.
#ifndef HALNORM_TOOLS_AUTOTUNE_MEASURE_H_
#define HALNORM_TOOLS_AUTOTUNE_MEASURE_H_

#include <chrono>
#include <string>

#include "absl/status/statusor.h"
#include "bench/norm_problem.h"
#include "runtime/variant_registry.h"

namespace halnorm::autotune {

// Median seconds per call over `repetitions` batches of >= 10 ms; the
// variant's first call's error if it fails. `variant` nullptr: dispatch.
absl::StatusOr<double> SecondsPerCall(bench::NormProblem& problem,
                                      internal::Direction direction,
                                      const internal::Variant* variant, int repetitions);

// "[ 12/144] 3.2 min, ETA 18 min: <what>" lines on stdout, the ETA from the
// mean time per step so far.
class Progress {
 public:
  explicit Progress(int steps) : steps_(steps), start_(std::chrono::steady_clock::now()) {}
  void Step(const std::string& what);
  double ElapsedMinutes() const;

 private:
  int steps_, done_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace halnorm::autotune

#endif  // HALNORM_TOOLS_AUTOTUNE_MEASURE_H_
