// Timing kernels on one problem, side by side, and progress lines with an ETA.
#ifndef HALNORM_TOOLS_AUTOTUNE_MEASURE_H_
#define HALNORM_TOOLS_AUTOTUNE_MEASURE_H_

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace halnorm::autotune {

struct SideBySideOptions {
  int rounds = 3;         // rounds every call takes part in
  int extra_rounds = 12;  // more rounds for the calls close to the best
  double slack = 0.10;    // "close": median within 10% of the best median
  // A call that gets the extra rounds however slow it is, -1 none: the
  // runtime mode's dispatch, whose ratio to the best it reports, so that
  // ratio rests on as many samples as the best's.
  int always_refined = -1;
};

struct SideBySideTimes {
  std::vector<double> seconds;       // per call: median seconds; +infinity if it failed
  std::vector<absl::Status> status;  // per call: its first run's error, if any
};

// Times competing calls on the same problem so that their ratios are fair on
// a noisy machine: each round times one batch (>= 10 ms) of every call, in
// rotating order, so a slow spell of the machine hits all of them alike. The
// calls within `slack` of the best then get `extra_rounds` more, so that near
// ties, the only choices that matter, are decided on many samples. (Timing
// each call on its own and taking the minimum over candidates favours
// whichever was measured in a quiet moment.)
SideBySideTimes TimeSideBySide(const std::vector<std::function<absl::Status()>>& calls,
                               const SideBySideOptions& options);

// "[ 12/144] 3.2 min, ETA 18 min: <what>" lines on stdout, the ETA from the
// mean time per unit of work so far.
class Progress {
 public:
  explicit Progress(int units) : units_(units), start_(std::chrono::steady_clock::now()) {}
  void Step(const std::string& what, int units = 1);
  double ElapsedMinutes() const;

 private:
  int units_, done_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace halnorm::autotune

#endif  // HALNORM_TOOLS_AUTOTUNE_MEASURE_H_
