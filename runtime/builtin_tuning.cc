#include "runtime/builtin_tuning.h"

#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/tuning_buckets.h"
#include "runtime/variant_index.h"

namespace halnorm::internal {

// A table generated against other bucket bounds fails to compile here.
#define HALNORM_TUNED(op, direction, dtype, target, hidden_bucket, row_bucket, config, source) \
  static_assert(hidden_bucket >= 0 && hidden_bucket < kHiddenBuckets && row_bucket >= 0 && \
                    row_bucket < kRowBuckets,                                              \
                "tuning.inc: bucket out of range of runtime/tuning_buckets.h");
#include "runtime/tuning.inc"
#undef HALNORM_TUNED

absl::Span<const BuiltInTuningEntry> BuiltInTuningEntries() {
  static const auto* entries = new std::vector<BuiltInTuningEntry>{
#define HALNORM_TUNED(op, direction, dtype, target, hidden_bucket, row_bucket, config, source) \
  {Op::op, Direction::direction, dtype, target, hidden_bucket, row_bucket, config, source},
#include "runtime/tuning.inc"
#undef HALNORM_TUNED
  };
  return *entries;
}

const TuningTable& BuiltInTuningTable() {
  static const TuningTable* table = [] {
    const VariantIndex& index = VariantIndex::Get();
    auto* built = new TuningTable(index.target_count());
    for (const BuiltInTuningEntry& e : BuiltInTuningEntries()) {
      const int target = index.TargetIndex(e.target);
      if (target < 0) continue;  // tools/bazel/tuning.bzl only lets compiled targets through
      built->Set({e.op, e.direction, e.dtype, target, e.hidden_bucket, e.row_bucket}, e.config);
    }
    return built;
  }();
  return *table;
}

std::string BuiltInTuningSource(const char* target) {
  for (const BuiltInTuningEntry& e : BuiltInTuningEntries()) {
    if (std::strcmp(e.target, target) == 0) return e.source;
  }
  return absl::StrCat("schedules/tuned/", target, ".bzl");
}

}  // namespace halnorm::internal
