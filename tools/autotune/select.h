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

// Repeated timings merged for BestOver: runs[r][c][p] -> [c][p], config c's
// geometric mean over the runs of its time on p relative to that run's best
// on p. Relative times cancel a run's overall drift. The mean, unlike the
// worst run, does not let one slow spell of a config decide (one doubled a
// config 1.5x faster in the other runs), and unlike the median it still
// weighs a config that is fast only in some runs (4-task calls on the 2-vCPU
// VM flip between ~2.0 and ~3.7 us, for minutes at a time, against ~3.1 as
// one task). Over 9 runs of the AVX-512 VM's grid, picks from one set of 3
// runs, timed on the other 6: geomean 0.982-0.992 (median: 0.965-0.997,
// worst run: 0.978-0.989).
Timings GeomeanOverRuns(const std::vector<Timings>& runs);

// The points dispatch served below `line` in every run: ratios[p][r] is
// point p's best time over dispatch's in run r. On a noisy VM a point's
// worst or median run can be a slow spell (the config dispatch runs timed
// 1.5x the best in one run and fastest in the next); a point below the line
// in every run is a pick to fix. `worst` is the lowest of those points' best
// runs, and `worst_point` its index (-1 when count is 0).
struct EveryRunMisses {
  int count = 0;
  double worst = 1;
  int worst_point = -1;
};
EveryRunMisses BelowInEveryRun(const std::vector<std::vector<double>>& ratios, double line);

}  // namespace halnorm::autotune

#endif  // HALNORM_TOOLS_AUTOTUNE_SELECT_H_
