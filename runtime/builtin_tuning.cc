#include "runtime/builtin_tuning.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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

// Where `cpu`'s table stands in BuiltInTableCpus(): 0 the most specific,
// the default table ("") last; -1 for a table not in use here.
int TableRank(const char* cpu) {
  const std::vector<std::string>& cpus = BuiltInTableCpus();
  if (*cpu == '\0') return static_cast<int>(cpus.size());
  const auto found = std::find(cpus.begin(), cpus.end(), cpu);
  return found == cpus.end() ? -1 : static_cast<int>(found - cpus.begin());
}

// What an entry picks for: each table of a tuned file has one entry per key.
using EntryKey = std::tuple<Op, Direction, halnorm_dtype, std::string, int, int>;
EntryKey KeyOf(const BuiltInTuningEntry& e) {
  return {e.op, e.direction, e.dtype, e.target, e.hidden_bucket, e.row_bucket};
}

// Per key, the rank of the most specific table in use holding it.
const std::map<EntryKey, int>& DecidingRanks() {
  static const auto* ranks = [] {
    auto* best = new std::map<EntryKey, int>;
    for (const BuiltInTuningEntry& e : BuiltInTuningEntries()) {
      const int rank = TableRank(e.cpu);
      if (rank < 0) continue;
      const auto [it, inserted] = best->emplace(KeyOf(e), rank);
      if (!inserted) it->second = std::min(it->second, rank);
    }
    return best;
  }();
  return *ranks;
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

const std::vector<std::string>& BuiltInTableCpus() {
  static const auto* cpus = [] {
    const char* forced = std::getenv("HALNORM_TUNING_CPU");
    if (forced == nullptr || *forced == '\0') return new std::vector<std::string>(HostCpuTables());
    return new std::vector<std::string>(CpuTableChain(forced));
  }();
  return *cpus;
}

bool InUse(const BuiltInTuningEntry& entry) {
  const int rank = TableRank(entry.cpu);
  if (rank < 0) return false;
  const auto deciding = DecidingRanks().find(KeyOf(entry));
  return deciding != DecidingRanks().end() && deciding->second == rank;
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
  std::vector<bool> in_use(BuiltInTableCpus().size());
  for (const BuiltInTuningEntry& e : BuiltInTuningEntries()) {
    if (std::strcmp(e.target, target) != 0) continue;
    source = e.source;
    const int rank = TableRank(e.cpu);
    if (rank >= 0 && rank < static_cast<int>(in_use.size()) && InUse(e)) in_use[rank] = true;
  }
  std::vector<std::string> tables;
  for (size_t i = 0; i < in_use.size(); i++) {
    if (in_use[i]) tables.push_back(BuiltInTableCpus()[i]);
  }
  if (tables.empty()) return source;
  return absl::StrCat(source, ", ", absl::StrJoin(tables, " and "),
                      tables.size() > 1 ? " tables" : " table");
}

}  // namespace halnorm::internal
