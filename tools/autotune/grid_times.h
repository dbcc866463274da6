// The runtime mode's timings of the shape grid, and their CSV:
// --timings_csv writes it, --merge_timings reads it back as more runs (of
// another machine of the same target, say), so that a bucket's pick weighs
// them all.
#ifndef HALNORM_TOOLS_AUTOTUNE_GRID_TIMES_H_
#define HALNORM_TOOLS_AUTOTUNE_GRID_TIMES_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/variant_registry.h"
#include "tools/autotune/search_space.h"

namespace halnorm::autotune {

struct PointTimes {
  std::vector<const internal::Variant*> candidates;
  std::vector<double> seconds;  // per candidate
  double dispatch_seconds;      // what dispatch picked (built-in table or loaded file)
};

// times[run][p]: grid point p timed in run `run`, every candidate and
// dispatch side by side.
using GridTimes = std::vector<std::vector<PointTimes>>;

// The variants a grid point is timed on, in a fixed order.
using PointCandidates = std::function<std::vector<const internal::Variant*>(const GridPoint&)>;

// "# halnorm timings, library fingerprint 0x...", then the header
// "run,point,variant,seconds" and one row per timing (variant "dispatch":
// the call as built), runs numbered from 1.
std::string GridTimesCsv(const std::vector<GridPoint>& grid, const GridTimes& times);

// The runs of such a CSV for `grid`. The fingerprint must be this library's
// (config indices mean nothing across builds of other tuned configs); every
// run must time every point of `grid` on each of `candidates(point)` and
// dispatch (points outside the grid are skipped). Errors name the line or
// the missing timing.
absl::StatusOr<GridTimes> ParseGridTimesCsv(absl::string_view csv,
                                            const std::vector<GridPoint>& grid,
                                            const PointCandidates& candidates);

}  // namespace halnorm::autotune

#endif  // HALNORM_TOOLS_AUTOTUNE_GRID_TIMES_H_
