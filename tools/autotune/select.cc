#include "tools/autotune/select.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace halnorm::autotune {
namespace {

double LogGeomean(const Timings& seconds, int config, const std::vector<int>& points) {
  double sum = 0;
  for (int p : points) sum += std::log(seconds[config][p]);
  return points.empty() ? 0 : sum / points.size();
}

}  // namespace

double BestTime(const Timings& seconds, int point) {
  double best = std::numeric_limits<double>::infinity();
  for (const std::vector<double>& config : seconds) best = std::min(best, config[point]);
  return best;
}

Timings GeomeanOverRuns(const std::vector<Timings>& runs) {
  if (runs.empty()) return {};
  Timings merged(runs[0].size(), std::vector<double>(runs[0][0].size()));
  for (size_t p = 0; p < merged[0].size(); p++) {
    for (size_t c = 0; c < merged.size(); c++) {
      double log_sum = 0;
      for (const Timings& run : runs) log_sum += std::log(run[c][p] / BestTime(run, p));
      merged[c][p] = std::exp(log_sum / runs.size());
    }
  }
  return merged;
}

std::vector<int> CoverWithinTolerance(const Timings& seconds, double tolerance,
                                      int max_configs) {
  if (seconds.empty()) return {};
  const int points = static_cast<int>(seconds[0].size());
  std::vector<int> all_points(points);
  std::vector<double> best_time(points);
  for (int p = 0; p < points; p++) all_points[p] = p, best_time[p] = BestTime(seconds, p);
  auto within = [&](int c, int p) { return seconds[c][p] <= (1 + tolerance) * best_time[p]; };
  std::vector<bool> covered(points, false);
  for (int p = 0; p < points; p++) {
    // A point no config ran on cannot be covered; do not let it stall the cover.
    if (std::isinf(best_time[p])) covered[p] = true;
  }
  auto uncovered = [&] { return std::count(covered.begin(), covered.end(), false); };
  std::vector<int> chosen;
  // Per point, the fastest time among the chosen configs.
  std::vector<double> served(points, std::numeric_limits<double>::infinity());
  auto take = [&](int c) {
    chosen.push_back(c);
    for (int p = 0; p < points; p++) {
      covered[p] = covered[p] || within(c, p);
      served[p] = std::min(served[p], seconds[c][p]);
    }
  };
  const int counted_slots = std::max(1, max_configs - kWorstShapeSlots);
  while (static_cast<int>(chosen.size()) < counted_slots && uncovered() > 0) {
    int best = -1, best_count = 0;
    double best_geomean = 0;
    for (int c = 0; c < static_cast<int>(seconds.size()); c++) {
      int count = 0;
      for (int p = 0; p < points; p++) count += !covered[p] && within(c, p);
      if (count == 0) continue;
      const double geomean = LogGeomean(seconds, c, all_points);
      if (count > best_count || (count == best_count && geomean < best_geomean)) {
        best = c, best_count = count, best_geomean = geomean;
      }
    }
    if (best < 0) break;
    take(best);
  }
  // The last slots: whichever config lifts the worst point most (ties: the
  // better geomean), while some point is still uncovered.
  while (static_cast<int>(chosen.size()) < max_configs && uncovered() > 0) {
    int best = -1;
    double best_worst = 0, best_log = 0;
    for (int c = 0; c < static_cast<int>(seconds.size()); c++) {
      if (std::find(chosen.begin(), chosen.end(), c) != chosen.end()) continue;
      double worst = 1, log_sum = 0;
      for (int p = 0; p < points; p++) {
        if (std::isinf(best_time[p])) continue;
        const double ratio = best_time[p] / std::min(served[p], seconds[c][p]);
        worst = std::min(worst, ratio);
        log_sum += std::log(ratio);
      }
      if (best < 0 || worst > best_worst || (worst == best_worst && log_sum > best_log)) {
        best = c, best_worst = worst, best_log = log_sum;
      }
    }
    if (best < 0) break;
    take(best);
  }
  return chosen;
}

int BestOver(const Timings& seconds, const std::vector<int>& chosen,
             const std::vector<int>& points) {
  auto worst_ratio = [&](int c) {
    double worst = 1;
    for (int p : points) worst = std::min(worst, BestTime(seconds, p) / seconds[c][p]);
    return worst;
  };
  int best = chosen.front();
  for (int c : chosen) {
    const double w = worst_ratio(c), best_w = worst_ratio(best);
    if (w > best_w || (w == best_w && LogGeomean(seconds, c, points) <
                                          LogGeomean(seconds, best, points))) {
      best = c;
    }
  }
  return best;
}

EveryRunMisses BelowInEveryRun(const std::vector<std::vector<double>>& ratios, double line) {
  EveryRunMisses misses;
  for (size_t p = 0; p < ratios.size(); p++) {
    if (ratios[p].empty()) continue;
    const double best_run = *std::max_element(ratios[p].begin(), ratios[p].end());
    if (best_run >= line) continue;
    misses.count++;
    if (misses.worst_point < 0 || best_run < misses.worst) {
      misses.worst = best_run, misses.worst_point = static_cast<int>(p);
    }
  }
  return misses;
}

}  // namespace halnorm::autotune
