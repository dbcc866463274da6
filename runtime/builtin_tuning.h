// The built-in dispatch table: the tuned tables of schedules/tuned/, compiled
// in through the generated tuning.inc. A tuned file's default table serves
// every CPU; its cpu_tables serve one vendor's CPUs ("amd"), one core
// generation's ("amd_family23") or one model's ("amd_family25_model1"),
// replacing the less specific tables' entries bucket by bucket.
#ifndef HALNORM_RUNTIME_BUILTIN_TUNING_H_
#define HALNORM_RUNTIME_BUILTIN_TUNING_H_

#include <string>
#include <vector>

#include "absl/types/span.h"
#include "runtime/tuning_table.h"

namespace halnorm::internal {

// One HALNORM_TUNED line of tuning.inc.
struct BuiltInTuningEntry {
  Op op;
  Direction direction;
  halnorm_dtype dtype;
  const char* target;
  int hidden_bucket;
  int row_bucket;
  int config;
  const char* cpu;     // "" (the default table) or the key of its cpu_tables table
  const char* source;  // the schedules/tuned/ file it comes from
};

absl::Span<const BuiltInTuningEntry> BuiltInTuningEntries();

// The cpu_tables that apply, most specific first: CpuTableChain() of
// HALNORM_TUNING_CPU when set (read once; "none": the default tables only),
// else HostCpuTables().
const std::vector<std::string>& BuiltInTableCpus();

// Whether `entry` decides dispatch here: an entry of the most specific of
// BuiltInTableCpus()' tables (or of the default table) holding its buckets.
bool InUse(const BuiltInTuningEntry& entry);

// The entries as a table, built on first use. An entry whose target or
// config this library lacks cannot occur: the build checks every table
// against the configs it compiles.
const TuningTable& BuiltInTuningTable();

// Where a target's built-in entries come from: "schedules/tuned/x86_avx2.bzl"
// (a target tuned as another has that one's file), followed by the
// cpu_tables whose entries are in use: ", amd table", ", amd_family23 and amd
// tables".
std::string BuiltInTuningSource(const char* target);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_BUILTIN_TUNING_H_
