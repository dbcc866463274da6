#include "tools/autotune/runtime_tuning.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bench/norm_problem.h"
#include "runtime/builtin_tuning.h"
#include "runtime/halnorm_c.h"
#include "runtime/tuning_file.h"
#include "runtime/variant_index.h"
#include "tools/autotune/grid_times.h"
#include "tools/autotune/measure.h"
#include "tools/autotune/select.h"

namespace halnorm::autotune {
namespace {

using internal::Variant;

// Tuned dispatch's goal on every grid shape: at least 0.90 of the speed of
// the best compiled variant.
constexpr double kWorstShapeLine = 0.90;

// The compiled variants dispatch chooses among for `g`: those of the target
// it runs for g's kind when that target shares `target`'s table (bf16 on
// x86_avx512_bf16 for x86_avx512), else `target`'s own. Fused-residual
// forwards share their plain forward's entry, and so do native-params ones,
// which dispatch runs on fewer rows than the grid has (search_space.cc).
std::vector<const Variant*> CandidatesFor(const GridPoint& g, const TargetInfo& target) {
  const internal::VariantIndex& index = internal::VariantIndex::Get();
  const internal::VariantKind kind{g.op, g.direction, g.dtype, false};
  const int dispatched = index.DispatchTarget(kind);
  const bool shared = dispatched >= 0 && target.SharesTable(index.target_name(dispatched));
  return index.Configs(kind, shared ? dispatched : index.TargetIndex(target.key));
}

// "run 2: " before a line about one of several runs; nothing with one run.
std::string RunLabel(int run, int runs) {
  return runs > 1 ? absl::StrCat("run ", run + 1, ": ") : "";
}

absl::StatusOr<GridTimes> TimeGrid(const std::vector<GridPoint>& grid, const TargetInfo& target,
                                   const SideBySideOptions& timing, int runs) {
  Progress progress(static_cast<int>(grid.size()) * runs);
  // Each point sets its own thread limit; the caller gets the default back.
  struct DefaultThreadsAtExit {
    ~DefaultThreadsAtExit() { halnorm_set_num_threads(0); }
  } default_threads_at_exit;
  GridTimes times(runs, std::vector<PointTimes>(grid.size()));
  std::mt19937 rng(7);
  // One problem per (op, dtype, shape), shared by both directions and all
  // runs; the forward runs first so the backward reads real statistics.
  std::map<std::tuple<internal::Op, halnorm_dtype, std::vector<int64_t>>,
           std::unique_ptr<bench::NormProblem>>
      problems;
  for (int run = 0; run < runs; run++) {
    for (size_t p = 0; p < grid.size(); p++) {
      const GridPoint& g = grid[p];
      auto& problem = problems[{g.op, g.dtype, g.shape}];
      if (!problem) {
        problem = std::make_unique<bench::NormProblem>(g.op, g.dtype, g.shape, rng);
        (void)problem->Forward();
      }
      PointTimes& t = times[run][p];
      halnorm_set_num_threads(g.threads);
      t.candidates = CandidatesFor(g, target);
      std::vector<std::function<absl::Status()>> calls;
      for (const Variant* v : t.candidates) {
        calls.push_back([&instance = *problem, &g, v] { return instance.Run(g.direction, v); });
      }
      calls.push_back([&instance = *problem, &g] { return instance.Run(g.direction, nullptr); });
      SideBySideOptions dispatch_refined = timing;
      dispatch_refined.always_refined = static_cast<int>(calls.size()) - 1;
      SideBySideTimes measured = TimeSideBySide(calls, dispatch_refined);
      for (const absl::Status& s : measured.status) {
        if (!s.ok()) return s;
      }
      t.dispatch_seconds = measured.seconds.back();
      measured.seconds.pop_back();
      t.seconds = std::move(measured.seconds);
      progress.Step(
          absl::StrCat(RunLabel(run, runs), g.Describe(), ": ", t.candidates.size(), " variants"));
    }
  }
  return times;
}

// The median of an even count is the mean of the two middle values here
// (measure.h's Median takes the upper one: of 2 runs, the better).
double MiddleValue(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// Each --merge_timings file's runs, in file order.
absl::StatusOr<GridTimes> ReadMergedRuns(const std::vector<std::string>& paths,
                                         const std::vector<GridPoint>& grid,
                                         const TargetInfo& target,
                                         std::vector<std::string>& labels) {
  GridTimes merged;
  for (const std::string& path : paths) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) return absl::NotFoundError(absl::StrCat("--merge_timings: cannot read ", path));
    absl::StatusOr<GridTimes> runs = ParseGridTimesCsv(
        text.str(), grid, [&](const GridPoint& g) { return CandidatesFor(g, target); });
    if (!runs.ok()) {
      return absl::Status(runs.status().code(),
                          absl::StrCat("--merge_timings: ", path, ": ", runs.status().message()));
    }
    for (size_t run = 0; run < runs->size(); run++) {
      labels.push_back(absl::StrCat(path, " run ", run + 1));
      merged.push_back(std::move((*runs)[run]));
    }
  }
  return merged;
}

}  // namespace

absl::StatusOr<internal::TuningFile> RunRuntimeTuning(const Scope& scope, const TargetInfo& target,
                                                      const SideBySideOptions& timing,
                                                      const std::string& out_path, int runs,
                                                      std::string* timings_csv,
                                                      const std::vector<std::string>& merge) {
  if (out_path.empty()) return absl::InvalidArgumentError("--out: the tuning file to write");
  if (runs < (merge.empty() ? 1 : 0)) {
    return absl::InvalidArgumentError("--runs: must be >= 1 (>= 0 with --merge_timings)");
  }
  const std::vector<GridPoint> grid = ShapeGrid(scope);
  // Read first: a bad file fails before the minutes of timing.
  std::vector<std::string> merged_labels;
  absl::StatusOr<GridTimes> merged = ReadMergedRuns(merge, grid, target, merged_labels);
  if (!merged.ok()) return merged.status();
  absl::StatusOr<GridTimes> timed = TimeGrid(grid, target, timing, runs);
  if (!timed.ok()) return timed.status();
  if (timings_csv != nullptr) *timings_csv = GridTimesCsv(grid, *timed);
  GridTimes times = std::move(*timed);
  std::vector<std::string> labels;
  for (int run = 0; run < runs; run++) labels.push_back(absl::StrCat("run ", run + 1));
  for (size_t run = 0; run < merged->size(); run++) {
    times.push_back(std::move((*merged)[run]));
    labels.push_back(merged_labels[run]);
  }
  runs = static_cast<int>(times.size());

  // Per bucket: the variant whose worst point, by the geomean over the runs
  // of its time relative to the run's best (select.h GeomeanOverRuns), is
  // closest to 1 (ties: the lower geomean over the points).
  const std::map<BucketKey, std::vector<int>> buckets = GroupByBucket(grid);
  internal::TuningFile file;
  std::vector<double> log_dispatch(runs, 0), worst(runs, 1);
  std::vector<std::string> worst_point(runs);
  // Per point, dispatch's ratio in each run; the median over runs is what a
  // noisy machine's one-off slow spells leave alone.
  double log_median = 0, worst_median = 1;
  std::string worst_median_point;
  std::vector<std::vector<double>> point_ratios(grid.size());  // [grid point][run]
  double log_table = 0;
  for (const auto& [key, points] : buckets) {
    const std::vector<const Variant*>& candidates = times[0][points[0]].candidates;
    std::vector<Timings> per_run(runs, Timings(candidates.size()));  // [run][candidate][point]
    for (int run = 0; run < runs; run++) {
      for (size_t c = 0; c < candidates.size(); c++) {
        for (int p : points) per_run[run][c].push_back(times[run][p].seconds[c]);
      }
    }
    std::vector<int> all(candidates.size()), bucket_points(points.size());
    for (size_t c = 0; c < all.size(); c++) all[c] = c;
    for (size_t i = 0; i < bucket_points.size(); i++) bucket_points[i] = i;
    const int chosen = BestOver(GeomeanOverRuns(per_run), all, bucket_points);
    file.entries.push_back(
        {grid[points[0]].hidden_bucket, grid[points[0]].row_bucket, candidates[chosen]});
    for (size_t i = 0; i < points.size(); i++) {
      std::vector<double> ratios;
      for (int run = 0; run < runs; run++) {
        const double best = BestTime(per_run[run], i);
        const double dispatch = best / times[run][points[i]].dispatch_seconds;
        ratios.push_back(dispatch);
        log_dispatch[run] += std::log(dispatch);
        log_table += std::log(best / per_run[run][chosen][i]);
        if (dispatch < worst[run]) {
          worst[run] = dispatch, worst_point[run] = grid[points[i]].Describe();
        }
      }
      point_ratios[points[i]] = ratios;
      const double median = MiddleValue(std::move(ratios));
      log_median += std::log(median);
      if (median < worst_median) {
        worst_median = median, worst_median_point = grid[points[i]].Describe();
      }
    }
  }
  std::ofstream out(out_path);
  out << file.ToText();
  out.close();
  if (!out) return absl::UnavailableError(absl::StrCat("--out: cannot write ", out_path));
  const double n = static_cast<double>(grid.size());
  const std::vector<std::string>& cpus = internal::BuiltInTableCpus();
  std::printf("\ndispatch as built (%s; %s%s) vs the per-shape best compiled variant:\n",
              halnorm_tuning_source(),
              cpus.empty()
                  ? "default tables"
                  : absl::StrCat(absl::StrJoin(cpus, ", then "), " tables where present").c_str(),
              merge.empty() ? "" : "; merged runs: dispatch as it was in them");
  for (int run = 0; run < runs; run++) {
    std::printf("  %sgeomean %.3f, worst %.3f (%s)\n",
                runs > 1 ? absl::StrCat(labels[run], ": ").c_str() : "",
                std::exp(log_dispatch[run] / n), worst[run], worst_point[run].c_str());
  }
  if (runs > 1) {
    std::printf("  each shape's median over the runs: geomean %.3f, worst %.3f (%s)\n",
                std::exp(log_median / n), worst_median, worst_median_point.c_str());
    const EveryRunMisses misses = BelowInEveryRun(point_ratios, kWorstShapeLine);
    std::printf("  shapes below %.2f in every run: %d", kWorstShapeLine, misses.count);
    if (misses.count > 0) {
      std::printf(" (lowest best run %.3f: %s)", misses.worst,
                  grid[misses.worst_point].Describe().c_str());
    }
    std::printf("\n");
  }
  std::printf(
      "the new tuning file's picks vs the per-shape best%s: geomean %.3f\n"
      "wrote %s (%zu entries); load it with HALNORM_TUNING_FILE=%s\n",
      runs > 1 ? " (all runs)" : "", std::exp(log_table / (n * runs)), out_path.c_str(),
      file.entries.size(), out_path.c_str());
  return file;
}

}  // namespace halnorm::autotune
