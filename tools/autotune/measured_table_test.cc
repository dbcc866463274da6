// --update_tuned's table edit: measured picks replace their buckets' entries
// (of the default table or of a CPU's), and a table this library was not
// built from is refused untouched.
#include "tools/autotune/measured_table.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/variant_registry.h"
#include "tools/autotune/targets.h"

namespace halnorm::autotune {
namespace {

using internal::Variant;
using testing::HasSubstr;

// The compiled RMSNorm f32 forward of `target` with config `index`.
const Variant* RmsForward(const std::string& target, int index) {
  for (const Variant& v : internal::AllVariants()) {
    if (v.op == internal::Op::kRmsNorm && v.direction == internal::Direction::kForward &&
        v.dtype == HALNORM_F32 && !v.fused_residual && v.target == target &&
        v.config_index == index) {
      return &v;
    }
  }
  return nullptr;
}

// A CPU target of this build with at least two row-norm configs.
std::string TargetWithTwoConfigs() {
  for (const Variant& v : internal::AllVariants()) {
    if (v.device == internal::Device::kCpu && RmsForward(v.target, 1) != nullptr) return v.target;
  }
  return "";
}

class MeasuredTableTest : public testing::Test {
 protected:
  void SetUp() override {
    target_ = TargetWithTwoConfigs();
    ASSERT_FALSE(target_.empty()) << "no CPU target with two row-norm configs in this build";
    table_.target = target_;
    table_.provenance = "tools/autotune --mode=schedules on a CPU, 2026-01-01";
    table_.row_norm_configs = {ParseKnobs(RmsForward(target_, 0)->config),
                              ParseKnobs(RmsForward(target_, 1)->config)};
    table_.entries = {{"rms_norm", "fwd", "f32", 3, 0, 0}, {"rms_norm", "fwd", "f32", 3, 1, 0}};
    measured_.entries = {{3, 0, RmsForward(target_, 1)}, {2, 2, RmsForward(target_, 1)}};
  }

  std::string target_;
  TunedTable table_;
  internal::TuningFile measured_;
};

TEST_F(MeasuredTableTest, PicksReplaceTheirBucketsAndFillMissingOnes) {
  ASSERT_TRUE(
      ApplyMeasuredPicks(measured_, "tools/autotune --mode=runtime on X, today", false, "", table_)
          .ok());
  EXPECT_THAT(table_.entries,
              testing::UnorderedElementsAre(TunedTable::Entry{"rms_norm", "fwd", "f32", 3, 0, 1},
                                            TunedTable::Entry{"rms_norm", "fwd", "f32", 3, 1, 0},
                                            TunedTable::Entry{"rms_norm", "fwd", "f32", 2, 2, 1}));
  EXPECT_EQ(table_.provenance,
            "tools/autotune --mode=schedules on a CPU, 2026-01-01; table: tools/autotune "
            "--mode=runtime on X, today");
  EXPECT_EQ(table_.row_norm_configs.size(), 2u);  // configs (the kernels built) unchanged
  EXPECT_TRUE(table_.cpu_tables.empty());
}

TEST_F(MeasuredTableTest, AVendorsPicksGoToItsOwnTableAndLeaveTheDefault) {
  const TunedTable before = table_;
  ASSERT_TRUE(ApplyMeasuredPicks(measured_, "runtime on an AMD CPU", false, "amd", table_).ok());
  EXPECT_EQ(table_.entries, before.entries);
  EXPECT_EQ(table_.provenance, before.provenance);
  ASSERT_EQ(table_.cpu_tables.count("amd"), 1u);
  const TunedTable::CpuTable& amd = table_.cpu_tables["amd"];
  EXPECT_EQ(amd.provenance, "runtime on an AMD CPU");
  EXPECT_THAT(amd.entries,
              testing::ElementsAre(TunedTable::Entry{"rms_norm", "fwd", "f32", 3, 0, 1},
                                   TunedTable::Entry{"rms_norm", "fwd", "f32", 2, 2, 1}));

  // A later run replaces the table's picks and note, and no other table's.
  table_.cpu_tables["amd_family23"] = {"runtime on Zen 2", {{"rms_norm", "fwd", "f32", 3, 0, 0}}};
  measured_.entries.pop_back();
  measured_.entries[0].variant = RmsForward(target_, 0);
  ASSERT_TRUE(ApplyMeasuredPicks(measured_, "again", false, "amd", table_).ok());
  EXPECT_EQ(table_.cpu_tables["amd"].provenance, "again");
  EXPECT_THAT(table_.cpu_tables["amd"].entries,
              testing::ElementsAre(TunedTable::Entry{"rms_norm", "fwd", "f32", 3, 0, 0},
                                   TunedTable::Entry{"rms_norm", "fwd", "f32", 2, 2, 1}));
  EXPECT_EQ(table_.cpu_tables["amd_family23"].provenance, "runtime on Zen 2");
}

TEST_F(MeasuredTableTest, ASecondRunReplacesTheFirstRunsNote) {
  ASSERT_TRUE(ApplyMeasuredPicks(measured_, "first", false, "", table_).ok());
  ASSERT_TRUE(ApplyMeasuredPicks(measured_, "second", false, "", table_).ok());
  EXPECT_EQ(table_.provenance,
            "tools/autotune --mode=schedules on a CPU, 2026-01-01; table: second");
}

TEST_F(MeasuredTableTest, ARunOfSomeBucketsKeepsTheEarlierRunsNote) {
  ASSERT_TRUE(ApplyMeasuredPicks(measured_, "first", false, "", table_).ok());
  ASSERT_TRUE(ApplyMeasuredPicks(measured_, "second --ops=rms_norm", true, "", table_).ok());
  EXPECT_EQ(table_.provenance,
            "tools/autotune --mode=schedules on a CPU, 2026-01-01; table: first; then second "
            "--ops=rms_norm");
  ASSERT_TRUE(ApplyMeasuredPicks(measured_, "amd --ops=rms_norm", true, "amd", table_).ok());
  EXPECT_EQ(table_.cpu_tables["amd"].provenance, "amd --ops=rms_norm");  // nothing earlier
  ASSERT_TRUE(ApplyMeasuredPicks(measured_, "amd --dtypes=f32", true, "amd", table_).ok());
  EXPECT_EQ(table_.cpu_tables["amd"].provenance, "amd --ops=rms_norm; then amd --dtypes=f32");
}

TEST_F(MeasuredTableTest, RefusesATableWithOtherKnobsUntouched) {
  table_.row_norm_configs[1]["rows_per_task"] += 1;
  const TunedTable before = table_;
  absl::Status s = ApplyMeasuredPicks(measured_, "runtime", false, "amd", table_);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr(RmsForward(target_, 1)->name));
  EXPECT_THAT(s.message(), HasSubstr("rows_per_task"));
  EXPECT_THAT(s.message(), HasSubstr("rebuild first"));
  EXPECT_TRUE(table_ == before);
}

TEST_F(MeasuredTableTest, RefusesATableWithFewerConfigsUntouched) {
  table_.row_norm_configs.pop_back();
  const TunedTable before = table_;
  absl::Status s = ApplyMeasuredPicks(measured_, "runtime", false, "amd", table_);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("config 1 is not in the tuned table"));
  EXPECT_TRUE(table_ == before);
}

TEST(CpuTableToWriteTest, TheHostsModelUnlessTheFlagNamesAnother) {
  const std::vector<std::string> zen3 = {"amd_family25_model1", "amd_family25", "amd"};
  EXPECT_EQ(CpuTableToWrite("", true, zen3).value(), "amd_family25_model1");
  EXPECT_EQ(CpuTableToWrite("", true, {}).value(), "");  // neither Intel nor AMD
  EXPECT_EQ(CpuTableToWrite("amd", true, zen3).value(), "amd");
  EXPECT_EQ(CpuTableToWrite("amd_family23", true, zen3).value(), "amd_family23");
  EXPECT_EQ(CpuTableToWrite("intel_model143", true, zen3).value(), "intel_model143");
  EXPECT_EQ(CpuTableToWrite("default", true, zen3).value(), "");
}

TEST(CpuTableToWriteTest, RefusesAMalformedKeyOrOneWithoutUpdateTuned) {
  for (const std::string bad : {"zen2", "amd_model49", "amd_family", "intel_family6", "AMD",
                                "amd_family25_model", "intel_model1_model2"}) {
    absl::StatusOr<std::string> key = CpuTableToWrite(bad, true, {"amd_family23", "amd"});
    EXPECT_EQ(key.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(key.status().message(), HasSubstr("--cpu_table: '" + bad + "' is not")) << bad;
  }
  absl::StatusOr<std::string> alone = CpuTableToWrite("amd", false, {});
  EXPECT_THAT(alone.status().message(), HasSubstr("--cpu_table: only with --update_tuned"));
}

}  // namespace
}  // namespace halnorm::autotune
