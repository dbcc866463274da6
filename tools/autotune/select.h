// Choosing the configs to build from a search's timings: a small set that is
// near the best found on every grid point, and the config each bucket uses.
#ifndef HALNORM_TOOLS_AUTOTUNE_SELECT_H_
#define HALNORM_TOOLS_AUTOTUNE_SELECT_H_

#include <vector>

namespace halnorm::autotune {

// seconds[c][p]: median seconds per call of config c on grid point p;
// +infinity where c failed to compile or run there.
using Timings = std::vector<std::vector<double>>;

// How many of a capped cover's slots go to the worst-served points.
constexpr int kWorstShapeSlots = 2;

// Greedy set cover: repeatedly takes the config that is within `tolerance`
// (0.03 = 3%) of the per-point best on the most points not yet covered (ties:
// the lower geomean over all points), until every point is covered. Capped
// at `max_configs` (each config is ~20 more kernels to build): if points are
// still uncovered when kWorstShapeSlots slots are left, those slots go to the
// config that lifts the worst point most instead, since counting leaves
// alone the odd shapes only one config serves. Returns config indices in the
// order taken (the first covers the most points; it becomes config 0, the
// default for buckets the table lacks).
std::vector<int> CoverWithinTolerance(const Timings& seconds, double tolerance,
                                      int max_configs);

// Of `chosen`, the config for a bucket holding `points`: the one whose worst
// point is closest to that point's best (so no shape of the bucket is left
// far behind), ties broken by the lower geomean.
int BestOver(const Timings& seconds, const std::vector<int>& chosen,
             const std::vector<int>& points);

// The best time on point p over all configs.
double BestTime(const Timings& seconds, int point);

}  // namespace halnorm::autotune

#endif  // HALNORM_TOOLS_AUTOTUNE_SELECT_H_
