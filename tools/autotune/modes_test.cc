// Both tuner modes end to end on a small scope (RMSNorm f32, quick grid):
// what they write must be what the build and the runtime accept.
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/halnorm_c.h"
#include "runtime/tuning_buckets.h"
#include "runtime/tuning_file.h"
#include "runtime/variant_index.h"
#include "tools/autotune/runtime_tuning.h"
#include "tools/autotune/schedule_search.h"
#include "tools/autotune/search_space.h"
#include "tools/autotune/targets.h"
#include "tools/autotune/tuned_bzl.h"

namespace halnorm::autotune {
namespace {

using testing::HasSubstr;

// One round each, one more for near ties: this tests the plumbing, not speed.
constexpr SideBySideOptions kFast{1, 1, 0.10};

Scope SmallScope() {
  Scope scope;
  scope.ops = {internal::Op::kRmsNorm};
  scope.dtypes = {HALNORM_F32};
  scope.quick = true;
  return scope;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ScheduleModeTest, WritesATableCoveringEveryBucketOfTheGrid) {
  absl::StatusOr<TargetInfo> target = FindTarget("host");
  ASSERT_TRUE(target.ok()) << target.status();
  ScheduleSearchOptions options{SmallScope(), *target, kFast, 0.03, 2, /*autoschedulers=*/false};
  const std::vector<FamilySearch> searches = SearchSchedules(options);
  const TunedTable table = ToTunedTable(searches, target->key, "test");
  absl::StatusOr<TunedTable> parsed = ParseTunedBzl(WriteTunedBzl(table));
  ASSERT_TRUE(parsed.ok()) << parsed.status();

  ASSERT_FALSE(parsed->row_norm_configs.empty());
  EXPECT_LE(parsed->row_norm_configs.size(), 2u);
  EXPECT_TRUE(parsed->channel_norm_configs.empty());  // LayerNorm2d was not in scope
  std::set<std::tuple<std::string, int, int>> buckets;
  for (const TunedTable::Entry& e : parsed->entries) {
    EXPECT_EQ(e.op, "rms_norm");
    EXPECT_EQ(e.dtype, "f32");
    EXPECT_GE(e.config, 0);
    EXPECT_LT(e.config, static_cast<int>(parsed->row_norm_configs.size()));
    buckets.insert({e.direction, e.hidden_bucket, e.row_bucket});
  }
  EXPECT_EQ(buckets.size(), 2u * internal::kHiddenBuckets * internal::kRowBuckets);
  EXPECT_THAT(SearchSummary(searches, 0.03), HasSubstr("tuned table vs per-shape best: geomean"));
}

TEST(RuntimeModeTest, WritesATuningFileThisLibraryLoads) {
  absl::StatusOr<TargetInfo> target = FindTarget("host");
  ASSERT_TRUE(target.ok()) << target.status();
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/rms.tuning";
  absl::StatusOr<internal::TuningFile> tuned = RunRuntimeTuning(SmallScope(), *target, kFast, path);
  ASSERT_TRUE(tuned.ok()) << tuned.status();

  absl::StatusOr<internal::TuningFile> file = internal::TuningFile::Parse(ReadFile(path));
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_TRUE(file->entries == tuned->entries);
  EXPECT_EQ(file->entries.size(), 2u * internal::kHiddenBuckets * internal::kRowBuckets);
  for (const internal::TuningEntry& e : file->entries) {
    EXPECT_EQ(e.variant->op, internal::Op::kRmsNorm);
    EXPECT_EQ(std::string(e.variant->target), target->key);
  }
  ASSERT_EQ(halnorm_load_tuning_file(path.c_str()), HALNORM_OK) << halnorm_last_error();
  EXPECT_EQ(std::string(halnorm_tuning_source()), "tuning file " + path);
  EXPECT_EQ(halnorm_load_tuning_file(nullptr), HALNORM_OK);
}

// bf16 dispatches to x86_avx512_bf16 where the CPU has AVX512_BF16: the
// candidates are that target's variants, which share x86_avx512's table.
TEST(RuntimeModeTest, TimesTheVariantsDispatchChoosesAmong) {
  absl::StatusOr<TargetInfo> target = FindTarget("host");
  ASSERT_TRUE(target.ok()) << target.status();
  Scope scope = SmallScope();
  scope.dtypes = {HALNORM_BF16};
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/bf16.tuning";
  absl::StatusOr<internal::TuningFile> tuned = RunRuntimeTuning(scope, *target, kFast, path);
  ASSERT_TRUE(tuned.ok()) << tuned.status();
  const internal::VariantIndex& index = internal::VariantIndex::Get();
  const int dispatched = index.DispatchTarget(
      {internal::Op::kRmsNorm, internal::Direction::kForward, HALNORM_BF16, false});
  ASSERT_GE(dispatched, 0);
  ASSERT_TRUE(target->SharesTable(index.target_name(dispatched)));
  ASSERT_FALSE(tuned->entries.empty());
  for (const internal::TuningEntry& e : tuned->entries) {
    EXPECT_EQ(std::string(e.variant->target), index.target_name(dispatched)) << e.variant->name;
  }
}

// --runs=2: each bucket's pick weighs both timings of the grid; still one
// entry per bucket, from the host's variants. The timings CSV has every
// grid shape's dispatched call once per run, and positive times.
TEST(RuntimeModeTest, SeveralRunsStillGiveOneEntryPerBucket) {
  absl::StatusOr<TargetInfo> target = FindTarget("host");
  ASSERT_TRUE(target.ok()) << target.status();
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/two_runs.tuning";
  std::string csv;
  absl::StatusOr<internal::TuningFile> tuned =
      RunRuntimeTuning(SmallScope(), *target, kFast, path, /*runs=*/2, &csv);
  ASSERT_TRUE(tuned.ok()) << tuned.status();
  std::istringstream rows(csv);
  std::string row;
  std::getline(rows, row);
  EXPECT_THAT(row, HasSubstr("library fingerprint"));
  std::getline(rows, row);
  EXPECT_EQ(row, "run,point,variant,seconds");
  std::set<std::pair<std::string, std::string>> dispatched;  // (run, point)
  while (std::getline(rows, row)) {
    const std::vector<std::string> fields = absl::StrSplit(row, ',');
    ASSERT_EQ(fields.size(), 4u) << row;
    EXPECT_THAT(fields[1], HasSubstr("rms_norm")) << row;
    EXPECT_GT(std::stod(fields[3]), 0) << row;
    if (fields[2] == "dispatch") dispatched.insert({fields[0], fields[1]});
  }
  EXPECT_EQ(dispatched.size(), 2 * ShapeGrid(SmallScope()).size());
  EXPECT_TRUE(dispatched.count({"2", "rms_norm bwd f32 16x128"})) << csv;
  EXPECT_EQ(tuned->entries.size(), 2u * internal::kHiddenBuckets * internal::kRowBuckets);
  std::set<std::tuple<internal::Direction, int, int>> buckets;
  for (const internal::TuningEntry& e : tuned->entries) {
    EXPECT_EQ(std::string(e.variant->target), target->key);
    buckets.insert({e.variant->direction, e.hidden_bucket, e.row_bucket});
  }
  EXPECT_EQ(buckets.size(), tuned->entries.size());
  EXPECT_THAT(RunRuntimeTuning(SmallScope(), *target, kFast, path, 0).status().message(),
              HasSubstr("--runs"));
}

// --merge_timings: a saved run's timings alone (--runs=0) give the picks
// that run gave; with a new run they join it; a file of another grid or
// build is refused, naming the file, before any timing.
TEST(RuntimeModeTest, MergedTimingsJoinThePicks) {
  absl::StatusOr<TargetInfo> target = FindTarget("host");
  ASSERT_TRUE(target.ok()) << target.status();
  const std::string dir = std::getenv("TEST_TMPDIR");
  const std::string path = dir + "/merge.tuning", saved = dir + "/saved.csv";
  std::string csv;
  absl::StatusOr<internal::TuningFile> timed =
      RunRuntimeTuning(SmallScope(), *target, kFast, path, /*runs=*/1, &csv);
  ASSERT_TRUE(timed.ok()) << timed.status();
  std::ofstream(saved) << csv;
  absl::StatusOr<internal::TuningFile> replayed =
      RunRuntimeTuning(SmallScope(), *target, kFast, path, /*runs=*/0, nullptr, {saved});
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  EXPECT_TRUE(replayed->entries == timed->entries);
  absl::StatusOr<internal::TuningFile> joined =
      RunRuntimeTuning(SmallScope(), *target, kFast, path, /*runs=*/1, nullptr, {saved});
  ASSERT_TRUE(joined.ok()) << joined.status();
  EXPECT_EQ(joined->entries.size(), timed->entries.size());

  Scope other = SmallScope();
  other.dtypes = {HALNORM_F16};
  EXPECT_THAT(RunRuntimeTuning(other, *target, kFast, path, 1, nullptr, {saved}).status().message(),
              HasSubstr("--merge_timings: " + saved + ": no timings of this grid's points"));
  EXPECT_THAT(RunRuntimeTuning(SmallScope(), *target, kFast, path, 1, nullptr, {dir + "/none"})
                  .status()
                  .message(),
              HasSubstr("--merge_timings: cannot read " + dir + "/none"));
}

// --threads=1,2: every grid shape is timed at both thread limits, and a
// bucket still gets one entry, picked over the points of both.
TEST(RuntimeModeTest, TimesEveryShapeAtEachThreadCount) {
  absl::StatusOr<TargetInfo> target = FindTarget("host");
  ASSERT_TRUE(target.ok()) << target.status();
  Scope scope = SmallScope();
  scope.threads = {1, 2};
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/threads.tuning";
  std::string csv;
  absl::StatusOr<internal::TuningFile> tuned =
      RunRuntimeTuning(scope, *target, kFast, path, /*runs=*/1, &csv);
  ASSERT_TRUE(tuned.ok()) << tuned.status();
  std::set<std::string> dispatched;
  std::istringstream rows(csv);
  for (std::string row; std::getline(rows, row);) {
    const std::vector<std::string> fields = absl::StrSplit(row, ',');
    if (fields.size() == 4 && fields[2] == "dispatch") dispatched.insert(fields[1]);
  }
  EXPECT_EQ(dispatched.size(), 2 * ShapeGrid(SmallScope()).size());  // each at both limits
  EXPECT_TRUE(dispatched.count("rms_norm fwd f32 16x768 on 1 thread")) << csv;
  EXPECT_TRUE(dispatched.count("rms_norm fwd f32 16x768 on 2 threads")) << csv;
  EXPECT_EQ(tuned->entries.size(), 2u * internal::kHiddenBuckets * internal::kRowBuckets);
}

TEST(RuntimeModeTest, RefusesAMissingOutputPath) {
  absl::StatusOr<TargetInfo> target = FindTarget("host");
  ASSERT_TRUE(target.ok());
  absl::StatusOr<internal::TuningFile> tuned = RunRuntimeTuning(SmallScope(), *target, kFast, "");
  EXPECT_THAT(tuned.status().message(), HasSubstr("--out"));
}

}  // namespace
}  // namespace halnorm::autotune
