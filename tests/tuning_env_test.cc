// HALNORM_TUNING_FILE, read once at the first dispatch. --mode says what the
// BUILD target set it to: foreign_build (a file tuned for another build),
// missing (no such file), or written (main writes a good file for this
// library and sets the variable itself, before anything dispatches).
// HALNORM_VERBOSE=dispatch is set too: the rejection must show there, once.
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/dispatch.h"
#include "runtime/halnorm_c.h"
#include "runtime/tuning_buckets.h"
#include "runtime/tuning_file.h"
#include "runtime/variant_index.h"
#include "tests/tuning_test_support.h"

namespace halnorm::internal {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string mode;

constexpr VariantKind kLayerNormF32{Op::kLayerNorm, Direction::kForward, HALNORM_F32, false};

// For mode "written": every bucket of LayerNorm f32 on the dispatch target
// runs its last config (the built-in table's or the default otherwise).
TuningFile LastConfigEverywhere() {
  const VariantIndex& index = VariantIndex::Get();
  const int target = index.DispatchTarget(kLayerNormF32);
  const Variant* last =
      index.Find(kLayerNormF32, target, testutil::ConfigCount(kLayerNormF32, target) - 1);
  TuningFile file;
  for (int h = 0; h < kHiddenBuckets; h++) {
    for (int r = 0; r < kRowBuckets; r++) file.entries.push_back({h, r, last});
  }
  return file;
}

std::string ExpectedSource() {
  const char* path = std::getenv("HALNORM_TUNING_FILE");
  if (mode == "written") return absl::StrCat("tuning file ", path);
  const std::string rejected =
      absl::StrCat("built-in table (HALNORM_TUNING_FILE=", path, " rejected: ");
  if (mode == "missing") return rejected + "cannot open it: No such file or directory)";
  return rejected + "line 4: fingerprint 0x0000000000000000 is not this library's 0x";
}

// First: the first dispatch of the process prints the tuning in use.
TEST(TuningEnvTest, FirstVerboseDispatchSaysWhichTuningIsUsed) {
  testing::internal::CaptureStderr();
  ASSERT_TRUE(PickVariant(testutil::RequestIn(kLayerNormF32, 1, 0)).ok());
  ASSERT_TRUE(PickVariant(testutil::RequestIn(kLayerNormF32, 2, 0)).ok());
  const std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_THAT(printed, StartsWith("halnorm dispatch: tuning: " + ExpectedSource()));
  EXPECT_EQ(printed.find("halnorm dispatch: tuning:", 1), std::string::npos) << "printed twice";
}

TEST(TuningEnvTest, SourceSaysWhatHappenedToTheFile) {
  EXPECT_THAT(halnorm_tuning_source(), StartsWith(ExpectedSource()));
}

TEST(TuningEnvTest, DispatchUsesTheFileOrElseTheBuiltInTable) {
  const KernelRequest request = testutil::RequestIn(kLayerNormF32, 3, 2);
  absl::StatusOr<const Variant*> from_env = PickVariant(request);
  ASSERT_TRUE(from_env.ok());
  const std::string source = halnorm_tuning_source();
  ASSERT_EQ(halnorm_load_tuning_file(nullptr), HALNORM_OK);
  absl::StatusOr<const Variant*> built_in = PickVariant(request);
  ASSERT_TRUE(built_in.ok());
  if (mode == "written") {
    EXPECT_EQ(*from_env, LastConfigEverywhere().entries.back().variant);
  } else {
    EXPECT_EQ(*from_env, *built_in);
  }
  // Loading the variable's file again by hand gives the same answer.
  const char* path = std::getenv("HALNORM_TUNING_FILE");
  EXPECT_EQ(halnorm_load_tuning_file(path) == HALNORM_OK, mode == "written");
  if (mode != "written") {
    EXPECT_THAT(halnorm_last_error(), HasSubstr(path));
  }
}

}  // namespace
}  // namespace halnorm::internal

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; i++) {
    if (std::strncmp(argv[i], "--mode=", 7) == 0) halnorm::internal::mode = argv[i] + 7;
  }
  if (halnorm::internal::mode == "written") {
    const std::string path = halnorm::testutil::WriteTestFile(
        "env.tuning", halnorm::internal::LastConfigEverywhere().ToText());
    setenv("HALNORM_TUNING_FILE", path.c_str(), 1);
  }
  return RUN_ALL_TESTS();
}
