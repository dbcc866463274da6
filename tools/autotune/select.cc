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

std::vector<int> CoverWithinTolerance(const Timings& seconds, double tolerance,
                                      int max_configs) {
  if (seconds.empty()) return {};
  const int points = static_cast<int>(seconds[0].size());
  std::vector<int> all_points(points);
  for (int p = 0; p < points; p++) all_points[p] = p;
  std::vector<bool> covered(points, false);
  for (int p = 0; p < points; p++) {
    // A point no config ran on cannot be covered; do not let it stall the cover.
    if (std::isinf(BestTime(seconds, p))) covered[p] = true;
  }
  std::vector<int> chosen;
  while (static_cast<int>(chosen.size()) < max_configs) {
    int best = -1, best_count = 0;
    double best_geomean = 0;
    for (int c = 0; c < static_cast<int>(seconds.size()); c++) {
      int count = 0;
      for (int p = 0; p < points; p++) {
        if (!covered[p] && seconds[c][p] <= (1 + tolerance) * BestTime(seconds, p)) count++;
      }
      if (count == 0) continue;
      const double geomean = LogGeomean(seconds, c, all_points);
      if (count > best_count || (count == best_count && geomean < best_geomean)) {
        best = c, best_count = count, best_geomean = geomean;
      }
    }
    if (best < 0) break;
    chosen.push_back(best);
    for (int p = 0; p < points; p++) {
      if (seconds[best][p] <= (1 + tolerance) * BestTime(seconds, p)) covered[p] = true;
    }
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

}  // namespace halnorm::autotune
