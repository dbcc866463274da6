// --mode=schedules: JIT-compiles every schedule config of the knob space (and
// Halide's autoschedulers) for a target, times each on the shape grid, keeps
// a small set of configs within tolerance of the best everywhere, and builds
// the bucket table the runtime dispatches by.
#ifndef HALNORM_TOOLS_AUTOTUNE_SCHEDULE_SEARCH_H_
#define HALNORM_TOOLS_AUTOTUNE_SCHEDULE_SEARCH_H_

#include <map>
#include <string>
#include <vector>

#include "tools/autotune/jit_kernel.h"
#include "tools/autotune/measure.h"
#include "tools/autotune/search_space.h"
#include "tools/autotune/select.h"
#include "tools/autotune/targets.h"
#include "tools/autotune/tuned_bzl.h"

namespace halnorm::autotune {

struct ScheduleSearchOptions {
  Scope scope;
  TargetInfo target;
  SideBySideOptions timing;  // rounds per kernel and shape (measure.h)
  double tolerance = 0.03;
  int max_configs = 5;  // per generator family
  bool autoschedulers = true;
};

struct FamilySearch {
  Family family;
  std::vector<Config> configs;  // the knob space searched
  int default_config;           // index of the hand config in `configs`
  std::vector<GridPoint> points;
  Timings seconds;                                   // [config][point]
  std::map<std::string, std::vector<double>> autoscheduled;  // name -> seconds per point
  std::vector<std::string> failures;                 // what failed to compile or run, and why
  std::vector<int> chosen;  // configs to build, in order (c0, c1, ...)
  std::vector<int> bucket_choice;  // per point: the index into `chosen` its bucket uses

  double TunedSeconds(int point) const { return seconds[chosen[bucket_choice[point]]][point]; }
};

std::vector<FamilySearch> SearchSchedules(const ScheduleSearchOptions& options);

// The JIT kernel of `op`'s generator for `direction` with the knobs of
// `knobs` that direction takes (the backward has no rows_per_task; a knob
// left out keeps the generator's default), claiming (op, direction, dtype).
KernelSpec SpecFor(const TargetInfo& target, internal::Op op, internal::Direction direction,
                   halnorm_dtype dtype, const Config& knobs);

TunedTable ToTunedTable(const std::vector<FamilySearch>& searches, const std::string& target,
                        const std::string& provenance);

// The figures that judge a search: the tuned table against the per-shape
// best (geomean, worst, shapes within tolerance), against the untuned
// defaults, and the autoschedulers against the tuned table.
std::string SearchSummary(const std::vector<FamilySearch>& searches, double tolerance);

// Every timing as CSV (family,point,config,seconds), for offline analysis.
std::string TimingsCsv(const std::vector<FamilySearch>& searches);

}  // namespace halnorm::autotune

#endif  // HALNORM_TOOLS_AUTOTUNE_SCHEDULE_SEARCH_H_
