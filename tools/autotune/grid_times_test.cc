// The timings CSV round-trips, and a file that does not fit this build or
// grid is refused with the line or the timing it lacks.
#include "tools/autotune/grid_times.h"

#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/variant_index.h"

namespace halnorm::autotune {
namespace {

using testing::HasSubstr;

std::vector<GridPoint> SmallGrid(halnorm_dtype dtype) {
  Scope scope;
  scope.ops = {internal::Op::kRmsNorm};
  scope.dtypes = {dtype};
  scope.quick = true;
  scope.threads = {1, 2};
  return ShapeGrid(scope);
}

// Every x86 build compiles the baseline target's configs.
std::vector<const internal::Variant*> Baseline(const GridPoint& g) {
  const internal::VariantIndex& index = internal::VariantIndex::Get();
  return index.Configs({g.op, g.direction, g.dtype, false}, index.TargetIndex("x86_sse41"));
}

GridTimes MadeUpTimes(const std::vector<GridPoint>& grid, int runs) {
  GridTimes times(runs, std::vector<PointTimes>(grid.size()));
  for (int run = 0; run < runs; run++) {
    for (size_t p = 0; p < grid.size(); p++) {
      PointTimes& t = times[run][p];
      t.candidates = Baseline(grid[p]);
      for (size_t c = 0; c < t.candidates.size(); c++) {
        t.seconds.push_back(1e-6 * (1 + run + 2 * p + 0.25 * c));
      }
      t.dispatch_seconds = 3e-6 * (p + 1);
    }
  }
  return times;
}

TEST(GridTimesCsvTest, RoundTrips) {
  const std::vector<GridPoint> grid = SmallGrid(HALNORM_F32);
  ASSERT_FALSE(Baseline(grid[0]).empty());
  const GridTimes times = MadeUpTimes(grid, 2);
  const std::string csv = GridTimesCsv(grid, times);
  EXPECT_THAT(csv, HasSubstr("# halnorm timings, library fingerprint 0x"));
  EXPECT_THAT(csv, HasSubstr("\nrun,point,variant,seconds\n"));
  absl::StatusOr<GridTimes> parsed = ParseGridTimesCsv(csv, grid, Baseline);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->size(), 2u);
  for (int run = 0; run < 2; run++) {
    for (size_t p = 0; p < grid.size(); p++) {
      const PointTimes& got = (*parsed)[run][p];
      const PointTimes& want = times[run][p];
      EXPECT_EQ(got.candidates, want.candidates);
      for (size_t c = 0; c < want.seconds.size(); c++) {
        EXPECT_DOUBLE_EQ(got.seconds[c], want.seconds[c]);
      }
      EXPECT_DOUBLE_EQ(got.dispatch_seconds, want.dispatch_seconds);
    }
  }
}

// A narrower grid takes its points out of a wider file.
TEST(GridTimesCsvTest, SkipsPointsOutsideTheGrid) {
  std::vector<GridPoint> grid = SmallGrid(HALNORM_F32);
  const std::string csv = GridTimesCsv(grid, MadeUpTimes(grid, 1));
  grid.resize(3);
  absl::StatusOr<GridTimes> parsed = ParseGridTimesCsv(csv, grid, Baseline);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->size(), 1u);
  EXPECT_EQ((*parsed)[0].size(), 3u);
}

TEST(GridTimesCsvTest, RefusesFilesThatDoNotFit) {
  const std::vector<GridPoint> grid = SmallGrid(HALNORM_F32);
  const std::string csv = GridTimesCsv(grid, MadeUpTimes(grid, 1));
  const std::string first_point = grid[0].Describe();
  const std::string variant = Baseline(grid[0])[0]->name;
  auto error = [&](const std::string& text, const std::vector<GridPoint>& for_grid) {
    absl::StatusOr<GridTimes> parsed = ParseGridTimesCsv(text, for_grid, Baseline);
    return parsed.ok() ? std::string("accepted") : std::string(parsed.status().message());
  };
  EXPECT_THAT(error("run,point,variant,seconds\n", grid), HasSubstr("line 1: not a halnorm"));
  EXPECT_THAT(error(absl::StrReplaceAll(csv, {{"fingerprint 0x", "fingerprint 0x1"}}), grid),
              HasSubstr("line 1: timings of another build"));
  EXPECT_THAT(error(absl::StrReplaceAll(csv, {{"run,point", "run;point"}}), grid),
              HasSubstr("line 2: expected the header"));
  // The first timing row: one variant of the first point.
  const std::string row = absl::StrCat("1,", first_point, ",", variant, ",");
  ASSERT_THAT(csv, HasSubstr("\n" + row));
  EXPECT_THAT(error(absl::StrReplaceAll(csv, {{"\n" + row, "\n" + row + "-"}}), grid),
              HasSubstr("line 3: expected run >= 1"));
  EXPECT_THAT(error(absl::StrReplaceAll(csv, {{"\n" + row, "\n0," + row.substr(2)}}), grid),
              HasSubstr("line 3: expected run >= 1"));
  EXPECT_THAT(error(absl::StrReplaceAll(csv, {{"\n" + row, "\n1," + first_point + ",c9,"}}), grid),
              HasSubstr("line 3: c9 is not a variant this build times for " + first_point));
  const size_t start = csv.find("\n" + row) + 1;
  std::string dropped = csv;
  dropped.erase(start, csv.find('\n', start) + 1 - start);
  EXPECT_THAT(error(dropped, grid),
              HasSubstr("run 1 has no time for " + variant + " on " + first_point));
  EXPECT_THAT(error(csv, SmallGrid(HALNORM_BF16)), HasSubstr("no timings of this grid's points"));
}

}  // namespace
}  // namespace halnorm::autotune
