#include "runtime/builtin_tuning.h"

#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/cpu_features.h"
#include "runtime/tuning_buckets.h"
#include "runtime/variant_index.h"

namespace halnorm::internal {
namespace {

// A table generated against other bucket bounds fails to compile here.
#define HALNORM_TUNED(op, direction, dtype, target, hidden_bucket, row_bucket, config, cpu, \
                      source)                                                                \
  static_assert(hidden_bucket >= 0 && hidden_bucket < kHiddenBuckets && row_bucket >= 0 &&   \
                    row_bucket < kRowBuckets,                                                \
                "tuning.inc: bucket out of range of runtime/tuning_buckets.h");
#include "runtime/tuning.inc"
#undef HALNORM_TUNED

bool SameKey(const BuiltInTuningEntry& a, const BuiltInTuningEntry& b) {
  return a.op == b.op && a.direction == b.direction && a.dtype == b.dtype &&
         std::strcmp(a.target, b.target) == 0 && a.hidden_bucket == b.hidden_bucket &&
         a.row_bucket == b.row_bucket;
}

}  // namespace

absl::Span<const BuiltInTuningEntry> BuiltInTuningEntries() {
  static const auto* entries = new std::vector<BuiltInTuningEntry>{
#define HALNORM_TUNED(op, direction, dtype, target, hidden_bucket, row_bucket, config, cpu, \
                      source)                                                                \
  {Op::op, Direction::direction, dtype, target, hidden_bucket, row_bucket, config, cpu, source},
#include "runtime/tuning.inc"
#undef HALNORM_TUNED
  };
  return *entries;
}

const std::string& BuiltInTableCpu() {
  static const auto* cpu = [] {
    const char* forced = std::getenv("HALNORM_TUNING_CPU");
    if (forced == nullptr || *forced == '\0') return new std::string(HostCpuVendor());
    return new std::string(std::strcmp(forced, "none") == 0 ? "" : forced);
  }();
  return *cpu;
}

bool InUse(const BuiltInTuningEntry& entry) {
  const std::string& cpu = BuiltInTableCpu();
  if (*entry.cpu != '\0') return entry.cpu == cpu;
  if (cpu.empty()) return true;
  for (const BuiltInTuningEntry& e : BuiltInTuningEntries()) {
    if (e.cpu == cpu && SameKey(e, entry)) return false;
  }
  return true;
}

const TuningTable& BuiltInTuningTable() {
  static const TuningTable* table = [] {
    const VariantIndex& index = VariantIndex::Get();
    auto* built = new TuningTable(index.target_count());
    for (const BuiltInTuningEntry& e : BuiltInTuningEntries()) {
      const int target = index.TargetIndex(e.target);
      // tools/bazel/tuning.bzl only lets compiled targets through
      if (target < 0 || !InUse(e)) continue;
      built->Set({e.op, e.direction, e.dtype, target, e.hidden_bucket, e.row_bucket}, e.config);
    }
    return built;
  }();
  return *table;
}

std::string BuiltInTuningSource(const char* target) {
  std::string source = absl::StrCat("schedules/tuned/", target, ".bzl");
  bool cpu_table = false;
  for (const BuiltInTuningEntry& e : BuiltInTuningEntries()) {
    if (std::strcmp(e.target, target) != 0) continue;
    source = e.source;
    cpu_table = cpu_table || (*e.cpu != '\0' && e.cpu == BuiltInTableCpu());
  }
  return cpu_table ? absl::StrCat(source, ", ", BuiltInTableCpu(), " table") : source;
}

}  // namespace halnorm::internal
