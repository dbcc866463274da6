#include "tools/autotune/select.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace halnorm::autotune {
namespace {

using testing::ElementsAre;
constexpr double kFailed = std::numeric_limits<double>::infinity();

TEST(CoverWithinToleranceTest, OneConfigBestEverywhereIsEnough) {
  const Timings seconds = {{2, 2, 2}, {1, 1, 1}, {1.5, 3, 1}};
  EXPECT_THAT(CoverWithinTolerance(seconds, 0.03, 8), ElementsAre(1));
}

TEST(CoverWithinToleranceTest, AddsConfigsUntilEveryPointIsWithinTolerance) {
  // Config 0 wins points 0-1, config 1 point 2, config 2 is a compromise
  // that is 10% off everywhere: it must not be taken.
  const Timings seconds = {{1, 1, 2}, {2, 2, 1}, {1.1, 1.1, 1.1}};
  EXPECT_THAT(CoverWithinTolerance(seconds, 0.03, 8), ElementsAre(0, 1));
  // With 15% tolerance the compromise covers everything alone.
  EXPECT_THAT(CoverWithinTolerance(seconds, 0.15, 8), ElementsAre(2));
}

TEST(CoverWithinToleranceTest, StopsAtTheConfigCap) {
  const Timings seconds = {{1, 2, 2}, {2, 1, 2}, {2, 2, 1}};
  EXPECT_EQ(CoverWithinTolerance(seconds, 0.03, 8).size(), 3u);
  EXPECT_EQ(CoverWithinTolerance(seconds, 0.03, 2).size(), 2u);
}

TEST(CoverWithinToleranceTest, CappedCoversSpendTheLastSlotsOnTheWorstPoint) {
  // Configs 0 and 1 win two points each; 2 and 3 one each (4 and 5), where
  // config 4 is a 10% compromise.
  const Timings seconds = {{1, 1, 2, 2, 2, 2},
                           {2, 2, 1, 1, 2, 2},
                           {2, 2, 2, 2, 1, 1.5},
                           {2, 2, 2, 2, 1.5, 1},
                           {2, 2, 2, 2, 1.1, 1.1}};
  // Uncapped, counting covers everything.
  EXPECT_THAT(CoverWithinTolerance(seconds, 0.03, 8), ElementsAre(0, 1, 2, 3));
  // Capped at 3, counting would take 0, 1, 2 and leave point 5 at 1/1.5 of
  // its best; the worst-point slots take 1 and then the compromise (1/1.1).
  EXPECT_THAT(CoverWithinTolerance(seconds, 0.03, 3), ElementsAre(0, 1, 4));
}

TEST(CoverWithinToleranceTest, TiesGoToTheLowerGeomean) {
  const Timings seconds = {{1.00, 3}, {1.01, 2}, {5, 1}};
  // Configs 0 and 1 both cover point 0; 1 is faster overall.
  EXPECT_THAT(CoverWithinTolerance(seconds, 0.03, 8), ElementsAre(1, 2));
}

TEST(CoverWithinToleranceTest, FailedConfigsAndPointsAreSkipped) {
  const Timings seconds = {{kFailed, 1, kFailed}, {1, kFailed, kFailed}};
  EXPECT_THAT(CoverWithinTolerance(seconds, 0.03, 8), ElementsAre(0, 1));
  EXPECT_EQ(BestTime(seconds, 2), kFailed);
}

TEST(BestOverTest, KeepsTheBucketsWorstPointClosestToItsBest) {
  const Timings seconds = {{1, 4, 9}, {2, 2, 1}, {0.5, 0.5, 0.5}};
  EXPECT_EQ(BestOver(seconds, {0, 1}, {0}), 0);
  EXPECT_EQ(BestOver(seconds, {0, 1}, {0, 1, 2}), 1);
  EXPECT_EQ(BestOver(seconds, {0, 1, 2}, {0, 1, 2}), 2);
  // Config 0 has the lower geomean (sqrt(1*1.3) < sqrt(1.15*1.15)) but
  // leaves point 1 at 0.77 of its best; config 1 keeps both within 0.87.
  const Timings bucket = {{1, 1.3}, {1.15, 1.15}, {5, 1}};
  EXPECT_EQ(BestOver(bucket, {0, 1}, {0, 1}), 1);
}

TEST(BestOverTest, TiesOnTheWorstPointGoToTheLowerGeomean) {
  const Timings bucket = {{2, 1.5}, {1, 2}, {1, 1}};
  // Against best {1, 1}: both configs' worst ratio is 0.5; config 1's geomean is lower.
  EXPECT_EQ(BestOver(bucket, {0, 1}, {0, 1}), 1);
}

TEST(GeomeanOverRunsTest, OneSlowRunDoesNotDecideTheBucket) {
  // Config 0 is 1.5x faster in runs 2 and 3 and hit a slow spell in run 1.
  const std::vector<Timings> runs = {{{300}, {153}}, {{95}, {134}}, {{91}, {138}}};
  const Timings merged = GeomeanOverRuns(runs);
  EXPECT_NEAR(merged[0][0], std::cbrt(300.0 / 153), 1e-12);
  EXPECT_NEAR(merged[1][0], std::cbrt(134.0 / 95 * 138 / 91), 1e-12);
  EXPECT_EQ(BestOver(merged, {0, 1}, {0}), 0);
  // Over the raw samples, config 0's slow run decides against it.
  EXPECT_EQ(BestOver({{300, 95, 91}, {153, 134, 138}}, {0, 1}, {0, 1, 2}), 1);
}

TEST(GeomeanOverRunsTest, AConfigFastInSomeRunsBeatsASteadySlowerOne) {
  // Config 0 flips between 2.0 and 3.7 from run to run; config 1 is 3.1.
  const std::vector<Timings> runs = {{{2.0}, {3.1}}, {{3.7}, {3.1}}, {{3.7}, {3.1}}};
  EXPECT_EQ(BestOver(GeomeanOverRuns(runs), {0, 1}, {0}), 0);
}

TEST(GeomeanOverRunsTest, RelativeToEachRunsBest) {
  // Run 2 is twice as slow overall; relative times cancel that.
  const std::vector<Timings> runs = {{{1, 4}, {2, 4}}, {{2, 8}, {4, 10}}};
  const Timings merged = GeomeanOverRuns(runs);
  EXPECT_DOUBLE_EQ(merged[0][0], 1.0);
  EXPECT_DOUBLE_EQ(merged[1][0], 2.0);
  EXPECT_DOUBLE_EQ(merged[0][1], 1.0);
  EXPECT_NEAR(merged[1][1], std::sqrt(1.25), 1e-12);
}

TEST(BelowInEveryRunTest, CountsOnlyPointsBelowTheLineInAllRuns) {
  // Point 0 is low in one run only (a slow spell), point 1 in both, point 2
  // never; point 3 in both, with a better best run than point 1's.
  const std::vector<std::vector<double>> ratios = {
      {0.70, 0.98}, {0.80, 0.85}, {0.95, 1.00}, {0.89, 0.60}};
  const EveryRunMisses misses = BelowInEveryRun(ratios, 0.90);
  EXPECT_EQ(misses.count, 2);
  EXPECT_DOUBLE_EQ(misses.worst, 0.85);
  EXPECT_EQ(misses.worst_point, 1);
}

TEST(BelowInEveryRunTest, NoneBelowLeavesNoWorstPoint) {
  const EveryRunMisses misses = BelowInEveryRun({{0.95, 0.91}, {}}, 0.90);
  EXPECT_EQ(misses.count, 0);
  EXPECT_EQ(misses.worst_point, -1);
}

}  // namespace
}  // namespace halnorm::autotune
