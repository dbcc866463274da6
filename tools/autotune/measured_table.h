// --mode=runtime --update_tuned: the bucket table of
// schedules/tuned/<target>.bzl taken from timings of the compiled variants.
// The JIT search picks configs and table on JIT-compiled kernels; the
// AOT-compiled ones rank differently on some shapes, and the built-in table
// should follow what the library really runs. Only the table changes: the
// configs, and so the kernels a build compiles, stay as they are.
#ifndef HALNORM_TOOLS_AUTOTUNE_MEASURED_TABLE_H_
#define HALNORM_TOOLS_AUTOTUNE_MEASURED_TABLE_H_

#include <string>

#include "absl/status/status.h"
#include "runtime/tuning_file.h"
#include "tools/autotune/tuned_bzl.h"

namespace halnorm::autotune {

// Sets the entry of each measured bucket to the measured variant's config in
// `cpu`'s table of `table` ("amd", "intel": its cpu_tables entry, made if
// new), or for cpu "" in the default table, and notes `provenance`
// ("tools/autotune --mode=runtime on <cpu>, <date>") there: above a vendor's
// table, or after the file's own for the default. Fails, changing nothing,
// where a measured variant's knobs are not the table's config of that index
// (the library was built from other tuned files: rebuild first).
absl::Status ApplyMeasuredPicks(const internal::TuningFile& measured,
                                const std::string& provenance, const std::string& cpu,
                                TunedTable& table);

}  // namespace halnorm::autotune

#endif  // HALNORM_TOOLS_AUTOTUNE_MEASURED_TABLE_H_
