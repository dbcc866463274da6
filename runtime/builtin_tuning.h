// The built-in dispatch table: the tuned tables of schedules/tuned/, compiled
// in through the generated tuning.inc.
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
  const char* source;  // the schedules/tuned/ file it comes from
};

absl::Span<const BuiltInTuningEntry> BuiltInTuningEntries();

// The entries as a table, built on first use. An entry whose target or
// config this library lacks cannot occur: the build checks every table
// against the configs it compiles.
const TuningTable& BuiltInTuningTable();

// Where a target's built-in entries come from: "schedules/tuned/x86_avx2.bzl"
// (a target tuned as another has that one's file).
std::string BuiltInTuningSource(const char* target);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_BUILTIN_TUNING_H_
