#include "runtime/tuning_file.h"

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "runtime/status.h"
#include "runtime/tuning_buckets.h"
#include "runtime/variant_index.h"

namespace halnorm::internal {
namespace {

constexpr absl::string_view kMagic = "halnorm-tuning";
constexpr int kVersion = 1;
constexpr char kColumns[] = "op direction dtype target hidden_bucket row_bucket variant";

constexpr Op kOps[] = {Op::kLayerNorm, Op::kRmsNorm, Op::kLayerNorm2d};
constexpr Direction kDirections[] = {Direction::kForward, Direction::kBackward};
constexpr halnorm_dtype kDtypes[] = {HALNORM_F32, HALNORM_F16, HALNORM_BF16};

std::string Hex(uint64_t value) { return absl::StrFormat("0x%016x", value); }

// The line as the error quotes it: garbage can be long or binary.
std::string Quote(absl::string_view line) {
  constexpr size_t kMax = 60;
  std::string shown(line.substr(0, kMax));
  for (char& c : shown) {
    if (c < ' ' || c > '~') c = '?';
  }
  return absl::StrCat("'", shown, line.size() > kMax ? "...'" : "'");
}

// Finds the value whose `name_of` is `token`; an error listing the known
// names otherwise.
template <typename T, size_t N, typename NameOf>
absl::Status ParseName(absl::string_view token, const T (&values)[N], NameOf name_of,
                       const char* what, T* out) {
  std::vector<std::string> known;
  for (T value : values) {
    if (token == name_of(value)) {
      *out = value;
      return absl::OkStatus();
    }
    known.push_back(name_of(value));
  }
  return InvalidArgument("unknown ", what, " '", token, "' (known: ", absl::StrJoin(known, ", "),
                         ")");
}

absl::Status ParseBucket(absl::string_view token, const char* what, int count, int* out) {
  if (!absl::SimpleAtoi(token, out) || *out < 0 || *out >= count) {
    return InvalidArgument(what, " bucket '", token, "' is not in 0..", count - 1,
                           " (runtime/tuning_buckets.h)");
  }
  return absl::OkStatus();
}

absl::Status ParseHeader(const std::vector<absl::string_view>& fields) {
  int version = 0;
  if (fields.size() != 2 || fields[0] != kMagic || !absl::SimpleAtoi(fields[1], &version)) {
    return InvalidArgument("expected the header '", kMagic, " ", kVersion, "', got ",
                           Quote(absl::StrJoin(fields, " ")));
  }
  if (version != kVersion) {
    return InvalidArgument("version ", version, " is not supported (this library reads version ",
                           kVersion, ")");
  }
  return absl::OkStatus();
}

absl::Status ParseFingerprint(const std::vector<absl::string_view>& fields) {
  uint64_t fingerprint = 0;
  absl::string_view hex = fields.size() == 2 ? fields[1] : "";
  if (fields.size() != 2 || fields[0] != "fingerprint" || !absl::ConsumePrefix(&hex, "0x") ||
      hex.empty() || hex.size() > 16 || !absl::SimpleHexAtoi(hex, &fingerprint)) {
    return InvalidArgument("expected 'fingerprint 0x<16 hex digits>' after the header, got ",
                           Quote(absl::StrJoin(fields, " ")));
  }
  if (fingerprint != LibraryFingerprint()) {
    return InvalidArgument("fingerprint ", Hex(fingerprint), " is not this library's ",
                           Hex(LibraryFingerprint()), " (tuned for another build)");
  }
  return absl::OkStatus();
}

absl::StatusOr<TuningEntry> ParseEntry(const std::vector<absl::string_view>& fields) {
  if (fields.size() != 7) {
    return InvalidArgument("expected 7 fields (", kColumns, "), got ", fields.size());
  }
  Op op{};  // (set by ParseName; initialized for GCC's -Wmaybe-uninitialized)
  Direction direction{};
  halnorm_dtype dtype{};
  HALNORM_RETURN_IF_ERROR(ParseName(fields[0], kOps, OpName, "op", &op));
  HALNORM_RETURN_IF_ERROR(
      ParseName(fields[1], kDirections, DirectionName, "direction", &direction));
  HALNORM_RETURN_IF_ERROR(ParseName(fields[2], kDtypes, DtypeName, "dtype", &dtype));
  const absl::string_view target = fields[3];
  if (VariantIndex::Get().TargetIndex(target) < 0) {
    return InvalidArgument("unknown target '", target, "' (not compiled into this library)");
  }
  TuningEntry entry{};
  HALNORM_RETURN_IF_ERROR(ParseBucket(fields[4], "hidden", kHiddenBuckets, &entry.hidden_bucket));
  HALNORM_RETURN_IF_ERROR(ParseBucket(fields[5], "row", kRowBuckets, &entry.row_bucket));
  entry.variant = FindVariant(fields[6]);
  if (entry.variant == nullptr) return InvalidArgument("unknown variant ", fields[6]);
  const Variant& v = *entry.variant;
  if (v.op != op || v.direction != direction || v.dtype != dtype || v.target != target) {
    return InvalidArgument("variant ", v.name, " does not compute ", fields[0], " ", fields[1], " ",
                           fields[2], " on ", target);
  }
  if (v.fused_residual || v.native_params) {
    return InvalidArgument("variant ", v.name,
                           v.fused_residual ? " is fused with the residual add"
                                            : " takes 16-bit weight and bias as they are",
                           "; name its plain variant, whose entry covers both");
  }
  return entry;
}

// The fields of a line, comments and whitespace dropped.
std::vector<absl::string_view> Fields(absl::string_view line) {
  line = line.substr(0, line.find('#'));
  return absl::StrSplit(line, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
}

}  // namespace

uint64_t LibraryFingerprint() {
  static const uint64_t fingerprint = [] {
    uint64_t hash = 14695981039346656037ull;  // FNV-1a 64 offset basis
    auto add = [&hash](absl::string_view text) {
      // The terminating NUL too, so ("ab", "c") and ("a", "bc") differ.
      for (size_t i = 0; i <= text.size(); i++) {
        hash ^= static_cast<unsigned char>(i < text.size() ? text[i] : '\0');
        hash *= 1099511628211ull;  // FNV-1a 64 prime
      }
    };
    for (const Variant& v : AllVariants()) {
      add(v.name);
      add(v.config);
    }
    return hash;
  }();
  return fingerprint;
}

std::string TuningFile::ToText() const {
  std::string text = absl::StrCat(
      "# halnorm runtime tuning file: HALNORM_TUNING_FILE=<this file> or "
      "halnorm_load_tuning_file().\n"
      "# Only the library build with this fingerprint accepts it; rerun the tuner after a "
      "rebuild.\n",
      kMagic, " ", kVersion, "\n", "fingerprint ", Hex(LibraryFingerprint()), "\n", "# ", kColumns,
      "\n");
  for (const TuningEntry& e : entries) {
    const Variant& v = *e.variant;
    absl::StrAppend(&text, OpName(v.op), " ", DirectionName(v.direction), " ", DtypeName(v.dtype),
                    " ", v.target, " ", e.hidden_bucket, " ", e.row_bucket, " ", v.name, "  # ",
                    DescribeBuckets(v.op, e.hidden_bucket, e.row_bucket), "\n");
  }
  return text;
}

absl::StatusOr<TuningFile> TuningFile::Parse(std::string_view std_text) {
  const absl::string_view text(std_text.data(), std_text.size());
  enum class Expect { kHeader, kFingerprint, kEntry } expect = Expect::kHeader;
  TuningFile file;
  // (op, direction, dtype, target, hidden bucket, row bucket) -> its line.
  std::map<std::tuple<Op, Direction, halnorm_dtype, absl::string_view, int, int>, int> lines;
  int number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    number++;
    const std::vector<absl::string_view> fields = Fields(line);
    if (fields.empty()) continue;
    absl::Status status;
    switch (expect) {
      case Expect::kHeader:
        status = ParseHeader(fields);
        expect = Expect::kFingerprint;
        break;
      case Expect::kFingerprint:
        status = ParseFingerprint(fields);
        expect = Expect::kEntry;
        break;
      case Expect::kEntry: {
        absl::StatusOr<TuningEntry> entry = ParseEntry(fields);
        status = entry.status();
        if (!entry.ok()) break;
        const Variant& v = *entry->variant;
        auto [at, inserted] = lines.try_emplace(
            {v.op, v.direction, v.dtype, v.target, entry->hidden_bucket, entry->row_bucket},
            number);
        if (!inserted) {
          status =
              InvalidArgument("a second entry for ", OpName(v.op), " ", DirectionName(v.direction),
                              " ", DtypeName(v.dtype), " ", v.target, " ",
                              DescribeBuckets(v.op, entry->hidden_bucket, entry->row_bucket),
                              " (the first is on line ", at->second, ")");
          break;
        }
        file.entries.push_back(*entry);
        break;
      }
    }
    if (!status.ok()) return InvalidArgument("line ", number, ": ", status.message());
  }
  if (expect == Expect::kHeader) {
    return InvalidArgument("empty file: expected the header '", kMagic, " ", kVersion, "'");
  }
  if (expect == Expect::kFingerprint) {
    return InvalidArgument("the file ends after its header: expected 'fingerprint 0x...'");
  }
  return file;
}

TuningTable TuningFile::ToTable() const {
  const VariantIndex& index = VariantIndex::Get();
  TuningTable table(index.target_count());
  for (const TuningEntry& e : entries) {
    const Variant& v = *e.variant;
    table.Set(
        {v.op, v.direction, v.dtype, index.TargetIndex(v.target), e.hidden_bucket, e.row_bucket},
        v.config_index);
  }
  return table;
}

}  // namespace halnorm::internal
