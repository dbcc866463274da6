// --mode=runtime --update_tuned: the bucket table of
// schedules/tuned/<target>.bzl taken from timings of the compiled variants.
// The JIT search picks configs and table on JIT-compiled kernels; the
// AOT-compiled ones rank differently on some shapes, and the built-in table
// should follow what the library really runs. Only the table changes: the
// configs, and so the kernels a build compiles, stay as they are.
#ifndef HALNORM_TOOLS_AUTOTUNE_MEASURED_TABLE_H_
#define HALNORM_TOOLS_AUTOTUNE_MEASURED_TABLE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/tuning_file.h"
#include "tools/autotune/tuned_bzl.h"

namespace halnorm::autotune {

// The cpu_tables key --update_tuned writes: `flag` (--cpu_table:
// "amd_family25_model1", "amd_family23", "intel_model143", "amd", "intel",
// or "default" for the default table, returned as ""), or when empty the most
// specific of `host_tables` (cpu_features.h HostCpuTables()), "" on a CPU
// without one.
// A malformed key, or one without --update_tuned, is an error naming the flag.
absl::StatusOr<std::string> CpuTableToWrite(const std::string& flag, bool update_tuned,
                                            const std::vector<std::string>& host_tables);

// Sets the entry of each measured bucket to the measured variant's config in
// `cpu`'s table of `table` ("amd", "amd_family23": its cpu_tables entry,
// made if new), or for cpu "" in the default table, and notes `provenance`
// ("tools/autotune --mode=runtime on <cpu>, <date>") there: above a CPU's
// table, or after the file's own for the default. The note replaces the
// earlier run's, unless the run measured only some ops or dtypes
// (`some_buckets`): the other picks are still that run's, so the note
// becomes "<earlier note>; then <provenance>". Fails, changing nothing,
// where a measured variant's knobs are not the table's config of that index
// (the library was built from other tuned files: rebuild first).
absl::Status ApplyMeasuredPicks(const internal::TuningFile& measured, const std::string& provenance,
                                bool some_buckets, const std::string& cpu, TunedTable& table);

}  // namespace halnorm::autotune

#endif  // HALNORM_TOOLS_AUTOTUNE_MEASURED_TABLE_H_
