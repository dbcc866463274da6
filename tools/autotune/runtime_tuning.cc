#include "tools/autotune/runtime_tuning.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/norm_problem.h"
#include "runtime/tuning_file.h"
#include "runtime/variant_index.h"
#include "tools/autotune/measure.h"
#include "tools/autotune/select.h"

namespace halnorm::autotune {
namespace {

using internal::Variant;

// The compiled variants dispatch chooses among for `g`: those of the target
// it runs for g's kind when that target shares `target`'s table (bf16 on
// x86_avx512_bf16 for x86_avx512), else `target`'s own. Fused-residual
// forwards share their plain forward's entry.
std::vector<const Variant*> CandidatesFor(const GridPoint& g, const TargetInfo& target) {
  const internal::VariantIndex& index = internal::VariantIndex::Get();
  const int dispatched = index.DispatchTarget({g.op, g.direction, g.dtype, false});
  const std::string key = dispatched >= 0 && target.SharesTable(index.target_name(dispatched))
                              ? index.target_name(dispatched)
                              : target.key;
  std::vector<const Variant*> out;
  for (const Variant& v : internal::AllVariants()) {
    if (v.op == g.op && v.direction == g.direction && v.dtype == g.dtype && !v.fused_residual &&
        v.target == key) {
      out.push_back(&v);
    }
  }
  return out;
}

struct PointTimes {
  std::vector<const Variant*> candidates;
  std::vector<double> seconds;  // per candidate
  double dispatch_seconds;      // what dispatch picks today (built-in table or loaded file)
};

}  // namespace

absl::StatusOr<internal::TuningFile> RunRuntimeTuning(const Scope& scope,
                                                      const TargetInfo& target,
                                                      const SideBySideOptions& timing,
                                                      const std::string& out_path) {
  if (out_path.empty()) return absl::InvalidArgumentError("--out: the tuning file to write");
  const std::vector<GridPoint> grid = ShapeGrid(scope);
  Progress progress(static_cast<int>(grid.size()));
  std::vector<PointTimes> times(grid.size());
  std::mt19937 rng(7);
  // One problem per (op, dtype, shape), shared by both directions; the
  // forward runs first so the backward reads real statistics.
  std::map<std::tuple<internal::Op, halnorm_dtype, std::vector<int64_t>>,
           std::unique_ptr<bench::NormProblem>>
      problems;
  for (size_t p = 0; p < grid.size(); p++) {
    const GridPoint& g = grid[p];
    auto& problem = problems[{g.op, g.dtype, g.shape}];
    if (!problem) {
      problem = std::make_unique<bench::NormProblem>(g.op, g.dtype, g.shape, rng);
      (void)problem->Forward();
    }
    PointTimes& t = times[p];
    t.candidates = CandidatesFor(g, target);
    // The candidates and dispatch itself (nullptr), side by side.
    std::vector<std::function<absl::Status()>> calls;
    for (const Variant* v : t.candidates) {
      calls.push_back([&instance = *problem, &g, v] { return instance.Run(g.direction, v); });
    }
    calls.push_back([&instance = *problem, &g] { return instance.Run(g.direction, nullptr); });
    SideBySideTimes measured = TimeSideBySide(calls, timing);
    for (const absl::Status& s : measured.status) {
      if (!s.ok()) return s;
    }
    t.dispatch_seconds = measured.seconds.back();
    measured.seconds.pop_back();
    t.seconds = std::move(measured.seconds);
    progress.Step(absl::StrCat(g.Describe(), ": ", t.candidates.size(), " variants"));
  }

  // Per bucket, the variant with the lowest geomean over its points.
  const std::map<BucketKey, std::vector<int>> buckets = GroupByBucket(grid);
  internal::TuningFile file;
  double log_dispatch = 0, log_table = 0, worst = 1;
  std::string worst_point;
  for (const auto& [key, points] : buckets) {
    const PointTimes& first = times[points[0]];
    Timings seconds(first.candidates.size());
    for (size_t c = 0; c < first.candidates.size(); c++) {
      for (int p : points) seconds[c].push_back(times[p].seconds[c]);
    }
    std::vector<int> all(first.candidates.size()), bucket_points(points.size());
    for (size_t c = 0; c < all.size(); c++) all[c] = c;
    for (size_t i = 0; i < points.size(); i++) bucket_points[i] = i;
    const int chosen = BestOver(seconds, all, bucket_points);
    file.entries.push_back({grid[points[0]].hidden_bucket, grid[points[0]].row_bucket,
                            first.candidates[chosen]});
    for (size_t i = 0; i < points.size(); i++) {
      const double best = BestTime(seconds, i);
      const double dispatch = best / times[points[i]].dispatch_seconds;
      log_dispatch += std::log(dispatch);
      log_table += std::log(best / seconds[chosen][i]);
      if (dispatch < worst) worst = dispatch, worst_point = grid[points[i]].Describe();
    }
  }
  std::ofstream out(out_path);
  out << file.ToText();
  out.close();
  if (!out) return absl::UnavailableError(absl::StrCat("--out: cannot write ", out_path));
  const double n = static_cast<double>(grid.size());
  std::printf(
      "\ndispatch as built (%s) vs the per-shape best compiled variant: geomean %.3f, "
      "worst %.3f (%s)\nthe new tuning file's picks vs the per-shape best: geomean %.3f\n"
      "wrote %s (%zu entries); load it with HALNORM_TUNING_FILE=%s\n",
      halnorm_tuning_source(), std::exp(log_dispatch / n), worst, worst_point.c_str(),
      std::exp(log_table / n), out_path.c_str(), file.entries.size(), out_path.c_str());
  return file;
}

}  // namespace halnorm::autotune
