// The built-in dispatch table: the tuned tables of schedules/tuned/, compiled
// in through the generated tuning.inc. A tuned file's default table serves
// every CPU; its cpu_tables serve one vendor's CPUs, replacing the default
// entry by entry.
#ifndef HALNORM_RUNTIME_BUILTIN_TUNING_H_
#define HALNORM_RUNTIME_BUILTIN_TUNING_H_

#include <string>

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
  const char* cpu;     // "" (the default table) or the vendor of its cpu_tables entry
  const char* source;  // the schedules/tuned/ file it comes from
};

absl::Span<const BuiltInTuningEntry> BuiltInTuningEntries();

// The vendor whose cpu_tables entries apply: HALNORM_TUNING_CPU when set
// (read once; "intel", "amd", or "none" for the default tables only), else
// HostCpuVendor().
const std::string& BuiltInTableCpu();

// Whether `entry` decides dispatch here: an entry of BuiltInTableCpu()'s
// table, or a default one that table does not replace.
bool InUse(const BuiltInTuningEntry& entry);

// The entries as a table, built on first use. An entry whose target or
// config this library lacks cannot occur: the build checks every table
// against the configs it compiles.
const TuningTable& BuiltInTuningTable();

// Where a target's built-in entries come from: "schedules/tuned/x86_avx2.bzl"
// (a target tuned as another has that one's file), followed by ", amd table"
// where entries of a cpu_tables table are in use.
std::string BuiltInTuningSource(const char* target);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_BUILTIN_TUNING_H_
