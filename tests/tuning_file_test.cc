// The runtime tuning file format: ToText and Parse round-trip, and every
// kind of bad file is refused with the line and the fault.
#include "runtime/tuning_file.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/tuning_buckets.h"
#include "runtime/variant_index.h"

namespace halnorm::internal {
namespace {

using ::testing::HasSubstr;

// Every plain (not fused-residual, not native-params) variant once, in
// registry order. Variants differing only in config are neighbours, so
// numbering the bucket pairs hidden-fastest gives them distinct pairs and no key repeats.
std::vector<TuningEntry> EveryPlainVariant() {
  std::vector<TuningEntry> entries;
  int i = 0;
  for (const Variant& v : AllVariants()) {
    if (v.fused_residual || v.native_params) continue;
    entries.push_back({i % kHiddenBuckets, (i / kHiddenBuckets) % kRowBuckets, &v});
    i++;
  }
  return entries;
}

const Variant& FirstPlain(Op op, Direction direction) {
  for (const Variant& v : AllVariants()) {
    if (v.op == op && v.direction == direction && !v.fused_residual && !v.native_params) return v;
  }
  ADD_FAILURE() << "no plain variant of " << OpName(op);
  return AllVariants()[0];
}

// A target of this library other than `v`'s.
std::string OtherTarget(const Variant& v) {
  const VariantIndex& index = VariantIndex::Get();
  for (int t = 0; t < index.target_count(); t++) {
    if (std::string(index.target_name(t)) != v.target) return index.target_name(t);
  }
  ADD_FAILURE() << "this library has one target";
  return v.target;
}

std::string Header() {
  return absl::StrFormat("halnorm-tuning 1\nfingerprint 0x%016x\n", LibraryFingerprint());
}

// A line 3 entry naming `v` with its own key.
std::string EntryFor(const Variant& v, int hidden_bucket = 1, int row_bucket = 0) {
  return absl::StrCat(OpName(v.op), " ", DirectionName(v.direction), " ", DtypeName(v.dtype), " ",
                      v.target, " ", hidden_bucket, " ", row_bucket, " ", v.name, "\n");
}

TEST(TuningFileTest, RoundTripsEveryVariant) {
  TuningFile file{EveryPlainVariant()};
  ASSERT_FALSE(file.entries.empty());
  const std::string text = file.ToText();
  absl::StatusOr<TuningFile> parsed = TuningFile::Parse(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << text;
  EXPECT_EQ(parsed->entries, file.entries);
  EXPECT_THAT(text, HasSubstr(absl::StrFormat("fingerprint 0x%016x", LibraryFingerprint())));
}

TEST(TuningFileTest, IgnoresCommentsBlankLinesAndExtraWhitespace) {
  TuningFile file{EveryPlainVariant()};
  file.entries.resize(3);
  std::string text = absl::StrCat("# tuned by hand\n\n", file.ToText(), "\n   # the end\n");
  text = absl::StrReplaceAll(text, {{" ", " \t "}, {"\n", "  # note\r\n\n"}});
  absl::StatusOr<TuningFile> parsed = TuningFile::Parse(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << text;
  EXPECT_EQ(parsed->entries, file.entries);
}

TEST(TuningFileTest, AnEmptyTableIsValid) {
  absl::StatusOr<TuningFile> parsed = TuningFile::Parse(Header());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->entries.empty());
}

TEST(TuningFileTest, ToTableMapsEachKeyToItsConfig) {
  const Variant& v = FirstPlain(Op::kRmsNorm, Direction::kBackward);
  const TuningTable table = TuningFile{{{2, 1, &v}}}.ToTable();
  const int target = VariantIndex::Get().TargetIndex(v.target);
  EXPECT_EQ(table.Config({v.op, v.direction, v.dtype, target, 2, 1}), v.config_index);
  EXPECT_EQ(table.Config({v.op, v.direction, v.dtype, target, 2, 2}), -1);
  EXPECT_EQ(table.Config({Op::kLayerNorm, v.direction, v.dtype, target, 2, 1}), -1);
}

TEST(TuningFileTest, ABucketWithoutAnEntryTakesTheNearestRowBucketsOfItsHiddenBucket) {
  TuningTable table(/*target_count=*/1);
  const TuningKey small{Op::kRmsNorm, Direction::kBackward, HALNORM_F32, 0, 2, 0};
  TuningKey large = small;
  large.row_bucket = 3;
  table.Set(small, 5);
  table.Set(large, 7);
  auto nearest = [&](int hidden_bucket, int row_bucket) {
    TuningKey key = small;
    key.hidden_bucket = hidden_bucket;
    key.row_bucket = row_bucket;
    const TuningTable::Entry e = table.Nearest(key);
    return std::make_pair(e.config, e.row_bucket);
  };
  EXPECT_EQ(nearest(2, 0), std::make_pair(5, 0));
  EXPECT_EQ(nearest(2, 1), std::make_pair(5, 0));
  EXPECT_EQ(nearest(2, 2), std::make_pair(7, 3));
  EXPECT_EQ(nearest(2, 3), std::make_pair(7, 3));
  // Other hidden buckets lend nothing.
  EXPECT_EQ(nearest(1, 0).first, -1);
}

TEST(TuningFileTest, DescribesBucketsByTheirBounds) {
  EXPECT_EQ(DescribeBuckets(Op::kLayerNorm, 1, 0), "hidden<=1024 rows<=16");
  EXPECT_EQ(DescribeBuckets(Op::kRmsNorm, kHiddenBuckets - 1, kRowBuckets - 1),
            "hidden>4096 rows>4096");
  // LayerNorm2d's channel counts have finer bounds.
  EXPECT_EQ(DescribeBuckets(Op::kLayerNorm2d, 0, 2), "channels<=128 rows<=4096");
  EXPECT_EQ(DescribeBuckets(Op::kLayerNorm2d, 1, 1), "channels<=256 rows<=512");
}

TEST(TuningFileTest, LayerNorm2dBucketsChannelsByTheirOwnBounds) {
  EXPECT_EQ(HiddenBucket(Op::kLayerNorm2d, 96), 0);
  EXPECT_EQ(HiddenBucket(Op::kLayerNorm2d, 256), 1);
  EXPECT_EQ(HiddenBucket(Op::kLayerNorm2d, 384), 2);
  EXPECT_EQ(HiddenBucket(Op::kLayerNorm2d, 1025), 3);
  EXPECT_EQ(HiddenBucket(Op::kLayerNorm, 96), 0);
  EXPECT_EQ(HiddenBucket(Op::kLayerNorm, 256), 0);
  EXPECT_EQ(HiddenBucket(Op::kLayerNorm, 384), 1);
}

struct BadFile {
  std::string what;
  std::string text;
  std::string error;  // a substring of the message
};

std::vector<BadFile> BadFiles() {
  const Variant& layer = FirstPlain(Op::kLayerNorm, Direction::kForward);
  const Variant* residual = nullptr;
  const Variant* native_params = nullptr;
  for (const Variant& v : AllVariants()) {
    if (v.fused_residual) residual = &v;
    if (v.native_params) native_params = &v;
  }
  const std::string name = layer.name;
  const std::string unknown = name.substr(0, name.rfind("_c")) + "_c99";
  const std::string key =
      absl::StrCat("layer_norm fwd ", DtypeName(layer.dtype), " ", layer.target);
  const uint64_t other = LibraryFingerprint() ^ 1;
  std::vector<BadFile> files = {
      {"garbage",
       "\x7f"
       "ELF\x02\x01 binary junk\n",
       "line 1: expected the header 'halnorm-tuning 1', got '?ELF??"},
      {"bad header", "halnorm-tuned 1\n", "line 1: expected the header 'halnorm-tuning 1'"},
      {"newer version", "halnorm-tuning 2\n", "line 1: version 2 is not supported"},
      {"empty", "# nothing\n\n", "empty file: expected the header"},
      {"no fingerprint", "halnorm-tuning 1\n", "ends after its header"},
      {"entry instead of fingerprint", "# c\nhalnorm-tuning 1\n" + EntryFor(layer),
       "line 3: expected 'fingerprint 0x<16 hex digits>'"},
      {"bad fingerprint", "halnorm-tuning 1\nfingerprint 12ab\n", "line 2: expected 'fingerprint"},
      {"other build", absl::StrFormat("halnorm-tuning 1\nfingerprint 0x%016x\n", other),
       absl::StrFormat("line 2: fingerprint 0x%016x is not this library's 0x%016x (tuned for "
                       "another build)",
                       other, LibraryFingerprint())},
      {"unknown op", Header() + "layer_nrm fwd f32 " + layer.target + " 1 0 " + name,
       "line 3: unknown op 'layer_nrm' (known: layer_norm, rms_norm, layer_norm2d)"},
      {"unknown direction", Header() + "layer_norm up f32 " + layer.target + " 1 0 " + name,
       "line 3: unknown direction 'up'"},
      {"unknown dtype", Header() + "layer_norm fwd f64 " + layer.target + " 1 0 " + name,
       "line 3: unknown dtype 'f64'"},
      {"unknown target", Header() + "layer_norm fwd f32 x86_avx9 1 0 " + name,
       "line 3: unknown target 'x86_avx9'"},
      {"hidden bucket too large", Header() + key + " 4 0 " + name,
       "line 3: hidden bucket '4' is not in 0..3"},
      {"negative row bucket", Header() + key + " 1 -1 " + name,
       absl::StrCat("line 3: row bucket '-1' is not in 0..", kRowBuckets - 1)},
      {"bucket not a number", Header() + key + " one 0 " + name,
       "line 3: hidden bucket 'one' is not in 0..3"},
      {"unknown variant", Header() + key + " 1 0 " + unknown, "line 3: unknown variant " + unknown},
      {"variant of another op",
       Header() + "rms_norm fwd " + DtypeName(layer.dtype) + " " + layer.target + " 1 0 " + name,
       absl::StrCat("line 3: variant ", name, " does not compute rms_norm fwd")},
      {"variant of another target",
       Header() + "layer_norm fwd " + DtypeName(layer.dtype) + " " + OtherTarget(layer) + " 1 0 " +
           name,
       absl::StrCat("line 3: variant ", name, " does not compute layer_norm fwd ",
                    DtypeName(layer.dtype), " on ", OtherTarget(layer))},
      {"fused-residual variant", Header() + EntryFor(*residual),
       absl::StrCat("line 3: variant ", residual->name, " is fused with the residual add")},
      {"too few fields", Header() + key + " 1 0\n", "line 3: expected 7 fields"},
      {"duplicate key", Header() + "\n" + EntryFor(layer) + "#\n" + EntryFor(layer),
       "line 6: a second entry for " + key + " hidden<=1024 rows<=16 (the first is on line 4)"},
  };
  if (native_params != nullptr) {  // CPU targets with 16-bit kernels have them
    files.push_back({"native-params variant", Header() + EntryFor(*native_params),
                     absl::StrCat("line 3: variant ", native_params->name,
                                  " takes 16-bit weight and bias as they are")});
  }
  return files;
}

TEST(TuningFileTest, RefusesBadFilesNamingTheLineAndFault) {
  for (const BadFile& bad : BadFiles()) {
    absl::StatusOr<TuningFile> parsed = TuningFile::Parse(bad.text);
    ASSERT_FALSE(parsed.ok()) << bad.what << " was accepted:\n" << bad.text;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << bad.what;
    EXPECT_THAT(std::string(parsed.status().message()), HasSubstr(bad.error)) << bad.what;
  }
}

}  // namespace
}  // namespace halnorm::internal
