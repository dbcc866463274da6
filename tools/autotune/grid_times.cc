#include "tools/autotune/grid_times.h"

#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "runtime/tuning_file.h"

namespace halnorm::autotune {
namespace {

constexpr absl::string_view kHeader = "run,point,variant,seconds";

std::string FingerprintLine() {
  return absl::StrFormat("# halnorm timings, library fingerprint 0x%016x",
                         internal::LibraryFingerprint());
}

constexpr double kUntimed = std::numeric_limits<double>::quiet_NaN();

}  // namespace

std::string GridTimesCsv(const std::vector<GridPoint>& grid, const GridTimes& times) {
  std::string out = absl::StrCat(FingerprintLine(), "\n", kHeader, "\n");
  for (size_t run = 0; run < times.size(); run++) {
    for (size_t p = 0; p < grid.size(); p++) {
      const PointTimes& t = times[run][p];
      auto row = [&](const char* variant, double seconds) {
        absl::StrAppend(&out, run + 1, ",", grid[p].Describe(), ",", variant, ",",
                        absl::StrFormat("%.9g", seconds), "\n");
      };
      for (size_t c = 0; c < t.candidates.size(); c++) row(t.candidates[c]->name, t.seconds[c]);
      row("dispatch", t.dispatch_seconds);
    }
  }
  return out;
}

absl::StatusOr<GridTimes> ParseGridTimesCsv(absl::string_view csv,
                                            const std::vector<GridPoint>& grid,
                                            const PointCandidates& candidates) {
  std::vector<absl::string_view> lines = absl::StrSplit(csv, '\n', absl::SkipEmpty());
  if (lines.empty() || !absl::StartsWith(lines[0], "# halnorm timings")) {
    return absl::InvalidArgumentError("line 1: not a halnorm timings file (no fingerprint line)");
  }
  if (lines[0] != FingerprintLine()) {
    return absl::FailedPreconditionError(
        absl::StrCat("line 1: timings of another build (", lines[0].substr(2),
                     "; this library's: ", FingerprintLine().substr(2), ")"));
  }
  if (lines.size() < 2 || lines[1] != kHeader) {
    return absl::InvalidArgumentError(absl::StrCat("line 2: expected the header ", kHeader));
  }
  // One empty run of the grid, every timing still missing.
  std::map<std::string, int> point_index;
  std::vector<PointTimes> empty_run(grid.size());
  for (size_t p = 0; p < grid.size(); p++) {
    point_index[grid[p].Describe()] = static_cast<int>(p);
    empty_run[p].candidates = candidates(grid[p]);
    empty_run[p].seconds.assign(empty_run[p].candidates.size(), kUntimed);
    empty_run[p].dispatch_seconds = kUntimed;
  }
  GridTimes times;
  for (size_t i = 2; i < lines.size(); i++) {
    const std::string where = absl::StrCat("line ", i + 1, ": ");
    const std::vector<absl::string_view> fields = absl::StrSplit(lines[i], ',');
    int run;
    double seconds;
    if (fields.size() != 4 || !absl::SimpleAtoi(fields[0], &run) || run < 1 ||
        !absl::SimpleAtod(fields[3], &seconds) || !std::isfinite(seconds) || seconds <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "expected run >= 1, point, variant, seconds > 0: ", lines[i]));
    }
    const auto point = point_index.find(std::string(fields[1]));
    if (point == point_index.end()) continue;  // timed beyond this grid
    if (run > static_cast<int>(times.size())) times.resize(run, empty_run);
    PointTimes& t = times[run - 1][point->second];
    double* slot = nullptr;
    if (fields[2] == "dispatch") slot = &t.dispatch_seconds;
    for (size_t c = 0; c < t.candidates.size() && slot == nullptr; c++) {
      if (t.candidates[c]->name == fields[2]) slot = &t.seconds[c];
    }
    if (slot == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, fields[2], " is not a variant this build times for ", fields[1]));
    }
    *slot = seconds;
  }
  if (times.empty()) return absl::InvalidArgumentError("no timings of this grid's points");
  for (size_t run = 0; run < times.size(); run++) {
    for (size_t p = 0; p < grid.size(); p++) {
      const PointTimes& t = times[run][p];
      std::string missing = std::isnan(t.dispatch_seconds) ? "dispatch" : "";
      for (size_t c = 0; c < t.candidates.size() && missing.empty(); c++) {
        if (std::isnan(t.seconds[c])) missing = t.candidates[c]->name;
      }
      if (!missing.empty()) {
        return absl::InvalidArgumentError(absl::StrCat("run ", run + 1, " has no time for ",
                                                       missing, " on ", grid[p].Describe()));
      }
    }
  }
  return times;
}

}  // namespace halnorm::autotune
