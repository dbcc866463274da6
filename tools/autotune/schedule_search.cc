#include "tools/autotune/schedule_search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/norm_problem.h"
#include "tools/autotune/isolate.h"
#include "tools/autotune/jit_kernel.h"
#include "tools/autotune/measure.h"

namespace halnorm::autotune {
namespace {

using internal::Direction;
using internal::Op;
constexpr double kNotRun = std::numeric_limits<double>::infinity();

const char* GeneratorOf(Family family, Direction direction) {
  const bool forward = direction == Direction::kForward;
  if (family == Family::kRowNorm) return forward ? "row_norm_forward" : "row_norm_backward";
  return forward ? "channel_norm_forward" : "channel_norm_backward";
}

// The configs that compile to the same kernel for `direction` (the backward
// ignores rows_per_task), grouped: one compile serves them all.
std::vector<std::vector<int>> SameKernelGroups(const std::vector<Config>& configs, Family family,
                                               Direction direction) {
  std::map<Config, std::vector<int>> groups;
  for (int c = 0; c < static_cast<int>(configs.size()); c++) {
    Config key;
    for (const std::string& knob : KnobsOf(family, direction)) key[knob] = configs[c].at(knob);
    groups[key].push_back(c);
  }
  std::vector<std::vector<int>> out;
  for (auto& [key, members] : groups) out.push_back(members);
  return out;
}

struct ProblemSet {
  Op op;
  halnorm_dtype dtype;
};

int CountKernels(const ScheduleSearchOptions& o, const std::vector<Config>& configs,
                 Family family, int problem_sets) {
  int per_set = 0;
  for (Direction d : {Direction::kForward, Direction::kBackward}) {
    per_set += static_cast<int>(SameKernelGroups(configs, family, d).size());
    if (o.autoschedulers) per_set += std::size(kAutoschedulers);
  }
  return per_set * problem_sets;
}

// Compiles every kernel of `specs` (one direction's) and times them side by
// side (measure.h) on each point of `points` that has a problem of that
// direction, in one child process (isolate.h). Result: seconds[k * points +
// p]; errors name the kernel and point.
CandidateResult EvaluateTogether(const std::vector<KernelSpec>& specs,
                                 const std::vector<GridPoint>& points,
                                 std::map<int, std::unique_ptr<bench::NormProblem>>& problems,
                                 const SideBySideOptions& timing) {
  const size_t n = points.size();
  return RunIsolated([&] {
    CandidateResult r{std::vector<double>(specs.size() * n, kNotRun), ""};
    std::vector<std::unique_ptr<JitKernel>> kernels(specs.size());
    for (size_t k = 0; k < specs.size(); k++) {
      absl::StatusOr<std::unique_ptr<JitKernel>> kernel = JitKernel::Compile(specs[k]);
      if (kernel.ok()) {
        kernels[k] = *std::move(kernel);
      } else {
        absl::StrAppend(&r.error, r.error.empty() ? "" : "; ", "kernel ", k, ": ",
                        kernel.status().message());
      }
    }
    for (auto& [p, problem] : problems) {
      std::vector<std::function<absl::Status()>> calls;
      std::vector<size_t> which;
      for (size_t k = 0; k < kernels.size(); k++) {
        if (!kernels[k] || kernels[k]->variant().direction != points[p].direction) continue;
        const internal::Variant* variant = &kernels[k]->variant();
        calls.push_back([&instance = *problem, variant] {
          return instance.Run(variant->direction, variant);
        });
        which.push_back(k);
      }
      if (calls.empty()) continue;
      const SideBySideTimes times = TimeSideBySide(calls, timing);
      for (size_t i = 0; i < which.size(); i++) {
        r.seconds[which[i] * n + p] = times.seconds[i];
        if (!times.status[i].ok()) {
          absl::StrAppend(&r.error, r.error.empty() ? "" : "; ", points[p].Describe(), ": ",
                          times.status[i].message(), " ", TakeLastJitError());
        }
      }
    }
    return r;
  });
}

void ChooseAndTabulate(FamilySearch& f, double tolerance, int max_configs) {
  f.chosen = CoverWithinTolerance(f.seconds, tolerance, max_configs);
  if (f.chosen.empty()) f.chosen = {f.default_config};
  // Points of one bucket share a table entry: the chosen config with the
  // lowest geomean over them.
  const std::map<BucketKey, std::vector<int>> buckets = GroupByBucket(f.points);
  f.bucket_choice.assign(f.points.size(), 0);
  for (const auto& [key, points] : buckets) {
    const int config = BestOver(f.seconds, f.chosen, points);
    const int position = std::find(f.chosen.begin(), f.chosen.end(), config) - f.chosen.begin();
    for (int p : points) f.bucket_choice[p] = position;
  }
}

}  // namespace

KernelSpec SpecFor(const TargetInfo& target, Op op, Direction direction, halnorm_dtype dtype,
                   const Config& knobs) {
  const Family family = FamilyOf(op);
  KernelSpec spec;
  spec.generator = GeneratorOf(family, direction);
  spec.halide_target = target.halide_target;
  spec.params["dtype"] = internal::DtypeName(dtype);
  if (family == Family::kRowNorm) spec.params["kind"] = op == Op::kRmsNorm ? "rms" : "layer";
  for (const std::string& knob : KnobsOf(family, direction)) {
    const auto value = knobs.find(knob);
    if (value != knobs.end()) spec.params[knob] = std::to_string(value->second);
  }
  spec.fits = {};
  spec.fits.op = op;
  spec.fits.direction = direction;
  spec.fits.dtype = dtype;
  spec.fits.fused_residual = false;
  spec.fits.target = target.key.c_str();
  spec.fits.isa = target.isa;
  return spec;
}

std::vector<FamilySearch> SearchSchedules(const ScheduleSearchOptions& o) {
  std::vector<FamilySearch> searches;
  const std::vector<GridPoint> grid = ShapeGrid(o.scope);
  int total_kernels = 0;
  for (Family family : {Family::kRowNorm, Family::kChannelNorm}) {
    FamilySearch f{family};
    f.configs = KnobSpace(family, o.target.native_vector_width, o.scope.quick);
    const Config& hand = o.target.DefaultConfig(family);
    auto it = std::find(f.configs.begin(), f.configs.end(), hand);
    if (it == f.configs.end()) it = f.configs.insert(f.configs.end(), hand);
    f.default_config = static_cast<int>(it - f.configs.begin());
    for (const GridPoint& g : grid) {
      if (FamilyOf(g.op) == family) f.points.push_back(g);
    }
    if (f.points.empty()) continue;
    int sets = 0;
    for (Op op : o.scope.ops) sets += FamilyOf(op) == family ? o.scope.dtypes.size() : 0;
    total_kernels += CountKernels(o, f.configs, family, sets);
    f.seconds.assign(f.configs.size(), std::vector<double>(f.points.size(), kNotRun));
    searches.push_back(std::move(f));
  }

  Progress progress(total_kernels);
  std::mt19937 rng(7);
  for (FamilySearch& f : searches) {
    for (Op op : o.scope.ops) {
      if (FamilyOf(op) != f.family) continue;
      for (halnorm_dtype dtype : o.scope.dtypes) {
        // This (op, dtype)'s problems, by point index; forward first, so the
        // backward reads real statistics.
        std::map<int, std::unique_ptr<bench::NormProblem>> problems;
        for (int p = 0; p < static_cast<int>(f.points.size()); p++) {
          const GridPoint& g = f.points[p];
          if (g.op != op || g.dtype != dtype) continue;
          problems[p] = std::make_unique<bench::NormProblem>(op, dtype, g.shape, rng);
          (void)problems[p]->Forward();
        }
        for (Direction direction : {Direction::kForward, Direction::kBackward}) {
          const std::string what = absl::StrCat(internal::OpName(op), " ",
                                                internal::DirectionName(direction), " ",
                                                internal::DtypeName(dtype));
          // Times `specs` side by side into the rows `into[k]` of each;
          // records failures under `label`.
          auto evaluate = [&](const std::vector<KernelSpec>& specs, const std::string& label,
                              const std::vector<std::vector<std::vector<double>*>>& into) {
            const CandidateResult r = EvaluateTogether(specs, f.points, problems, o.timing);
            const size_t n = f.points.size();
            for (size_t k = 0; k < specs.size() && r.seconds.size() == specs.size() * n; k++) {
              for (std::vector<double>* seconds : into[k]) {
                for (size_t p = 0; p < n; p++) {
                  (*seconds)[p] = std::min((*seconds)[p], r.seconds[k * n + p]);
                }
              }
            }
            if (!r.error.empty()) f.failures.push_back(absl::StrCat(label, ": ", r.error));
            progress.Step(absl::StrCat(label, r.error.empty() ? "" : " (failed)"),
                          static_cast<int>(specs.size()));
          };
          // The knob configs: one kernel per group of configs that compile alike.
          std::vector<KernelSpec> specs;
          std::vector<std::vector<std::vector<double>*>> rows;
          for (const std::vector<int>& group : SameKernelGroups(f.configs, f.family, direction)) {
            specs.push_back(SpecFor(o.target, op, direction, dtype, f.configs[group[0]]));
            rows.emplace_back();
            for (int c : group) rows.back().push_back(&f.seconds[c]);
          }
          evaluate(specs, absl::StrCat(what, ": ", specs.size(), " schedule configs"), rows);
          if (!o.autoschedulers) continue;
          // Each autoscheduled kernel alone: they can crash their process.
          for (const char* name : kAutoschedulers) {
            KernelSpec spec = SpecFor(o.target, op, direction, dtype, f.configs[f.default_config]);
            spec.autoscheduler = name;
            std::vector<double>& seconds = f.autoscheduled[name];
            seconds.resize(f.points.size(), kNotRun);
            evaluate({spec}, absl::StrCat(what, " autoscheduler ", name), {{&seconds}});
          }
        }
      }
    }
    ChooseAndTabulate(f, o.tolerance, o.max_configs);
  }
  return searches;
}

TunedTable ToTunedTable(const std::vector<FamilySearch>& searches, const std::string& target,
                        const std::string& provenance) {
  TunedTable t;
  t.target = target;
  t.provenance = provenance;
  for (const FamilySearch& f : searches) {
    std::vector<Config>& configs =
        f.family == Family::kRowNorm ? t.row_norm_configs : t.channel_norm_configs;
    for (int c : f.chosen) configs.push_back(f.configs[c]);
    std::set<std::tuple<std::string, std::string, std::string, int, int>> seen;
    for (size_t p = 0; p < f.points.size(); p++) {
      const GridPoint& g = f.points[p];
      TunedTable::Entry e{internal::OpName(g.op), internal::DirectionName(g.direction),
                          internal::DtypeName(g.dtype), g.hidden_bucket, g.row_bucket,
                          f.bucket_choice[p]};
      if (seen.insert({e.op, e.direction, e.dtype, e.hidden_bucket, e.row_bucket}).second) {
        t.entries.push_back(e);
      }
    }
  }
  return t;
}

std::string SearchSummary(const std::vector<FamilySearch>& searches, double tolerance) {
  std::string out;
  for (const FamilySearch& f : searches) {
    double log_vs_best = 0, worst = 1, log_vs_default = 0;
    std::string worst_point = "every shape at its best";
    int counted = 0, within = 0;
    for (size_t p = 0; p < f.points.size(); p++) {
      const double best = BestTime(f.seconds, p), tuned = f.TunedSeconds(p);
      if (std::isinf(best) || std::isinf(tuned)) continue;
      counted++;
      if (tuned <= (1 + tolerance) * best) within++;
      log_vs_best += std::log(best / tuned);
      log_vs_default += std::log(f.seconds[f.default_config][p] / tuned);
      if (best / tuned < worst) worst = best / tuned, worst_point = f.points[p].Describe();
    }
    if (counted == 0) continue;
    absl::StrAppend(&out, FamilyName(f.family), ": ", f.chosen.size(), " configs of ",
                    f.configs.size(), " searched, ", counted, " grid shapes\n");
    for (size_t i = 0; i < f.chosen.size(); i++) {
      absl::StrAppend(&out, "  c", i, ": ", ConfigText(f.configs[f.chosen[i]]), "\n");
    }
    absl::StrAppend(&out, absl::StrFormat(
        "  tuned table vs per-shape best: geomean %.3f, worst %.3f (%s); within %.0f%% on %d "
        "of %d shapes\n"
        "  tuned table vs untuned default (%s): geomean speedup %.3fx\n",
        std::exp(log_vs_best / counted), worst, worst_point, tolerance * 100, within, counted,
        ConfigText(f.configs[f.default_config]), std::exp(log_vs_default / counted)));
    for (const auto& [name, seconds] : f.autoscheduled) {
      double log_ratio = 0;
      int ran = 0, faster = 0;
      for (size_t p = 0; p < f.points.size(); p++) {
        if (std::isinf(seconds[p]) || std::isinf(f.TunedSeconds(p))) continue;
        ran++;
        log_ratio += std::log(f.TunedSeconds(p) / seconds[p]);
        if (seconds[p] * 1.03 < f.TunedSeconds(p)) faster++;
      }
      if (ran == 0) {
        absl::StrAppend(&out, "  autoscheduler ", name, ": failed on every shape\n");
        continue;
      }
      absl::StrAppend(&out, absl::StrFormat(
          "  autoscheduler %s: %.3fx the tuned table's speed (geomean over %d shapes); "
          "faster by >3%% on %d\n", name, std::exp(log_ratio / ran), ran, faster));
    }
    for (const std::string& failure : f.failures) absl::StrAppend(&out, "  failed: ", failure, "\n");
  }
  return out;
}

std::string TimingsCsv(const std::vector<FamilySearch>& searches) {
  std::string out = "family,point,config,seconds\n";
  for (const FamilySearch& f : searches) {
    auto row = [&](const std::string& config, const std::vector<double>& seconds) {
      for (size_t p = 0; p < f.points.size(); p++) {
        absl::StrAppend(&out, FamilyName(f.family), ",", f.points[p].Describe(), ",", config, ",",
                        std::isinf(seconds[p]) ? "" : absl::StrFormat("%.9g", seconds[p]), "\n");
      }
    };
    for (size_t c = 0; c < f.configs.size(); c++) row(ConfigText(f.configs[c]), f.seconds[c]);
    for (const auto& [name, seconds] : f.autoscheduled) row(absl::StrCat("autoscheduler=", name), seconds);
  }
  return out;
}

}  // namespace halnorm::autotune
