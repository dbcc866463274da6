// Dispatch with tuning tables: the built-in table's entries are used (a CPU's
// own tables where BuiltInTableCpus() has them; the BUILD targets set
// HALNORM_TUNING_CPU to try each), a runtime tuning file loaded through the C
// API overrides them, a bad file changes nothing, and HALNORM_VERBOSE=dispatch
// (set by the BUILD target) says which table decided. HALNORM_MAX_ISA may cap
// the target; tests that need two configs of it skip where it has one.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/builtin_tuning.h"
#include "runtime/cpu_features.h"
#include "runtime/dispatch.h"
#include "runtime/halnorm_c.h"
#include "runtime/tuning_buckets.h"
#include "runtime/tuning_file.h"
#include "runtime/variant_index.h"
#include "tests/test_tensors.h"
#include "tests/tuning_test_support.h"

namespace halnorm::internal {
namespace {

using ::testing::HasSubstr;
using testutil::RequestIn;
using testutil::WriteTestFile;

constexpr VariantKind kLayerNormF32{Op::kLayerNorm, Direction::kForward, HALNORM_F32, false};

const Variant* Pick(const KernelRequest& request) {
  absl::StatusOr<const Variant*> picked = PickVariant(request);
  EXPECT_TRUE(picked.ok()) << picked.status();
  return picked.ok() ? *picked : nullptr;
}

// What dispatch picks for `kind` in each bucket pair, [hidden][rows].
using Picks = std::vector<std::vector<const Variant*>>;
Picks PickEveryBucket(const VariantKind& kind) {
  Picks picks(kHiddenBuckets, std::vector<const Variant*>(kRowBuckets));
  for (int h = 0; h < kHiddenBuckets; h++) {
    for (int r = 0; r < kRowBuckets; r++) picks[h][r] = Pick(RequestIn(kind, h, r));
  }
  return picks;
}

// A file mapping every bucket of `kind` on its dispatch target to a config
// other than `baseline`'s, so each pick shows whether the file was used.
TuningFile FileAvoiding(const VariantKind& kind, const Picks& baseline) {
  const VariantIndex& index = VariantIndex::Get();
  const int target = index.DispatchTarget(kind);
  const int configs = testutil::ConfigCount(kind, target);
  TuningFile file;
  for (int h = 0; h < kHiddenBuckets; h++) {
    for (int r = 0; r < kRowBuckets; r++) {
      const int config = (baseline[h][r]->config_index + 1) % configs;
      file.entries.push_back({h, r, index.Find(kind, target, config)});
    }
  }
  return file;
}

class TuningDispatchTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(halnorm_load_tuning_file(nullptr), HALNORM_OK); }
  void TearDown() override { halnorm_load_tuning_file(nullptr); }

  // Skips unless the dispatch target of `kind` has a second config to pick.
  bool HasTwoConfigs(const VariantKind& kind) {
    const VariantIndex& index = VariantIndex::Get();
    const int target = index.DispatchTarget(kind);
    return testutil::ConfigCount(kind, target) >= 2;
  }
};

TEST_F(TuningDispatchTest, TheCpuTablesInUseAreTheHostsOrHalnormTuningCpus) {
  const char* forced = std::getenv("HALNORM_TUNING_CPU");
  EXPECT_EQ(BuiltInTableCpus(), forced == nullptr ? HostCpuTables() : CpuTableChain(forced));
}

// Per bucket, the entry in use is the first of the tables in use holding
// one, in BuiltInTableCpus() order, then the default table.
TEST_F(TuningDispatchTest, EachBucketUsesTheMostSpecificTableHoldingIt) {
  std::vector<std::string> order = BuiltInTableCpus();
  order.push_back("");
  const auto entries = BuiltInTuningEntries();
  for (const BuiltInTuningEntry& e : entries) {
    const auto same_buckets = [&](const BuiltInTuningEntry& o) {
      return o.op == e.op && o.direction == e.direction && o.dtype == e.dtype &&
             std::strcmp(o.target, e.target) == 0 && o.hidden_bucket == e.hidden_bucket &&
             o.row_bucket == e.row_bucket;
    };
    const auto first_holding =
        std::find_if(order.begin(), order.end(), [&](const std::string& cpu) {
          return std::any_of(entries.begin(), entries.end(), [&](const BuiltInTuningEntry& o) {
            return o.cpu == cpu && same_buckets(o);
          });
        });
    EXPECT_EQ(InUse(e), first_holding != order.end() && *first_holding == e.cpu)
        << "table '" << e.cpu << "' " << e.target << " " << e.hidden_bucket << "/" << e.row_bucket;
  }
}

// What dispatch prints names the CPU tables a target's entries come from.
TEST_F(TuningDispatchTest, TheSourceNamesTheCpuTablesInUse) {
  for (const BuiltInTuningEntry& e : BuiltInTuningEntries()) {
    if (*e.cpu == '\0') continue;
    const std::string source = BuiltInTuningSource(e.target);
    const std::vector<std::string> words = absl::StrSplit(source, absl::ByAnyChar(" ,"));
    const bool named = std::find(words.begin(), words.end(), e.cpu) != words.end();
    if (InUse(e)) {
      EXPECT_TRUE(named) << source << " lacks " << e.cpu;
    }
    if (!named) continue;
    const std::vector<std::string>& cpus = BuiltInTableCpus();
    EXPECT_NE(std::find(cpus.begin(), cpus.end(), e.cpu), cpus.end()) << source;
  }
}

TEST_F(TuningDispatchTest, BuiltInTableEntriesAreUsedWithoutAFile) {
  EXPECT_STREQ(halnorm_tuning_source(), "built-in table");
  const VariantIndex& index = VariantIndex::Get();
  int checked = 0, checked_cpu_table = 0, cpu_table_entries = 0;
  for (const BuiltInTuningEntry& e : BuiltInTuningEntries()) {
    if (!InUse(e)) continue;  // another CPU's, or one a more specific table replaces
    // The plain kind, then the forward's fused-residual and native-params
    // ones, which share its entry.
    for (auto [residual, native_params] : {std::pair{false, false}, {true, false}, {false, true}}) {
      if ((residual || native_params) && e.direction != Direction::kForward) continue;
      const VariantKind kind{e.op, e.direction, e.dtype, residual, native_params};
      const int target = index.DispatchTarget(kind);
      if (target < 0 || std::string(index.target_name(target)) != e.target) continue;
      // LayerNorm2d has no fused or native-params kinds, f32 no native-params one.
      if (index.Find(kind, target, e.config) == nullptr) continue;
      testing::internal::CaptureStderr();
      const Variant* picked = Pick(RequestIn(kind, e.hidden_bucket, e.row_bucket));
      const std::string printed = testing::internal::GetCapturedStderr();
      ASSERT_NE(picked, nullptr);
      EXPECT_EQ(picked->config_index, e.config) << picked->name;
      EXPECT_EQ(picked->fused_residual, residual) << picked->name;
      EXPECT_EQ(picked->native_params, native_params) << picked->name;
      EXPECT_THAT(printed,
                  HasSubstr(absl::StrCat(
                      "-> ", picked->name, " (built-in table ", BuiltInTuningSource(e.target), ": ",
                      DescribeBuckets(e.op, e.hidden_bucket, e.row_bucket), "; cpu ")));
      checked++;
      checked_cpu_table += *e.cpu != '\0';
    }
    cpu_table_entries +=
        *e.cpu != '\0' &&
        index.DispatchTarget({e.op, e.direction, e.dtype, false}) == index.TargetIndex(e.target);
  }
  if (checked == 0) GTEST_SKIP() << "the built-in table has no entry for the dispatch target";
  // A CPU's table for the dispatch target is in use, not only the default.
  EXPECT_EQ(checked_cpu_table > 0, cpu_table_entries > 0);
}

TEST_F(TuningDispatchTest, BucketsWithoutAnEntryTakeTheNearestRowBucketsOrConfigZero) {
  const VariantIndex& index = VariantIndex::Get();
  const int target = index.DispatchTarget(kLayerNormF32);
  const TuningTable& built_in = BuiltInTuningTable();
  for (int h = 0; h < kHiddenBuckets; h++) {
    for (int r = 0; r < kRowBuckets; r++) {
      const TuningKey key{
          kLayerNormF32.op, kLayerNormF32.direction, kLayerNormF32.dtype, target, h, r};
      if (built_in.Config(key) >= 0) continue;
      const TuningTable::Entry nearest = built_in.Nearest(key);
      testing::internal::CaptureStderr();
      const Variant* picked = Pick(RequestIn(kLayerNormF32, h, r));
      const std::string printed = testing::internal::GetCapturedStderr();
      ASSERT_NE(picked, nullptr);
      const std::string buckets = DescribeBuckets(kLayerNormF32.op, h, r);
      if (nearest.config < 0) {
        EXPECT_EQ(picked->config_index, 0) << picked->name;
        EXPECT_THAT(printed, HasSubstr(absl::StrCat("-> ", picked->name,
                                                    " (default config: no table entry for ",
                                                    buckets, "; cpu ")));
      } else {
        EXPECT_NE(nearest.row_bucket, r);
        EXPECT_EQ(picked->config_index, nearest.config) << picked->name;
        EXPECT_THAT(printed,
                    HasSubstr(absl::StrCat(": ", buckets, " (no entry; the nearest: ",
                                           DescribeBuckets(kLayerNormF32.op, h, nearest.row_bucket),
                                           "); cpu ")));
      }
    }
  }
}

TEST_F(TuningDispatchTest, ALoadedFileOverridesTheBuiltInTable) {
  if (!HasTwoConfigs(kLayerNormF32)) GTEST_SKIP() << "the dispatch target has one config";
  const VariantKind fused{kLayerNormF32.op, kLayerNormF32.direction, kLayerNormF32.dtype, true};
  const Picks baseline = PickEveryBucket(kLayerNormF32);
  const TuningFile file = FileAvoiding(kLayerNormF32, baseline);
  const std::string path = WriteTestFile("override.tuning", file.ToText());
  ASSERT_EQ(halnorm_load_tuning_file(path.c_str()), HALNORM_OK) << halnorm_last_error();
  EXPECT_EQ(std::string(halnorm_tuning_source()), "tuning file " + path);

  for (const TuningEntry& e : file.entries) {
    testing::internal::CaptureStderr();
    const Variant* picked = Pick(RequestIn(kLayerNormF32, e.hidden_bucket, e.row_bucket));
    const std::string printed = testing::internal::GetCapturedStderr();
    EXPECT_EQ(picked, e.variant);
    EXPECT_NE(picked, baseline[e.hidden_bucket][e.row_bucket]);
    EXPECT_THAT(printed,
                HasSubstr(absl::StrCat(
                    "-> ", e.variant->name, " (tuning file ", path, ": ",
                    DescribeBuckets(kLayerNormF32.op, e.hidden_bucket, e.row_bucket), "; cpu ")));
    // The forward entry also picks the fused-residual variant's config.
    const Variant* picked_fused = Pick(RequestIn(fused, e.hidden_bucket, e.row_bucket));
    ASSERT_NE(picked_fused, nullptr);
    EXPECT_TRUE(picked_fused->fused_residual);
    EXPECT_EQ(picked_fused->config_index, e.variant->config_index);
  }
  // Keys the file lacks still use the built-in table.
  const VariantKind rms{Op::kRmsNorm, Direction::kForward, HALNORM_F32, false};
  ASSERT_EQ(halnorm_load_tuning_file(nullptr), HALNORM_OK);
  const Picks rms_built_in = PickEveryBucket(rms);
  ASSERT_EQ(halnorm_load_tuning_file(path.c_str()), HALNORM_OK);
  EXPECT_EQ(PickEveryBucket(rms), rms_built_in);

  ASSERT_EQ(halnorm_load_tuning_file(nullptr), HALNORM_OK);
  EXPECT_STREQ(halnorm_tuning_source(), "built-in table");
  EXPECT_EQ(PickEveryBucket(kLayerNormF32), baseline);
}

TEST_F(TuningDispatchTest, ABadFileIsRefusedAndTheTableInUseStays) {
  const Picks built_in = PickEveryBucket(kLayerNormF32);
  const std::string good =
      WriteTestFile("good.tuning", FileAvoiding(kLayerNormF32, built_in).ToText());
  ASSERT_EQ(halnorm_load_tuning_file(good.c_str()), HALNORM_OK) << halnorm_last_error();
  const Picks from_file = PickEveryBucket(kLayerNormF32);

  const std::string header = TuningFile{}.ToText();  // an entry after it is on line `entry`
  const auto entry = std::count(header.begin(), header.end(), '\n') + 1;
  // This build's lowest target (the entries must fail for their own reason,
  // not for naming another architecture's target).
  const VariantIndex& index = VariantIndex::Get();
  const Variant* c0 = index.Find(kLayerNormF32, 0, 0);
  ASSERT_NE(c0, nullptr);
  const std::string target = c0->target, c7 = absl::StrCat("layer_norm_fwd_f32__", target, "_c7");
  const struct {
    std::string name, text, error;
  } bad_files[] = {
      {"garbage.tuning", "\x01\x02garbage\n", "line 1: expected the header"},
      {"version.tuning", "halnorm-tuning 9\n", "line 1: version 9 is not supported"},
      {"foreign.tuning", "halnorm-tuning 1\nfingerprint 0x0000000000000000\n",
       "line 2: fingerprint 0x0000000000000000 is not this library's"},
      {"unknown_op.tuning", absl::StrCat(header, "group_norm fwd f32 ", target, " 0 0 x\n"),
       absl::StrCat("line ", entry, ": unknown op 'group_norm'")},
      {"unknown_variant.tuning",
       absl::StrCat(header, "layer_norm fwd f32 ", target, " 0 0 ", c7, "\n"),
       absl::StrCat("line ", entry, ": unknown variant ", c7)},
      {"misfit.tuning",
       absl::StrCat(header, "layer_norm bwd f32 ", target, " 0 0 ", c0->name, "\n"),
       absl::StrCat("line ", entry, ": variant ", c0->name,
                    " does not compute layer_norm bwd f32")},
      {"bucket.tuning",
       absl::StrCat(header, "layer_norm fwd f32 ", target, " 0 ", kRowBuckets, " ", c0->name, "\n"),
       absl::StrCat("line ", entry, ": row bucket '", kRowBuckets, "' is not in 0..",
                    kRowBuckets - 1)},
  };
  for (const auto& bad : bad_files) {
    const std::string path = WriteTestFile(bad.name, bad.text);
    EXPECT_EQ(halnorm_load_tuning_file(path.c_str()), HALNORM_ERROR_INVALID_ARGUMENT) << bad.name;
    EXPECT_THAT(halnorm_last_error(),
                HasSubstr(absl::StrCat("tuning file ", path, ": ", bad.error)));
    EXPECT_EQ(std::string(halnorm_tuning_source()), "tuning file " + good);
    EXPECT_EQ(PickEveryBucket(kLayerNormF32), from_file) << bad.name;
  }
  const struct {
    std::string path, error;
  } unreadable[] = {
      {testutil::TestFilePath("no/such.tuning"), "cannot open it: No such file or directory"},
      {testutil::TestFilePath(""), "cannot read it: Is a directory"},
  };
  for (const auto& bad : unreadable) {
    EXPECT_EQ(halnorm_load_tuning_file(bad.path.c_str()), HALNORM_ERROR_INVALID_ARGUMENT);
    EXPECT_THAT(halnorm_last_error(),
                HasSubstr(absl::StrCat("tuning file ", bad.path, ": ", bad.error)));
    EXPECT_EQ(std::string(halnorm_tuning_source()), "tuning file " + good);
    EXPECT_EQ(PickEveryBucket(kLayerNormF32), from_file);
  }
}

// Readers dispatch while the table is swapped: every pick is one of the two
// tables' (and nothing crashes).
TEST_F(TuningDispatchTest, SwappingTablesWhileDispatchingIsSafe) {
  const KernelRequest request = RequestIn(kLayerNormF32, 1, 0);
  const Variant* built_in = Pick(request);
  Picks baseline = PickEveryBucket(kLayerNormF32);
  const std::string path =
      WriteTestFile("swap.tuning", FileAvoiding(kLayerNormF32, baseline).ToText());
  ASSERT_EQ(halnorm_load_tuning_file(path.c_str()), HALNORM_OK);
  const Variant* from_file = Pick(request);
  testing::internal::CaptureStderr();  // verbose lines of the readers
  std::atomic<bool> done{false};
  std::atomic<int> unexpected{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; t++) {
    readers.emplace_back([&] {
      while (!done.load()) {
        absl::StatusOr<const Variant*> v = PickVariant(request);
        if (!v.ok() || (*v != built_in && *v != from_file)) unexpected++;
      }
    });
  }
  for (int i = 0; i < 200; i++) {
    ASSERT_EQ(halnorm_load_tuning_file(i % 2 ? path.c_str() : nullptr), HALNORM_OK);
  }
  done = true;
  for (std::thread& t : readers) t.join();
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(unexpected.load(), 0);
}

// The C API passes each call's real geometry: rows are all leading dims
// (N*H*W pixels for LayerNorm2d over C), hidden the normalized size.
TEST_F(TuningDispatchTest, CallsDispatchOnTheirRowsAndHidden) {
  using testutil::TestTensor;
  TestTensor x({2, 8, 768}), y({2, 8, 768}), dy({2, 8, 768}), dx({2, 8, 768});
  TestTensor mean({2, 8}), rstd({2, 8});
  testutil::FillNormal(x, 1);
  testutil::FillNormal(dy, 2);
  TestTensor image({2, 32, 4, 5}), image_out({2, 32, 4, 5}), image_dy({2, 32, 4, 5});
  TestTensor pixel_mean({2, 4, 5}), pixel_rstd({2, 4, 5}), sample_mean({2}), sample_rstd({2});
  testutil::FillNormal(image, 3);
  testutil::FillNormal(image_dy, 4);
  struct Call {
    const char* expected;
    std::function<int()> run;
  };
  const Call calls[] = {
      {"layer_norm fwd f32 hidden=768 rows=16 -> ",
       [&] {
         return halnorm_layer_norm_forward(x.view(), nullptr, nullptr, nullptr, y.view(),
                                           mean.view(), rstd.view());
       }},
      {"layer_norm bwd f32 hidden=768 rows=16 -> ",
       [&] {
         return halnorm_layer_norm_backward(dy.view(), x.view(), mean.view(), rstd.view(), nullptr,
                                            nullptr, dx.view(), nullptr, nullptr);
       }},
      {"rms_norm fwd f32 hidden=768 rows=16 -> ",
       [&] { return halnorm_rms_norm_forward(x.view(), nullptr, nullptr, y.view(), rstd.view()); }},
      {"layer_norm2d fwd f32 hidden=32 rows=40 -> ",
       [&] {
         return halnorm_layer_norm2d_forward(image.view(), nullptr, nullptr, HALNORM_AXES_C, 1e-5f,
                                             image_out.view(), pixel_mean.view(),
                                             pixel_rstd.view());
       }},
      {"layer_norm2d bwd f32 hidden=32 rows=40 -> ",
       [&] {
         return halnorm_layer_norm2d_backward(image_dy.view(), image.view(), pixel_mean.view(),
                                              pixel_rstd.view(), nullptr, HALNORM_AXES_C,
                                              image_out.view(), nullptr, nullptr);
       }},
      {"layer_norm fwd f32 hidden=640 rows=2 -> ",  // AXES_CHW: a sample is a row
       [&] {
         return halnorm_layer_norm2d_forward(image.view(), nullptr, nullptr, HALNORM_AXES_CHW,
                                             1e-5f, image_out.view(), sample_mean.view(),
                                             sample_rstd.view());
       }},
  };
  for (const Call& call : calls) {
    testing::internal::CaptureStderr();
    const int status = call.run();
    const std::string printed = testing::internal::GetCapturedStderr();
    EXPECT_EQ(status, HALNORM_OK) << halnorm_last_error();
    EXPECT_THAT(printed, HasSubstr(std::string("halnorm dispatch: ") + call.expected));
  }
}

}  // namespace
}  // namespace halnorm::internal
