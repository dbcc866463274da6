// --mode=runtime: times the variants this build compiled for a target on the
// shape-bucket grid (no rebuild, no JIT) and writes a tuning file that maps
// each bucket to its fastest variant; also measures how close the current
// dispatch comes to the per-shape best.
#ifndef HALNORM_TOOLS_AUTOTUNE_RUNTIME_TUNING_H_
#define HALNORM_TOOLS_AUTOTUNE_RUNTIME_TUNING_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/tuning_file.h"
#include "tools/autotune/measure.h"
#include "tools/autotune/search_space.h"
#include "tools/autotune/targets.h"

namespace halnorm::autotune {

// Writes the tuning file to `out_path` and returns it. With runs > 1 the
// whole grid is timed that many times, minutes apart, and each bucket gets
// the variant whose worst ratio to the per-shape best over all runs is
// highest: on a noisy machine one run's near ties flip from run to run.
// With `timings_csv`, every timing of these runs too (grid_times.h). The
// runs in the `merge` files (such CSVs of this build's variants, from other
// machines of the target, or earlier runs) join these for the picks and
// the summary; with them, runs may be 0.
absl::StatusOr<internal::TuningFile> RunRuntimeTuning(const Scope& scope, const TargetInfo& target,
                                                      const SideBySideOptions& timing,
                                                      const std::string& out_path, int runs = 1,
                                                      std::string* timings_csv = nullptr,
                                                      const std::vector<std::string>& merge = {});

}  // namespace halnorm::autotune

#endif  // HALNORM_TOOLS_AUTOTUNE_RUNTIME_TUNING_H_
